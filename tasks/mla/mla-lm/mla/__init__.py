"""A tiny decoder-only language model with Multi-head Latent Attention (MLA) and a latent KV cache."""
