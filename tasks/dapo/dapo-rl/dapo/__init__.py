"""A small DAPO reinforcement-learning setup: a toy reasoning task, a tiny policy and the DAPO trainer."""
