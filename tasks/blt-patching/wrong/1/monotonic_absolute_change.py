# wrong: the approximate monotonic constraint on |H(x_t) - H(x_{t-1})| instead of the rise H(x_t) - H(x_{t-1})
def entropy_patch_starts(entropies: torch.Tensor, cfg: PatchingConfig) -> torch.Tensor:
    if entropies.dim() != 2 or entropies.shape[1] == 0:
        raise ValueError("entropies must have shape (B, T)")
    if cfg.method == "global":
        starts = entropies > cfg.threshold
    else:
        starts = torch.zeros_like(entropies, dtype=torch.bool)
        starts[:, 1:] = (entropies[:, 1:] - entropies[:, :-1]).abs() > cfg.threshold
    starts[:, 0] = True
    return starts
