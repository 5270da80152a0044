"""GEPA on a tiny synthetic two-module text pipeline, with deterministic rule-based stand-ins for the LMs."""
