"""Speculative sampling: a small draft model proposes tokens, the large target model checks them in one pass."""
