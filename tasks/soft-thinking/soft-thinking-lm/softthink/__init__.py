"""Soft Thinking on a tiny causal language model: reasoning with concept tokens (probability-weighted mixtures
of token embeddings) during the thinking phase, then ordinary discrete decoding of the answer."""
