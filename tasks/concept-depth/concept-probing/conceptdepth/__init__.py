"""Layer-wise probing for concept depth."""
