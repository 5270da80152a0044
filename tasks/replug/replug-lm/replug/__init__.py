"""REPLUG: a frozen language model augmented with a dense retriever (toy-scale)."""
