"""Token-level Direct Preference Optimization (TDPO1 / TDPO2) on a toy Transformer."""
