"""Probing language models on their knowledge source (parametric vs contextual).

A small, self-contained re-implementation of the probing pipeline on a synthetic
ParaRel-like knowledge base and a tiny word-level language model.
"""

__all__ = [
    "text",
    "kb",
    "prompts",
    "model",
    "elicit",
    "prompt_checks",
    "overlap",
    "counter",
    "groups",
    "linear_probe",
    "training",
    "probing",
    "pipeline",
]
