# wrong: every stage ranks the whole database instead of re-ranking the previous shortlist
def funnel_retrieval(queries: torch.Tensor, database: torch.Tensor, cascade: Sequence[tuple[int, int]]) -> torch.Tensor:
    shortlist = torch.arange(database.shape[0]).expand(queries.shape[0], -1)
    for dim, k in cascade:
        q = torch.nn.functional.normalize(queries[:, :dim].to(torch.float64), dim=1)
        db = torch.nn.functional.normalize(database[:, :dim].to(torch.float64), dim=1)
        sims = q @ db.T
        shortlist = torch.sort(-sims, dim=1, stable=True).indices[:, :k]
    return shortlist
