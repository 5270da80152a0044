"""lmrbench: a benchmark harness for reproducing language-modeling research code."""

__version__ = "0.1.0"
