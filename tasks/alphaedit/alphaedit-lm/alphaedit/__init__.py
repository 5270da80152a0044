"""AlphaEdit on a tiny transformer LM: null-space constrained locate-then-edit knowledge editing."""
