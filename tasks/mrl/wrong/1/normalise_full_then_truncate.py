# wrong: the full vectors are normalised and then truncated, instead of normalising each prefix
def funnel_retrieval(queries: torch.Tensor, database: torch.Tensor, cascade: Sequence[tuple[int, int]]) -> torch.Tensor:
    shortlist = torch.arange(database.shape[0]).expand(queries.shape[0], -1)
    for dim, k in cascade:
        q = torch.nn.functional.normalize(queries.to(torch.float64), dim=-1)[:, :dim]
        db = torch.nn.functional.normalize(database.to(torch.float64), dim=-1)[:, :dim]
        sims = torch.einsum("qd,qkd->qk", q, db[shortlist])
        order = torch.sort(-sims, dim=1, stable=True).indices[:, :k]
        shortlist = torch.gather(shortlist, 1, order)
    return shortlist
