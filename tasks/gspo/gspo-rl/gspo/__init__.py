"""GSPO (Group Sequence Policy Optimization) on a toy reasoning task with a tiny policy."""
