"""difft: a tiny decoder-only language model with differential attention (the DIFF Transformer)."""
