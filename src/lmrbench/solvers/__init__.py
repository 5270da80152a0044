"""Solvers: how a prediction is made for one implementation."""
