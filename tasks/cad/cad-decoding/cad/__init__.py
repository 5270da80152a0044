"""Context-aware decoding (CAD) on a tiny causal language model."""
