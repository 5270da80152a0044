"""mta: a tiny decoder-only language model with Multi-Token Attention."""
