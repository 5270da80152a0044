"""EAGLE-2: dynamic draft trees (expansion and reranking), tree attention for one-pass verification by the target,
greedy acceptance of the longest matching path, and the cache bookkeeping of a decoding step."""

from __future__ import annotations

from collections.abc import Callable

import torch

from .config import EagleConfig
from .draft import FeatureDraft
from .model import KVCache, TargetLM, causal_mask
from .sampling import UniformStream, sample_index
from .state import DecodeState, DraftTree, GenerationResult, StepRecord

Propose = Callable[[DraftTree, torch.Tensor], torch.Tensor]


def expand_tree(root_probs: torch.Tensor, propose: Propose, depth: int, top_k: int) -> DraftTree:
    """Expansion phase: grow the draft tree below a root, layer by layer, up to `depth` layers.

    root_probs: (vocab,) float64, the draft's distribution of the token after the root.
    propose: called as propose(tree, nodes) with the tree drafted so far and a (r,) int64 tensor of node indices
    in ascending order; returns (r, vocab) float64, the draft's distribution of the token after each of those
    nodes. Called once per layer after the first, never more.
    Selections among equal probabilities or values go to the lower token id / lower node index.

    Returns the DraftTree (see `eagle2.state.DraftTree` for the node numbering), with `expanded` the nodes
    passed to `propose`, in order. Raises ValueError if top_k exceeds the vocabulary or depth < 1."""
    vocab = root_probs.shape[0]
    if top_k > vocab or depth < 1 or top_k < 1:
        raise ValueError(f"need 1 <= top_k <= vocab ({vocab}) and depth >= 1, got top_k={top_k}, depth={depth}")
    first = torch.sort(-root_probs, stable=True).indices[:top_k]
    tokens = [int(t) for t in first]
    parents = [-1] * top_k
    depths = [1] * top_k
    values = [float(root_probs[t]) for t in first]
    expanded: list[int] = []
    layer = list(range(top_k))

    def snapshot() -> DraftTree:
        return DraftTree(torch.tensor(tokens, dtype=torch.int64), torch.tensor(parents, dtype=torch.int64),
                         torch.tensor(depths, dtype=torch.int64), torch.tensor(values, dtype=torch.float64),
                         list(expanded))

    for d in range(2, depth + 1):
        layer_values = torch.tensor([values[i] for i in layer], dtype=torch.float64)
        best = torch.sort(-layer_values, stable=True).indices[:top_k]
        chosen = sorted(layer[int(i)] for i in best)
        nodes = torch.tensor(chosen, dtype=torch.int64)
        probs = propose(snapshot(), nodes)
        expanded.extend(chosen)
        layer = []
        for row, parent in enumerate(chosen):
            kids = torch.sort(-probs[row], stable=True).indices[:top_k]
            for t in kids:
                layer.append(len(tokens))
                tokens.append(int(t))
                parents.append(parent)
                depths.append(d)
                values.append(values[parent] * float(probs[row, t]))
    return snapshot()


def static_tree(root_probs: torch.Tensor, propose: Propose, shape: tuple[tuple[int, ...], ...]) -> DraftTree:
    """EAGLE's static tree: the node of path (r_1, ..., r_d) holds the r_d-th most probable child (rank 0 first,
    the lower token id first on a tie) of the node of path (r_1, ..., r_{d-1}), or of the root when d = 1.

    root_probs and propose as in `expand_tree`; propose is called once per depth that has deeper paths, with the
    nodes of that depth that have children in `shape`. Nodes are numbered in the order of `shape`, which must list
    all paths of one length before any longer path and every path after its parent path; raises ValueError
    otherwise, or if a rank is out of the vocabulary."""
    vocab = root_probs.shape[0]
    index: dict[tuple[int, ...], int] = {}
    for i, path in enumerate(shape):
        if not path or (i and len(path) < len(shape[i - 1])) or (len(path) > 1 and path[:-1] not in index):
            raise ValueError(f"bad static tree shape at {path}")
        if not 0 <= path[-1] < vocab:
            raise ValueError(f"rank {path[-1]} out of the vocabulary ({vocab})")
        index[tuple(path)] = i
    n = len(shape)
    tokens = torch.zeros(n, dtype=torch.int64)
    parents = torch.tensor([index[tuple(p[:-1])] if len(p) > 1 else -1 for p in shape], dtype=torch.int64)
    depths = torch.tensor([len(p) for p in shape], dtype=torch.int64)
    values = torch.zeros(n, dtype=torch.float64)
    expanded: list[int] = []
    dist = {-1: root_probs}
    for d in range(1, int(depths.max()) + 1 if n else 1):
        if d > 1:
            nodes = sorted({int(parents[i]) for i in range(n) if depths[i] == d})
            m = int((depths < d).sum())
            tree = DraftTree(tokens[:m].clone(), parents[:m].clone(), depths[:m].clone(), values[:m].clone(),
                             list(expanded))
            probs = propose(tree, torch.tensor(nodes, dtype=torch.int64))
            expanded.extend(nodes)
            dist.update({c: row for c, row in zip(nodes, probs)})
        for i in range(n):
            if depths[i] != d:
                continue
            par = int(parents[i])
            ranked = torch.sort(-dist[par], stable=True).indices
            tokens[i] = ranked[shape[i][-1]]
            values[i] = (1.0 if par == -1 else values[par]) * dist[par][tokens[i]]
    return DraftTree(tokens, parents, depths, values, expanded)


def rerank(tree: DraftTree, total_tokens: int) -> torch.Tensor:
    """Reranking phase: the node indices kept for verification, (min(total_tokens, len(tree)),) int64 in
    ascending order. Among equal values the lower node index ranks first."""
    order = torch.sort(-tree.values, stable=True).indices[:total_tokens]
    return torch.sort(order).values


def flatten_tree(root_token: int, tree: DraftTree, keep: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Lay out the root and the kept nodes as one sequence: the root at index 0, then the kept nodes in ascending
    node index.

    Returns tokens, parents and depths, each (len(keep) + 1,) int64: parents[i] is the index in this sequence of
    the parent of entry i (-1 for the root); depths: 0 for the root. Raises ValueError if a kept node's parent
    is neither the root nor kept."""
    where = {int(c): i + 1 for i, c in enumerate(keep)}
    tokens, parents, depths = [int(root_token)], [-1], [0]
    for c in keep:
        c = int(c)
        p = int(tree.parents[c])
        if p != -1 and p not in where:
            raise ValueError(f"node {c} is kept but its parent {p} is not")
        tokens.append(int(tree.tokens[c]))
        parents.append(0 if p == -1 else where[p])
        depths.append(int(tree.depths[c]))
    as_long = lambda x: torch.tensor(x, dtype=torch.int64)  # noqa: E731
    return as_long(tokens), as_long(parents), as_long(depths)


def tree_attention_mask(parents: torch.Tensor, past: int) -> torch.Tensor:
    """The target's attention mask for a flattened tree that follows `past` cached entries.

    parents: (n,) int64 as `flatten_tree` returns them. Returns (n, past + n) bool, True where entry i may
    attend to cache entry j < past or to tree entry j - past."""
    n = parents.shape[0]
    tree = torch.zeros(n, n, dtype=torch.bool)
    for i in range(n):
        p = int(parents[i])
        if p >= 0:
            tree[i] = tree[p]
        tree[i, i] = True
    return torch.cat([torch.ones(n, past, dtype=torch.bool), tree], dim=1)


def tree_position_ids(depths: torch.Tensor, past: int) -> torch.Tensor:
    """(n,) int64 position ids of the flattened tree's entries, which follow `past` cached entries."""
    return depths.to(torch.int64) + past


def verify_greedy(tokens: torch.Tensor, parents: torch.Tensor, logits: torch.Tensor) -> tuple[list[int], int]:
    """Greedy verification of a flattened tree.

    tokens, parents: (n,) int64 as `flatten_tree` returns them; logits: (n, vocab), the target's logits at each
    entry. Returns the accepted path as indices into the sequence, root (0) first, and the target's bonus token
    after the path's last entry (argmax, the lowest token id on a tie)."""
    path = [0]
    while True:
        cur = path[-1]
        best = int(torch.argmax(logits[cur]))
        nxt = [j for j in range(cur + 1, tokens.shape[0]) if int(parents[j]) == cur and int(tokens[j]) == best]
        if not nxt:
            return path, best
        path.append(nxt[0])


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
            p = torch.clamp(p - q, min=0)
            p = p / p.sum()
            q[x] = 0
            q = q / q.sum()
        if not moved:
            return path, sample_index(p, stream.next())


def compact_cache(cache: KVCache, past: int, accepted: list[int]) -> KVCache:
    """The cache after verification: `cache` holds `past` entries of committed tokens, then one entry per entry of
    the flattened tree. Returns a new KVCache with the committed entries and the entries of `accepted` (indices
    into the flattened tree, in path order), in that order."""
    index = torch.cat([torch.arange(past), past + torch.tensor(accepted, dtype=torch.int64)])
    return KVCache([(k.index_select(0, index), v.index_select(0, index)) for k, v in cache.layers])


class DraftProposer:
    """The draft model's side of one step, usable as `propose` in `expand_tree`.

    On construction, runs the draft over the committed sequence of `state` and sets `root_probs` ((vocab,)
    float64): the draft's distribution of the token after the root (the last token of state.ids); the first token
    of state.ids gets no row (no token precedes it). Each call
    proposer(tree, nodes) runs the draft once and returns (len(nodes), vocab) float64, the draft's distributions
    of the token after each node. `probs` maps -1 (the root) and every node passed to a call so far to its
    (vocab,) distribution."""

    def __init__(self, draft: FeatureDraft, state: DecodeState) -> None:
        """draft: the draft model; state: the DecodeState of the step (at least two ids). Raises ValueError if
        state.ids has fewer than two tokens."""
        if len(state.ids) < 2:
            raise ValueError("the state needs at least one processed token before the root")
        self.draft = draft
        n = len(state.ids) - 1
        self.past = n
        self.prefix_features = state.features[:n]
        self.prefix_tokens = torch.tensor(state.ids[1:], dtype=torch.int64)
        self.prefix_positions = torch.arange(1, n + 1)
        predicted = draft(self.prefix_features, self.prefix_tokens, self.prefix_positions, causal_mask(n))
        self.predicted = {-1: predicted[-1]}
        self.root_probs = draft.probs(predicted[-1])
        self.probs = {-1: self.root_probs}

    def __call__(self, tree: DraftTree, nodes: torch.Tensor) -> torch.Tensor:
        """tree: the tree drafted so far; nodes: (r,) int64 node indices whose parents were passed to an earlier
        call (or are children of the root). Returns (r, vocab) float64."""
        rows = sorted(set(k for k in self.predicted if k >= 0) | {int(c) for c in nodes})
        at = {c: i for i, c in enumerate(rows)}
        n, r = self.past, len(rows)
        feats = torch.stack([self.predicted[int(tree.parents[c])] for c in rows]) if rows else None
        tokens = tree.tokens[rows]
        positions = self.past + tree.depths[rows]
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


def prefill(target: TargetLM, prompt: list[int], stream: UniformStream | None = None) -> DecodeState:
    """Run the target over the prompt (one forward pass) and append its next token: greedy when stream is None,
    else sampled at temperature 1 with `sample_index` and one number of the stream. Raises ValueError on an empty
    prompt."""
    if not prompt:
        raise ValueError("empty prompt")
    n = len(prompt)
    logits, features, cache = target(torch.tensor(prompt, dtype=torch.int64), torch.arange(n), causal_mask(n))
    if stream is None:
        nxt = int(torch.argmax(logits[-1]))
    else:
        nxt = sample_index(torch.softmax(logits[-1], dim=0), stream.next())
    return DecodeState(list(prompt) + [nxt], cache, features)


def eagle2_step(target: TargetLM, draft: FeatureDraft, state: DecodeState, cfg: EagleConfig,
                stream: UniformStream | None = None) -> tuple[DecodeState, StepRecord]:
    """One EAGLE-2 step: draft a dynamic tree below the last token of state.ids (cfg.depth, cfg.top_k), keep
    cfg.total_tokens nodes, verify with one target forward pass (greedy, or speculative sampling with `stream`
    when cfg.greedy is False), commit.

    Returns the new DecodeState (state is not modified) and the StepRecord. Raises ValueError if cfg.greedy is
    False and stream is None."""
    if not cfg.greedy and stream is None:
        raise ValueError("speculative sampling needs a UniformStream")
    past = len(state.ids) - 1
    proposer = DraftProposer(draft, state)
    if cfg.static_shape is None:
        tree = expand_tree(proposer.root_probs, proposer, cfg.depth, cfg.top_k)
        keep = rerank(tree, cfg.total_tokens)
    else:
        tree = static_tree(proposer.root_probs, proposer, cfg.static_shape)
        keep = torch.arange(len(tree))
    tokens, parents, depths = flatten_tree(state.ids[-1], tree, keep)
    logits, features, cache = target(tokens, tree_position_ids(depths, past), tree_attention_mask(parents, past),
                                     state.cache)
    if cfg.greedy:
        accepted, bonus = verify_greedy(tokens, parents, logits)
    else:
        node_of = [-1] + [int(c) for c in keep]
        draft_probs = torch.stack([proposer.probs.get(c, torch.zeros_like(proposer.root_probs)) for c in node_of])
        accepted, bonus = verify_sampling(tokens, parents, torch.softmax(logits, dim=1), draft_probs, stream)
    new_tokens = [int(tokens[i]) for i in accepted[1:]] + [bonus]
    new_state = DecodeState(state.ids + new_tokens, compact_cache(cache, past, accepted),
                            torch.cat([state.features, features[accepted]]))
    record = StepRecord(tokens.tolist(), parents.tolist(), depths.tolist(), accepted, new_tokens)
    return new_state, record


def eagle2_generate(target: TargetLM, draft: FeatureDraft, prompt: list[int], cfg: EagleConfig
                    ) -> GenerationResult:
    """Generate cfg.max_new_tokens tokens after `prompt`: a prefill, then EAGLE-2 steps until enough tokens are
    committed (the surplus of the last step is dropped). A sampling generation draws from UniformStream(cfg.seed),
    the prefill's number first."""
    t0, d0 = target.calls, draft.calls
    stream = None if cfg.greedy else UniformStream(cfg.seed)
    state = prefill(target, prompt, stream)
    steps = []
    while len(state.ids) - len(prompt) < cfg.max_new_tokens:
        state, record = eagle2_step(target, draft, state, cfg, stream)
        steps.append(record)
    tokens = state.ids[len(prompt):len(prompt) + cfg.max_new_tokens]
    used = 0 if stream is None else stream.used
    return GenerationResult(tokens, steps, target.calls - t0, draft.calls - d0, used)
