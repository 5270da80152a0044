# wrong: the queries are the context vectors of one position later
def sequence_logprobs(model: TinyLM, store: Datastore, sequence: Sequence[int], cfg: KnnConfig) -> torch.Tensor:
    context = model.context_vectors(sequence)[1:]
    p_lm = model.logprobs(sequence)[:-1].exp()
    distances, indices = knn_search(store, context, cfg.k)
    p_knn = knn_distribution(distances, store.values[indices], store.vocab_size, cfg.temperature)
    p = interpolate(p_lm, p_knn, cfg.lam)
    targets = torch.tensor(list(sequence[1:]), dtype=torch.int64)
    return torch.log(p.gather(1, targets[:, None]).squeeze(1))
