"""A tiny decoder-only language model with gated softmax attention."""
