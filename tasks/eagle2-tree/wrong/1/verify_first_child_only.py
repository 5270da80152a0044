# greedy verification tests only the first child of each entry
def verify_greedy(tokens: torch.Tensor, parents: torch.Tensor, logits: torch.Tensor) -> tuple[list[int], int]:
    """Greedy verification of a flattened tree.

    tokens, parents: (n,) int64 as `flatten_tree` returns them; logits: (n, vocab), the target's logits at each
    entry. Returns the accepted path as indices into the sequence, root (0) first, and the target's bonus token
    after the path's last entry (argmax, the lowest token id on a tie)."""
    path = [0]
    while True:
        cur = path[-1]
        best = int(torch.argmax(logits[cur]))
        kids = [j for j in range(cur + 1, tokens.shape[0]) if int(parents[j]) == cur]
        nxt = [j for j in kids[:1] if int(tokens[j]) == best]
        if not nxt:
            return path, best
        path.append(nxt[0])
