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
    # TODO: implement (see the method description).
    raise NotImplementedError


def static_tree(root_probs: torch.Tensor, propose: Propose, shape: tuple[tuple[int, ...], ...]) -> DraftTree:
    """EAGLE's static tree: the node of path (r_1, ..., r_d) holds the r_d-th most probable child (rank 0 first,
    the lower token id first on a tie) of the node of path (r_1, ..., r_{d-1}), or of the root when d = 1.

    root_probs and propose as in `expand_tree`; propose is called once per depth that has deeper paths, with the
    nodes of that depth that have children in `shape`. Nodes are numbered in the order of `shape`, which must list
    all paths of one length before any longer path and every path after its parent path; raises ValueError
    otherwise, or if a rank is out of the vocabulary."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def rerank(tree: DraftTree, total_tokens: int) -> torch.Tensor:
    """Reranking phase: the node indices kept for verification, (min(total_tokens, len(tree)),) int64 in
    ascending order. Among equal values the lower node index ranks first."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def flatten_tree(root_token: int, tree: DraftTree, keep: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Lay out the root and the kept nodes as one sequence: the root at index 0, then the kept nodes in ascending
    node index.

    Returns tokens, parents and depths, each (len(keep) + 1,) int64: parents[i] is the index in this sequence of
    the parent of entry i (-1 for the root); depths: 0 for the root. Raises ValueError if a kept node's parent
    is neither the root nor kept."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def tree_attention_mask(parents: torch.Tensor, past: int) -> torch.Tensor:
    """The target's attention mask for a flattened tree that follows `past` cached entries.

    parents: (n,) int64 as `flatten_tree` returns them. Returns (n, past + n) bool, True where entry i may
    attend to cache entry j < past or to tree entry j - past."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def tree_position_ids(depths: torch.Tensor, past: int) -> torch.Tensor:
    """(n,) int64 position ids of the flattened tree's entries, which follow `past` cached entries."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def verify_greedy(tokens: torch.Tensor, parents: torch.Tensor, logits: torch.Tensor) -> tuple[list[int], int]:
    """Greedy verification of a flattened tree.

    tokens, parents: (n,) int64 as `flatten_tree` returns them; logits: (n, vocab), the target's logits at each
    entry. Returns the accepted path as indices into the sequence, root (0) first, and the target's bonus token
    after the path's last entry (argmax, the lowest token id on a tie)."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def verify_sampling(tokens: torch.Tensor, parents: torch.Tensor, target_probs: torch.Tensor,
                    draft_probs: torch.Tensor, stream: UniformStream) -> tuple[list[int], int]:
    """Speculative-sampling verification of a flattened tree.

    tokens, parents: (n,) int64 as `flatten_tree` returns them; target_probs: (n, vocab) float64, the target's
    distribution of the token after each entry; draft_probs: (n, vocab) float64, the draft's distribution of the
    token after each entry (rows of entries without children are not read). Random numbers are taken from
    `stream`: one for each child tested, children of an entry in ascending index, then one for the bonus token
    (drawn with `sample_index`). Returns the accepted path, root (0) first, and the bonus token."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def compact_cache(cache: KVCache, past: int, accepted: list[int]) -> KVCache:
    """The cache after verification: `cache` holds `past` entries of committed tokens, then one entry per entry of
    the flattened tree. Returns a new KVCache with the committed entries and the entries of `accepted` (indices
    into the flattened tree, in path order), in that order."""
    # TODO: implement (see the method description).
    raise NotImplementedError


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
        # TODO: implement (see the method description).
        raise NotImplementedError

    def __call__(self, tree: DraftTree, nodes: torch.Tensor) -> torch.Tensor:
        """tree: the tree drafted so far; nodes: (r,) int64 node indices whose parents were passed to an earlier
        call (or are children of the root). Returns (r, vocab) float64."""
        # TODO: implement (see the method description).
        raise NotImplementedError


def prefill(target: TargetLM, prompt: list[int], stream: UniformStream | None = None) -> DecodeState:
    """Run the target over the prompt (one forward pass) and append its next token: greedy when stream is None,
    else sampled at temperature 1 with `sample_index` and one number of the stream. Raises ValueError on an empty
    prompt."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def eagle2_step(target: TargetLM, draft: FeatureDraft, state: DecodeState, cfg: EagleConfig,
                stream: UniformStream | None = None) -> tuple[DecodeState, StepRecord]:
    """One EAGLE-2 step: draft a dynamic tree below the last token of state.ids (cfg.depth, cfg.top_k), keep
    cfg.total_tokens nodes, verify with one target forward pass (greedy, or speculative sampling with `stream`
    when cfg.greedy is False), commit.

    Returns the new DecodeState (state is not modified) and the StepRecord. Raises ValueError if cfg.greedy is
    False and stream is None."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def eagle2_generate(target: TargetLM, draft: FeatureDraft, prompt: list[int], cfg: EagleConfig
                    ) -> GenerationResult:
    """Generate cfg.max_new_tokens tokens after `prompt`: a prefill, then EAGLE-2 steps until enough tokens are
    committed (the surplus of the last step is dropped). A sampling generation draws from UniformStream(cfg.seed),
    the prefill's number first."""
    # TODO: implement (see the method description).
    raise NotImplementedError
