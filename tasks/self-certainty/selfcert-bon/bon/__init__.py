"""Best-of-N selection for a tiny language model: confidence measures, voting, and the best-of-N loop."""
