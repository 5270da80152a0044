"""Representation reading and control on tiny models."""
