"""Aggregation and reports."""
