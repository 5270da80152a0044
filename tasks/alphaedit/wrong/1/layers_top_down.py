# WRONG: edits the critical layers from the last to the first.
def apply_edits(model: TinyLM, batch: EditBatch, state: EditorState, cfg: EditConfig) -> dict[int, torch.Tensor]:
    missing = [layer for layer in cfg.layers if layer not in state.projectors or layer not in state.prev_cov]
    if missing:
        raise ValueError(f"the editor state has no entry for layers {missing}")
    last = cfg.layers[-1]
    z = compute_target_hidden(model, batch, last, cfg)
    deltas: dict[int, torch.Tensor] = {}
    for i, layer in enumerate(reversed(cfg.layers)):
        keys = mlp_keys(model, batch.tokens, layer, batch.subject_pos).T
        current = block_outputs(model, batch.tokens, last, batch.subject_pos)
        resid = (z - current).T / (len(cfg.layers) - i)
        delta = alphaedit_delta(resid, keys, state.projectors[layer], state.prev_cov[layer], cfg.reg_weight)
        with torch.no_grad():
            rewrite_module(model, layer).weight.add_(delta)
        state.prev_cov[layer] = state.prev_cov[layer] + keys @ keys.T
        deltas[layer] = delta
    return deltas
