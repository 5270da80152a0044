"""MoverScore on a tiny, seeded contextual encoder."""
