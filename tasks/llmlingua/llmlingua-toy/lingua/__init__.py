"""LLMLingua on a toy scale: coarse-to-fine prompt compression with a tiny causal language model."""
