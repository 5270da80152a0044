"""A tiny Titans language model: a neural long-term memory trained at test time, stacked with attention."""
