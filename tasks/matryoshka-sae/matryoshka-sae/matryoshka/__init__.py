"""Matryoshka sparse autoencoders with BatchTopK sparsity, trained on synthetic hierarchical activations."""
