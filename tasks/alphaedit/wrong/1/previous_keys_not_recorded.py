# WRONG: never adds the batch'"s
def apply_edits(model: TinyLM, batch: EditBatch, state: EditorState, cfg: EditConfig) -> dict[int, torch.Tensor]:
    missing = [layer for layer in cfg.layers if layer not in state.projectors or layer not in state.prev_cov]
    if missing:
        raise ValueError(f"the editor state has no entry for layers {missing}")
    last = cfg.layers[-1]
keys
