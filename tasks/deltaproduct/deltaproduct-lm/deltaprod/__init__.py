"""A tiny language model built from DeltaProduct layers."""
