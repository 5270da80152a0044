"""Probe for eagle2-tree/1: tree expansion on probability tables, reranking, flattening, tree masks and positions,
greedy verification, cache compaction, the draft proposer, steps and generations of the tiny models. Runs in the
sandbox; emits outputs only, never compares.

Integers (tokens, indices, masks, counts) are compared exactly; node values at rtol 1e-12 (products of the
fixtures' probabilities); model outputs (float64) at rtol 1e-9 (NOTES.md)."""
from __future__ import annotations

import json
from pathlib import Path

import torch

from eagle2.config import EagleConfig
from eagle2.draft import make_models
from eagle2.model import KVCache, causal_mask, greedy_generate
from eagle2.state import DecodeState, DraftTree
from eagle2.tree import DraftProposer, compact_cache, eagle2_generate, eagle2_step, expand_tree, flatten_tree
from eagle2.sampling import UniformStream
from eagle2.tree import prefill, rerank, static_tree, tree_attention_mask, tree_position_ids, verify_greedy
from eagle2.tree import verify_sampling
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "cases.json").read_text())
VALUES = dict(rtol=1e-12, atol=1e-15)
MODEL = dict(rtol=1e-9, atol=1e-12)


def t64(x) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float64)


def table_propose(table: torch.Tensor, calls: list):
    def propose(tree: DraftTree, nodes: torch.Tensor) -> torch.Tensor:
        calls.append({"nodes": nodes.tolist(), "tree_size": len(tree), "tree_tokens": tree.tokens.tolist()})
        return table[tree.depths[nodes] - 1, tree.tokens[nodes]]
    return propose


def ints(xs) -> list[int]:
    return [int(x) for x in xs]


def record(rec) -> dict:
    return {k: ints(v) for k, v in vars(rec).items()}


def tree_out(tree: DraftTree) -> dict:
    return {"tokens": tree.tokens, "parents": tree.parents, "depths": tree.depths, "values": tree.values,
            "expanded": ints(tree.expanded)}


# ---------------------------------------------------------------- expansion and reranking (tables, cheap)


@case(outputs={"tree.values": VALUES})
def expand_hand():
    # vocab 4, top_k 2, depth 3; children tables by depth and token
    root = t64([0.1, 0.5, 0.3, 0.1])
    table = t64([[[0.7, 0.1, 0.1, 0.1], [0.2, 0.2, 0.5, 0.1], [0.25, 0.25, 0.25, 0.25], [1, 0, 0, 0]],
                 [[0.4, 0.3, 0.2, 0.1], [0.1, 0.1, 0.1, 0.7], [0.0, 0.6, 0.4, 0.0], [0.5, 0.5, 0.0, 0.0]]])
    calls = []
    tree = expand_tree(root, table_propose(table, calls), 3, 2)
    return {"tree": tree_out(tree), "calls": calls, "keep4": rerank(tree, 4), "keep5": rerank(tree, 5),
            "keep20": rerank(tree, 20)}


@case(params=range(len(CASES["expand"])), outputs={"tree.values": VALUES})
def expand_table(i):
    c = CASES["expand"][i]
    calls = []
    tree = expand_tree(t64(c["root"]), table_propose(t64(c["table"]), calls), c["depth"], c["top_k"])
    out = {"case": i, "tree": tree_out(tree), "calls": calls}
    for m in c["keeps"]:
        keep = rerank(tree, m)
        tokens, parents, depths = flatten_tree(c["root"].index(max(c["root"])), tree, keep)
        out[f"m{m}"] = {"keep": keep, "tokens": tokens, "parents": parents, "depths": depths,
                        "mask": tree_attention_mask(parents, c["past"]),
                        "positions": tree_position_ids(depths, c["past"])}
    return out


@case(params=range(len(CASES["shapes"])), outputs={"tree*.values": VALUES})
def static(i):
    shape = tuple(tuple(p) for p in CASES["shapes"][i])
    out = {"case": i}
    for j in (1, 5, 9, 10):
        c = CASES["expand"][j]
        calls = []
        out[f"tree{j}"] = tree_out(static_tree(t64(c["root"]), table_propose(t64(c["table"]), calls), shape))
        out[f"calls{j}"] = calls
    return out


@case
def static_bad_shape():
    c = CASES["expand"][1]
    return {"tree": static_tree(t64(c["root"]), table_propose(t64(c["table"]), []), ((0,), (0, 0), (1,)))}


@case
def static_orphan():
    c = CASES["expand"][1]
    return {"tree": static_tree(t64(c["root"]), table_propose(t64(c["table"]), []), ((0,), (1, 0)))}


@case
def static_deep_orphan():
    c = CASES["expand"][1]
    return {"tree": static_tree(t64(c["root"]), table_propose(t64(c["table"]), []), ((0,), (0, 0), (0, 1, 0)))}


@case
def static_rank_out_of_vocab():
    c = CASES["expand"][1]  # vocabulary of 6
    return {"tree": static_tree(t64(c["root"]), table_propose(t64(c["table"]), []), ((0,), (6,)))}


@case
def expand_bad_top_k():
    return {"tree": expand_tree(t64([0.5, 0.5]), lambda tree, nodes: None, 2, 3)}


@case
def flatten_not_closed():
    tree = DraftTree(torch.tensor([3, 1, 2]), torch.tensor([-1, 0, 1]), torch.tensor([1, 2, 3]),
                     t64([0.5, 0.4, 0.3]), [0, 1])
    return {"flat": flatten_tree(0, tree, torch.tensor([0, 2]))}


@case
def mask_hand():
    parents = torch.tensor([-1, 0, 0, 1, 2, 3, 1])
    depths = torch.tensor([0, 1, 1, 2, 2, 3, 2])
    return {"mask0": tree_attention_mask(parents, 0), "mask3": tree_attention_mask(parents, 3),
            "pos0": tree_position_ids(depths, 0), "pos5": tree_position_ids(depths, 5),
            "root_only": tree_attention_mask(torch.tensor([-1]), 2)}


# ---------------------------------------------------------------- verification and the cache


@case(params=range(len(CASES["verify"])))
def verify_tree(i):
    c = CASES["verify"][i]
    path, bonus = verify_greedy(torch.tensor(c["tokens"]), torch.tensor(c["parents"]), t64(c["logits"]))
    return {"case": i, "path": ints(path), "bonus": int(bonus)}


@case(params=range(len(CASES["sampling"])))
def verify_spec(i):
    c = CASES["sampling"][i]
    stream = UniformStream(c["seed"])
    path, bonus = verify_sampling(torch.tensor(c["tokens"]), torch.tensor(c["parents"]), t64(c["p"]), t64(c["q"]),
                                  stream)
    return {"case": i, "path": ints(path), "bonus": int(bonus), "used": stream.used}


class FixedStream:
    """A stand-in for UniformStream that hands out given numbers."""

    def __init__(self, numbers) -> None:
        self.numbers, self.used = list(numbers), 0

    def next(self) -> float:
        self.used += 1
        return self.numbers[self.used - 1]


@case
def verify_spec_hand():
    # entries: 0 root; 1 (tok 1) and 2 (tok 2) below the root; 3 (tok 3) below 1
    tokens, parents = torch.tensor([0, 1, 2, 3]), torch.tensor([-1, 0, 0, 1])
    p = t64([[0.3, 0.1, 0.4, 0.2], [0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25], [0.0, 0.0, 1.0, 0.0]])
    q = t64([[0.1, 0.6, 0.2, 0.1], [0.1, 0.1, 0.1, 0.7], [0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25]])
    out = {}
    for name, numbers in [("rejects", [0.5, 0.85, 0.7]), ("deep", [0.1, 0.2, 0.3]), ("second", [0.5, 0.75, 0.3])]:
        stream = FixedStream(numbers)
        path, bonus = verify_sampling(tokens, parents, p, q, stream)
        out[name] = {"result": (ints(path), int(bonus)), "used": stream.used}
    return out


@case
def verify_hand():
    # root 0 -> children 1 (tok 2), 2 (tok 0); 1 -> 3 (tok 1); 2 -> 4 (tok 1)
    tokens, parents = torch.tensor([5, 2, 0, 1, 1]), torch.tensor([-1, 0, 0, 1, 2])
    logits = torch.zeros(5, 4, dtype=torch.float64)
    logits[0, 0] = 2.0
    logits[2, 1] = 1.0
    logits[4, 3] = 3.0
    logits[1, 1] = 9.0
    out = {}
    for name, lg in [("via_second_child", logits), ("tie_lowest", torch.zeros(5, 4, dtype=torch.float64)),
                     ("reject_root", t64([[0, 0, 0, 1.0]] * 5))]:
        path, bonus = verify_greedy(tokens, parents, lg)
        out[name] = (ints(path), int(bonus))
    return out


@case(params=range(len(CASES["cache"])))
def compact(i):
    c = CASES["cache"][i]
    g = torch.Generator().manual_seed(i)
    n = c["past"] + c["tree"]
    cache = KVCache([(torch.randn(n, c["hidden"], generator=g, dtype=torch.float64),
                      torch.randn(n, c["hidden"], generator=g, dtype=torch.float64)) for _ in range(c["layers"])])
    out = compact_cache(cache, c["past"], c["accepted"])
    return {"case": i, "input": [list(kv) for kv in cache.layers], "layers": [list(kv) for kv in out.layers],
            "length": out.length, "input_length": cache.length}


# ---------------------------------------------------------------- the models


def state_for(target, prompt, root):
    n = len(prompt)
    _, features, cache = target(torch.tensor(prompt), torch.arange(n), causal_mask(n))
    return DecodeState(list(prompt) + [root], cache, features)


@case(params=range(len(CASES["models"]["proposer"])), **MODEL)
def proposer(i):
    c = CASES["models"]["proposer"][i]
    target, draft = make_models(seed=c["seed"])
    state = state_for(target, c["prompt"], c["root"])
    d0 = draft.calls
    prop = DraftProposer(draft, state)
    calls = [draft.calls - d0]
    # layer 1: tokens 4, 7, 1 below the root; layer 2: children of nodes 0 and 2
    tree1 = DraftTree(torch.tensor([4, 7, 1]), torch.tensor([-1, -1, -1]), torch.tensor([1, 1, 1]),
                      t64([0.3, 0.2, 0.1]), [])
    p1 = prop(tree1, torch.tensor([0, 2]))
    calls.append(draft.calls - d0)
    tree2 = DraftTree(torch.tensor([4, 7, 1, 3, 8, 0, 3]), torch.tensor([-1, -1, -1, 0, 0, 2, 2]),
                      torch.tensor([1, 1, 1, 2, 2, 2, 2]), t64([0.3, 0.2, 0.1, 0.1, 0.1, 0.05, 0.04]), [0, 2])
    p2 = prop(tree2, torch.tensor([3, 6]))
    calls.append(draft.calls - d0)
    # another proposer that expands node 6 through a different set of rows
    other = DraftProposer(draft, state)
    q1 = other(tree1, torch.tensor([2]))
    q2 = other(tree2, torch.tensor([6]))
    return {"root_probs": prop.root_probs, "p1": p1, "p2": p2, "q1": q1, "q2": q2, "calls": calls,
            "ids_after": state.ids, "cache_len": state.cache.length}


@case(**MODEL)
def proposer_needs_two_ids():
    target, draft = make_models(seed=0)
    _, features, cache = target(torch.tensor([3]), torch.arange(1), causal_mask(1))
    return {"p": DraftProposer(draft, DecodeState([3], KVCache.empty(2, 16), features[:0])).root_probs}


@case(**MODEL)
def prefill_case():
    target, _ = make_models(seed=0)
    state = prefill(target, [3, 1, 4, 1])
    _, features, cache = target(torch.tensor([3, 1, 4, 1]), torch.arange(4), causal_mask(4))
    return {"ids": ints(state.ids), "features": state.features, "cache": [list(kv) for kv in state.cache.layers],
            "calls": target.calls, "greedy": greedy_generate(target, [3, 1, 4, 1], 1)}


@case
def prefill_empty():
    target, _ = make_models(seed=0)
    return {"state": prefill(target, []).ids}


@case
def step_sampling_needs_stream():
    target, draft = make_models(seed=0)
    state = state_for(target, [1, 2], 3)
    return {"state": eagle2_step(target, draft, state, EagleConfig(greedy=False))[0].ids}


@case(**MODEL)
def prefill_sampled():
    target, _ = make_models(seed=1)
    stream = UniformStream(4)
    return {"ids": ints(prefill(target, [5, 6, 7], stream).ids), "used": stream.used}


@case(params=range(len(CASES["models"]["step"])), **MODEL)
def step(i):
    c = CASES["models"]["step"][i]
    target, draft = make_models(seed=c["seed"])
    n = len(c["prompt"])
    logits, features, cache = target(torch.tensor(c["prompt"]), torch.arange(n), causal_mask(n))
    state = DecodeState(list(c["prompt"]) + [int(torch.argmax(logits[-1]))], cache, features)
    shape = tuple(tuple(p) for p in CASES["shapes"][c["static"]]) if "static" in c else None
    cfg = EagleConfig(depth=c.get("depth", 1), top_k=c.get("top_k", 1), total_tokens=c.get("total", 1),
                      greedy="stream" not in c, static_shape=shape)
    stream = UniformStream(c["stream"]) if "stream" in c else None
    t0, d0 = target.calls, draft.calls
    new, rec = eagle2_step(target, draft, state, cfg, stream)
    calls = {"target": target.calls - t0, "draft": draft.calls - d0, "uniforms": stream.used if stream else 0}
    # the committed tokens run directly through the target: the cache and features a plain decoder would hold
    m = len(new.ids) - 1
    _, f_direct, c_direct = target(torch.tensor(new.ids[:-1]), torch.arange(m), causal_mask(m))
    return {"record": record(rec), "ids": ints(new.ids), "old_ids": state.ids, "old_cache_len": state.cache.length,
            "cache": [list(kv) for kv in new.cache.layers], "features": new.features,
            "direct_cache": [list(kv) for kv in c_direct.layers], "direct_features": f_direct, "calls": calls,
            "greedy": greedy_generate(target, c["prompt"], len(new.ids) - n)}


@case(params=range(len(CASES["models"]["generate"])))
def generate(i):
    c = CASES["models"]["generate"][i]
    target, draft = make_models(seed=c["seed"])
    target(torch.tensor([0]), torch.arange(1), causal_mask(1))
    draft.calls += 3
    shape = tuple(tuple(p) for p in CASES["shapes"][c["static"]]) if "static" in c else None
    cfg = EagleConfig(depth=c.get("depth", 1), top_k=c.get("top_k", 1), total_tokens=c.get("total", 1),
                      max_new_tokens=c["max_new"], greedy="sample" not in c, seed=c.get("sample", 0),
                      static_shape=shape)
    res = eagle2_generate(target, draft, c["prompt"], cfg)
    return {"case": i, "tokens": ints(res.tokens), "steps": [record(s) for s in res.steps],
            "target_calls": res.target_calls, "draft_calls": res.draft_calls, "uniforms": res.uniforms_used,
            "greedy": greedy_generate(target, c["prompt"], c["max_new"])}
