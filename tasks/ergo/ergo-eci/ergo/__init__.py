"""ERGO-style document-level event causality identification, in miniature."""
