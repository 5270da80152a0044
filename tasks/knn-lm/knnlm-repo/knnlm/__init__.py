"""kNN-LM: a language model interpolated with a nearest-neighbour distribution over a datastore of contexts."""
