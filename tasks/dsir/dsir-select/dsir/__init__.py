"""dsir: data selection with importance resampling on hashed n-gram features."""
