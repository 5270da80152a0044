"""LESS on a toy instruction-tuning setup: gradient-based selection of training data for target tasks."""
