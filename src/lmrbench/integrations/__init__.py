"""Integrations with other evaluation frameworks (optional extras)."""
