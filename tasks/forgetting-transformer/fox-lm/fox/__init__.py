"""fox-lm: a tiny decoder-only language model with Forgetting Attention (FoX) and a softmax baseline."""
