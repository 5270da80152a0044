# the residual subtracts the draft distribution before the rejected child was tried from the original p each time
def verify_sampling(tokens: torch.Tensor, parents: torch.Tensor, target_probs: torch.Tensor,
                    draft_probs: torch.Tensor, stream: UniformStream) -> tuple[list[int], int]:
    """Speculative-sampling verification of a flattened tree.

    tokens, parents: (n,) int64 as `flatten_tree` returns them; target_probs: (n, vocab) float64, the target's
    distribution of the token after each entry; draft_probs: (n, vocab) float64, the draft's distribution of the
    token after each entry (rows of entries without children are not read). Random numbers are taken from
    `stream`: one for each child tested, children of an entry in ascending index, then one for the bonus token
    (drawn with `sample_index`). Returns the accepted path, root (0) first, and the bonus token."""
    path = [0]
    while True:
        cur = path[-1]
        p = target_probs[cur].clone()
        q = draft_probs[cur].clone()
        moved = False
        for j in range(cur + 1, tokens.shape[0]):
            if int(parents[j]) != cur:
                continue
            x = int(tokens[j])
            r = stream.next()
            if r * q[x] < p[x]:
                path.append(j)
                moved = True
                break
            p = torch.clamp(target_probs[cur] - q, min=0)
            p = p / p.sum()
            q[x] = 0
            q = q / q.sum()
        if not moved:
            return path, sample_index(p, stream.next())
