"""MAUVE: a divergence-frontier comparison of model text with human text, on features of the samples."""
