"""A tiny decoder-only language model with Mixture of Block Attention (MoBA) layers."""
