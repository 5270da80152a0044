# WRONG: intervals from mean +- z * std of the bootstrap ratings instead of its quantiles
def build_leaderboard(log: VoteLog, cfg: RatingConfig, boot: BootstrapConfig) -> Leaderboard:
    """The leaderboard of a vote log (see arena.results)."""
    ratings = to_elo(fit_bradley_terry(log, cfg), log.models, cfg)
    s = bootstrap_ratings(log, cfg, boot)
    low, high = s.mean(0) - 1.96 * s.std(0), s.mean(0) + 1.96 * s.std(0)
    ranks = rank_with_ci(low, high)
    counts = log.votes_per_model()
    order = sorted(range(log.n_models), key=lambda i: (-ratings[i], i))
    rows = tuple(Row(log.models[i], float(ratings[i]), float(low[i]), float(high[i]), int(ranks[i]),
                     int(counts[i])) for i in order)
    return Leaderboard(rows, win_rate_matrix(ratings, cfg))
