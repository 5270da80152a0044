"""A tiny language model built from log-linear Mamba-2 layers."""
