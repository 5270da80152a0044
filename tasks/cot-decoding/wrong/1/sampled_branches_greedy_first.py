# wrong: every branch starts from the greedy first token and branches at the second step instead
def decode_branches(model: TinyLM, prompt_ids: Sequence[int], cfg: DecodeConfig, eos_id: int) -> list[DecodedPath]:
    greedy = model.next_token_probs(prompt_ids)
    g0 = int(torch.argmax(greedy).item())
    first = model.next_token_probs(list(prompt_ids) + [g0])
    order = sorted(range(first.numel()), key=lambda t: (-first[t].item(), t))[: cfg.num_branches]
    paths = []
    for branch, token in enumerate(order):
        tokens: list[int] = [g0]
        rows: list[torch.Tensor] = [greedy]
        probs, nxt = first, token
        while nxt != eos_id and len(tokens) < cfg.max_new_tokens:
            tokens.append(nxt)
            rows.append(probs)
            if len(tokens) == cfg.max_new_tokens:
                break
            probs = model.next_token_probs(list(prompt_ids) + tokens)
            nxt = int(torch.argmax(probs).item())
        stacked = torch.stack(rows) if rows else torch.zeros(0, first.numel(), dtype=first.dtype)
        paths.append(DecodedPath(branch, tokens, stacked))
    return paths
