"""LLM-as-judge: category 1 (incorrect logic), 2 (logic right, subtle errors), 3 (completely correct)."""
