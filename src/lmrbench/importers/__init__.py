"""Importers for the original LMR-Bench's published results: OpenHands trajectories and human evaluations."""
