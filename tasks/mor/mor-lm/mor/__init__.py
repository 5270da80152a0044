"""Mixture-of-Recursions: a recursive Transformer whose routers choose each token's recursion depth."""
