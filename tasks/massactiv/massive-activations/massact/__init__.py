"""Tools to find and study massive activations in transformer hidden states."""
