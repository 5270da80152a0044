# WRONG: the reported rating is the median of the bootstrap ratings, not the fit on all votes
def build_leaderboard(log: VoteLog, cfg: RatingConfig, boot: BootstrapConfig) -> Leaderboard:
    """The leaderboard of a vote log (see arena.results)."""
    samples = bootstrap_ratings(log, cfg, boot)
    ratings = np.median(samples, axis=0)
    low, high = percentile_interval(samples, boot.confidence)
    ranks = rank_with_ci(low, high)
    counts = log.votes_per_model()
    order = sorted(range(log.n_models), key=lambda i: (-ratings[i], i))
    rows = tuple(Row(log.models[i], float(ratings[i]), float(low[i]), float(high[i]), int(ranks[i]),
                     int(counts[i])) for i in order)
    return Leaderboard(rows, win_rate_matrix(ratings, cfg))
