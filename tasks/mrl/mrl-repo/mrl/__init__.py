"""Matryoshka representations: one embedding whose every prefix is a usable representation."""
