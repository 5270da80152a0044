# WRONG: off-by-one window count: range(m - n) drops the last n-gram (and fails for short sentences).
def ngram_embeddings(emb: torch.Tensor, weights: torch.Tensor, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    width = min(n, emb.shape[0])
    count = max(emb.shape[0] - width, 1)
    windows = torch.arange(count)[:, None] + torch.arange(width)[None, :]
    vectors = (weights[windows, None] * emb[windows]).sum(dim=1)
    mass = weights[windows].sum(dim=1)
    return vectors, mass

def mover_score(
    ref_emb: torch.Tensor,
    ref_idf: torch.Tensor,
    hyp_emb: torch.Tensor,
    hyp_idf: torch.Tensor,
    n_gram: int = 1,
) -> torch.Tensor:
    ref_vec, ref_mass = ngram_embeddings(ref_emb, ref_idf, n_gram)
    hyp_vec, hyp_mass = ngram_embeddings(hyp_emb, hyp_idf, n_gram)
    ref_vec = ref_vec / ref_vec.norm(dim=-1, keepdim=True)
    hyp_vec = hyp_vec / hyp_vec.norm(dim=-1, keepdim=True)
    cost = (ref_vec[:, None, :] - hyp_vec[None, :, :]).norm(dim=-1)
    distance = emd(ref_mass / ref_mass.sum(), hyp_mass / hyp_mass.sum(), cost)
    return 1 - distance
