# WRONG: balancing loss without the factor N_r
def token_choice_recursions(model, h: torch.Tensor, positions: torch.Tensor, cache=None):
    """Token-choice Mixture-of-Recursions (Section 3.3 of paper.md).

    Args:
        model: a `MoRModel` with `cfg.routing == "token"`.
        h: (B, T, d) hidden states entering the first recursion step.
        positions: (B, T) integer positions.
        cache: None, or an empty `RecursionKVCache` (from `model.new_cache`) to prefill with the keys/values of
            positions 0..T-1 (positions must then be 0..T-1); its length becomes T.
    Returns:
        (h_out, info), computed in the dtype of h: h_out (B, T, d); info a dict with
          "depth": (B, T) int64, the number of recursion steps of each token (1..N_r); among equal router
              probabilities the smaller depth is chosen;
          "selected": (B, N_r, T) bool, the tokens that take each step;
          "gates": (B, T), each token's router weight;
          "balance_loss": scalar tensor; "z_loss": scalar tensor.
    Raises:
        ValueError: for a cache that is not empty or too short.
    """
    check_prefill_cache(cache, h.shape[1])
    cfg = model.cfg
    n_rec = cfg.n_recursions
    logits = model.router.logits(h)
    probs = torch.softmax(logits, dim=-1)
    choice = probs.argmax(dim=-1)
    depth = choice + 1
    g = cfg.router_alpha * probs.gather(-1, choice[..., None]).squeeze(-1)
    selected = []
    shared = None
    for r in range(n_rec):
        sel = depth > r
        h, kv = apply_recursion(model, h, positions, sel, g, shared)
        if cfg.kv_sharing and r == 0:
            shared = kv
        if cache is not None and (r == 0 or not cfg.kv_sharing):
            fill_cache(cache, 0 if cfg.kv_sharing else r, kv, sel)
        selected.append(sel)
    frac = F.one_hot(choice, n_rec).to(probs.dtype).mean(dim=(0, 1))
    mean_prob = probs.mean(dim=(0, 1))
    balance = (frac * mean_prob).sum()
    z = torch.logsumexp(logits, dim=-1).pow(2).mean()
    if cache is not None:
        cache.length = h.shape[1]
    info = {"depth": depth, "selected": torch.stack(selected, dim=1), "gates": g, "balance_loss": balance,
            "z_loss": z}
    return h, info
