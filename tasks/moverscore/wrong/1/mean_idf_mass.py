# WRONG: n-gram mass is the mean idf of its words, and the sentence-short case keeps n (empty windows).
def ngram_embeddings(emb: torch.Tensor, weights: torch.Tensor, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    m = emb.shape[0]
    if m < n:
        return (weights[:, None] * emb).sum(dim=0, keepdim=True), weights.mean().reshape(1)
    windows = torch.arange(m - n + 1)[:, None] + torch.arange(n)[None, :]
    vectors = (weights[windows, None] * emb[windows]).sum(dim=1)
    mass = weights[windows].mean(dim=1)
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
