"""Contrastive decoding: search for text that a large expert model likes much more than a small amateur does."""
