# wrong: the end-of-sequence token is kept as the last token of a path
def decode_branches(model: TinyLM, prompt_ids: Sequence[int], cfg: DecodeConfig, eos_id: int) -> list[DecodedPath]:
    first = model.next_token_probs(prompt_ids)
    order = sorted(range(first.numel()), key=lambda t: (-first[t].item(), t))[: cfg.num_branches]
    paths = []
    for branch, token in enumerate(order):
        tokens: list[int] = []
        rows: list[torch.Tensor] = []
        probs, nxt = first, token
        while len(tokens) < cfg.max_new_tokens:
            tokens.append(nxt)
            rows.append(probs)
            if nxt == eos_id or len(tokens) == cfg.max_new_tokens:
                break
            probs = model.next_token_probs(list(prompt_ids) + tokens)
            nxt = int(torch.argmax(probs).item())
        stacked = torch.stack(rows) if rows else torch.zeros(0, first.numel(), dtype=first.dtype)
        paths.append(DecodedPath(branch, tokens, stacked))
    return paths
