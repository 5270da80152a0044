"""A tiny decoder-only language model turned into a text encoder (LLM2Vec)."""
