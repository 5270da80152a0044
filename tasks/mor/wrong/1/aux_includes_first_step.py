# WRONG: auxiliary loss also over step 1 (all labels 1) and divided by N_r
def expert_choice_recursions(model, h: torch.Tensor, positions: torch.Tensor, mode: str = "topk", cache=None):
    """Expert-choice Mixture-of-Recursions over the N_r recursion steps (Section 3.2 of paper.md).

    Args:
        model: a `MoRModel` with `cfg.routing == "expert"` (router `model.router`, block `model.blocks`).
        h: (B, T, d) hidden states entering the first recursion step.
        positions: (B, T) integer positions.
        mode: "topk" (training-time selection with the capacity schedule) or "threshold" (inference-time
            selection by the router's probability; strictly greater than one half selects).
        cache: None, or an empty `RecursionKVCache` (from `model.new_cache`) to prefill with the keys/values of
            positions 0..T-1 (positions must then be 0..T-1); its length becomes T.
    Returns:
        (h_out, info), computed in the dtype of h: h_out (B, T, d); info a dict with
          "selected": (B, N_r, T) bool, the tokens that take each step;
          "gates": (B, N_r, T), the router weight of every position at each step, computed from the hidden state
              entering that step (also for positions that are not eligible);
          "aux_loss": scalar tensor, the auxiliary loss of the main router or of the auxiliary router, as
              `model.cfg.causal_fix` selects (a step without candidates contributes zero).
    Raises:
        ValueError: for an unknown mode, or a cache that is not empty or too short.
    """
    if mode not in ("topk", "threshold"):
        raise ValueError(f"unknown mode {mode!r}")
    check_prefill_cache(cache, h.shape[1])
    cfg = model.cfg
    n_rec = cfg.n_recursions
    b, t, _ = h.shape
    caps = capacity_schedule(t, n_rec)
    eligible = torch.ones(b, t, dtype=torch.bool, device=h.device)
    selected, gates = [], []
    aux = h.new_zeros(())
    shared = None
    for r in range(n_rec):
        s = model.router.scores(h, r)
        p = torch.sigmoid(s)
        g = cfg.router_alpha * p
        if r == 0:
            sel = eligible.clone()
        elif mode == "topk":
            sel = expert_choice_select(g, eligible, caps[r])
        elif cfg.causal_fix == "aux_router":
            sel = eligible & (torch.sigmoid(model.router.aux_scores(h, r)) > 0.5)
        else:
            sel = eligible & (p > 0.5)
        if bool(eligible.any()):
            logit = model.router.aux_scores(h.detach(), r) if cfg.causal_fix == "aux_router" else s
            aux = aux + F.binary_cross_entropy_with_logits(logit[eligible], sel[eligible].to(s.dtype))
        h, kv = apply_recursion(model, h, positions, sel, g, shared)
        if cfg.kv_sharing and r == 0:
            shared = kv
        if cache is not None and (r == 0 or not cfg.kv_sharing):
            fill_cache(cache, 0 if cfg.kv_sharing else r, kv, sel)
        selected.append(sel)
        gates.append(g)
        eligible = sel
    aux = aux / n_rec
    if cache is not None:
        cache.length = t
    return h, {"selected": torch.stack(selected, dim=1), "gates": torch.stack(gates, dim=1), "aux_loss": aux}
