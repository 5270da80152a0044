# WRONG: with ties dropped, the bootstrap resamples among the decisive votes only instead of all votes of the log
def bootstrap_ratings(log: VoteLog, cfg: RatingConfig, boot: BootstrapConfig) -> np.ndarray:
    base = log.subset(np.flatnonzero(~log.is_tie())) if cfg.ties == "drop" else log
    idx = bootstrap_indices(make_rng(boot.seed), len(base), boot.rounds)
    out = np.empty((boot.rounds, log.n_models), dtype=np.float64)
    for r in range(boot.rounds):
        out[r] = to_elo(fit_bradley_terry(base.subset(idx[r]), cfg), log.models, cfg)
    return out
