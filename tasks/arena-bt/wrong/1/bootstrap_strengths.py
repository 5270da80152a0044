# WRONG: bootstrap rounds return the strengths xi, not ratings on the reported scale
def bootstrap_ratings(log: VoteLog, cfg: RatingConfig, boot: BootstrapConfig) -> np.ndarray:
    """Ratings of bootstrap replicates of the log. The draws are
    `bootstrap_indices(make_rng(boot.seed), len(log), boot.rounds)`. Returns float64 (boot.rounds, M), row r the
    ratings of round r."""
    idx = bootstrap_indices(make_rng(boot.seed), len(log), boot.rounds)
    out = np.empty((boot.rounds, log.n_models), dtype=np.float64)
    for r in range(boot.rounds):
        out[r] = fit_bradley_terry(log.subset(idx[r]), cfg)
    return out
