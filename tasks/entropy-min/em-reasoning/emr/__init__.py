"""Entropy minimisation (EM-FT, EM-RL, EM-INF) for a tiny language model."""
