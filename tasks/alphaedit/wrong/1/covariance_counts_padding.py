# WRONG: sums the keys of every position, padding included.
def preserved_key_covariance(model: TinyLM, layer: int, corpus: TokenCorpus, batch_size: int) -> torch.Tensor:
    weight = rewrite_module(model, layer).weight
    if not bool(corpus.mask.any()):
        raise ValueError("the preserved corpus has no token")
    cov = torch.zeros(weight.shape[1], weight.shape[1], dtype=weight.dtype)
    for part in corpus.batches(batch_size):
        keys = mlp_keys(model, part.tokens, layer).reshape(-1, weight.shape[1])
        cov += keys.T @ keys
    return cov
