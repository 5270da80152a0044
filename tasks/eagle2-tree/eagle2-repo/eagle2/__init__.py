"""Tiny EAGLE-2 playground: a float64 target LM with a KV cache, a feature-level draft model, and dynamic draft
trees for lossless speculative decoding."""
