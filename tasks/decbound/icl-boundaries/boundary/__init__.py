"""Decision-boundary probing of in-context learners."""
