"""Contextual calibration of few-shot in-context classification."""
