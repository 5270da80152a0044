"""Tiny early-exit language model and DoLa (Decoding by Contrasting Layers) decoding."""
