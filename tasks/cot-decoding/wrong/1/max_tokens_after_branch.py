# wrong: max_new_tokens counts the tokens after the branch's first token (paths one token too long)
def decode_branches(model: TinyLM, prompt_ids: Sequence[int], cfg: DecodeConfig, eos_id: int) -> list[DecodedPath]:
    first = model.next_token_probs(prompt_ids)
    order = sorted(range(first.numel()), key=lambda t: (-first[t].item(), t))[: cfg.num_branches]
    paths = []
    for branch, token in enumerate(order):
        tokens: list[int] = []
        rows: list[torch.Tensor] = []
        probs, nxt = first, token
        while nxt != eos_id and len(tokens) < cfg.max_new_tokens + 1:
            tokens.append(nxt)
            rows.append(probs)
            if len(tokens) == cfg.max_new_tokens + 1:
                break
            probs = model.next_token_probs(list(prompt_ids) + tokens)
            nxt = int(torch.argmax(probs).item())
        stacked = torch.stack(rows) if rows else torch.zeros(0, first.numel(), dtype=first.dtype)
        paths.append(DecodedPath(branch, tokens, stacked))
    return paths
