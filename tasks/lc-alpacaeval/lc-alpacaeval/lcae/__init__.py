"""Length-controlled win rates for pairwise LLM-judge annotations (a small AlpacaEval-style toolkit)."""
