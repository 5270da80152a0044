"""s1-style test-time scaling on a toy model: budget forcing in the decoding loop, and its evaluation metrics."""
