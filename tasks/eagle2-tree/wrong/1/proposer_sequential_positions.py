# drafted rows get consecutive positions after the prefix instead of positions by depth
class DraftProposer:
    def __call__(self, tree: DraftTree, nodes: torch.Tensor) -> torch.Tensor:
        """tree: the tree drafted so far; nodes: (r,) int64 node indices whose parents were passed to an earlier
        call (or are children of the root). Returns (r, vocab) float64."""
        rows = sorted(set(k for k in self.predicted if k >= 0) | {int(c) for c in nodes})
        at = {c: i for i, c in enumerate(rows)}
        n, r = self.past, len(rows)
        feats = torch.stack([self.predicted[int(tree.parents[c])] for c in rows]) if rows else None
        tokens = tree.tokens[rows]
        positions = self.past + 1 + torch.arange(len(rows))
        mask = torch.zeros(n + r, n + r, dtype=torch.bool)
        mask[:n, :n] = causal_mask(n)
        mask[n:, :n] = True
        for c in rows:
            a = c
            while a != -1:
                mask[n + at[c], n + at[a]] = True
                a = int(tree.parents[a])
        predicted = self.draft(torch.cat([self.prefix_features, feats]),
                               torch.cat([self.prefix_tokens, tokens]),
                               torch.cat([self.prefix_positions, positions]), mask)
        for c in rows:
            self.predicted[c] = predicted[n + at[c]]
        out = self.draft.probs(torch.stack([self.predicted[int(c)] for c in nodes]))
        for c, row in zip(nodes, out):
            self.probs[int(c)] = row
        return out
