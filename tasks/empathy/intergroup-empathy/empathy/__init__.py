"""Intergroup empathy bias in emotion-intensity predictions."""
