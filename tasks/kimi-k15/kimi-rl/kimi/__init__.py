"""A tiny reinforcement-learning setup in the style of Kimi k1.5: a toy policy, verifiable problems, RL."""
