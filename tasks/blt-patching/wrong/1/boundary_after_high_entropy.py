# wrong: a byte above the threshold ends its patch (the next byte starts one) instead of starting a new patch
def entropy_patch_starts(entropies: torch.Tensor, cfg: PatchingConfig) -> torch.Tensor:
    if entropies.dim() != 2 or entropies.shape[1] == 0:
        raise ValueError("entropies must have shape (B, T)")
    if cfg.method == "global":
        crit = entropies > cfg.threshold
    else:
        crit = torch.zeros_like(entropies, dtype=torch.bool)
        crit[:, 1:] = entropies[:, 1:] - entropies[:, :-1] > cfg.threshold
    starts = torch.zeros_like(crit)
    starts[:, 1:] = crit[:, :-1]
    starts[:, 0] = True
    return starts
