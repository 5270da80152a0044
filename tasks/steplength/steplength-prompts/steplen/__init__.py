"""Prompt construction for studying the length of reasoning chains in chain-of-thought prompts."""
