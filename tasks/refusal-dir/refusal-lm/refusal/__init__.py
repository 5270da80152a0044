"""Refusal directions in a tiny chat model: difference-in-means candidates, selection, interventions."""
