# wrong: funnel retrieval ranks by the dot product of the prefixes instead of cosine similarity
def funnel_retrieval(queries: torch.Tensor, database: torch.Tensor, cascade: Sequence[tuple[int, int]]) -> torch.Tensor:
    shortlist = torch.arange(database.shape[0]).expand(queries.shape[0], -1)
    for dim, k in cascade:
        q = queries[:, :dim].to(torch.float64)
        db = database[:, :dim].to(torch.float64)
        sims = torch.einsum("qd,qkd->qk", q, db[shortlist])
        order = torch.sort(-sims, dim=1, stable=True).indices[:, :k]
        shortlist = torch.gather(shortlist, 1, order)
    return shortlist
