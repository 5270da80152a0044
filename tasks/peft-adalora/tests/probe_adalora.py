"""Probe for peft-adalora/1 (placeholder)."""
