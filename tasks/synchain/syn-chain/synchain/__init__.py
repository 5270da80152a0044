"""Syntax-Opinion-Sentiment reasoning chain for aspect-based sentiment analysis."""
