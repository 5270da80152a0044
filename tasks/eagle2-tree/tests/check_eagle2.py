"""Trusted checks for eagle2-tree/1 (never enter the sandbox): the expansion, static trees, reranking,
flattening, masks and verification recomputed from Section 4 of paper.md with independent plain-Python code,
hand-derived values, and the properties the paper states (the kept nodes form a tree; greedy EAGLE-2 output equals
greedy decoding of the target; the compacted cache equals the cache of the committed tokens; one target pass per
step). Inputs are read from the fixtures and from `ref`, never from `out`."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lmrbench.checks import check, close, equal, expect

with open(Path(__file__).parent / "fixtures" / "cases.json", encoding="utf-8") as _f:
    CASES = json.load(_f)

MODEL = dict(rtol=1e-9, atol=1e-12)


def seq(d: dict, key: str) -> list:
    marker = d[key]
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key} is not a list")
    return [d[f"{key}.{i}"] for i in range(marker[1])]


def ranked(probs) -> list[int]:
    # descending probability, the lower token id first on a tie
    return sorted(range(len(probs)), key=lambda t: (-probs[t], t))


def expand(root, table, depth, k):
    tokens, parents, depths, values, calls = [], [], [], [], []
    for t in ranked(root)[:k]:
        tokens.append(t), parents.append(-1), depths.append(1), values.append(root[t])
    layer = list(range(k))
    for d in range(2, depth + 1):
        chosen = sorted(sorted(layer, key=lambda i: (-values[i], i))[:k])
        calls.append(chosen)
        new = []
        for par in chosen:
            row = table[depths[par] - 1][tokens[par]]
            for t in ranked(row)[:k]:
                new.append(len(tokens))
                tokens.append(t), parents.append(par), depths.append(d), values.append(values[par] * row[t])
        layer = new
    return tokens, parents, depths, values, calls


def static(root, table, shape):
    index = {tuple(p): i for i, p in enumerate(shape)}
    tokens, parents, values = [], [], []
    for p in shape:
        par = index[tuple(p[:-1])] if len(p) > 1 else -1
        row = root if par == -1 else table[len(p) - 2][tokens[par]]
        t = ranked(row)[p[-1]]
        tokens.append(t), parents.append(par), values.append((1.0 if par == -1 else values[par]) * row[t])
    calls = []
    for d in range(2, max(len(p) for p in shape) + 1):
        nodes = sorted({parents[i] for i, p in enumerate(shape) if len(p) == d})
        calls.append(nodes)
    return tokens, parents, [len(p) for p in shape], values, calls


def check_tree(out, prefix, tokens, parents, depths, values, calls, calls_key):
    equal(list(out[f"{prefix}.tokens"]), tokens, what="node tokens")
    equal(list(out[f"{prefix}.parents"]), parents, what="node parents")
    equal(list(out[f"{prefix}.depths"]), depths, what="node depths")
    close(out[f"{prefix}.values"], values, rtol=1e-12, atol=1e-15, what="values = products of confidences")
    equal(seq(out, f"{prefix}.expanded"), [c for cs in calls for c in cs], what="expanded nodes")
    got = seq(out, calls_key)
    equal(len(got), len(calls), what="one propose call per layer after the first")
    for i, nodes in enumerate(calls):
        equal(seq(out, f"{calls_key}.{i}.nodes"), nodes, what=f"nodes of propose call {i}")


@check("expand_hand")
def expand_hand(out, ref):
    # root .1 .5 .3 .1, k = 2: nodes 0 (tok 1, .5), 1 (tok 2, .3); expanding both: node 0 (row [.2 .2 .5 .1]) ->
    # tok 2 (.25), tok 0 (.1, tie with tok 1 -> lower id); node 1 (uniform .25) -> tok 0, tok 1 (.075 each);
    # layer 2 values .25 .1 .075 .075 -> expand nodes 2, 3: node 2 (row [0 .6 .4 0]) -> tok 1 (.15), tok 2 (.1);
    # node 3 (row [.4 .3 .2 .1]) -> tok 0 (.04), tok 1 (.03)
    equal(list(out["tree.tokens"]), [1, 2, 2, 0, 0, 1, 1, 2, 0, 1], what="tokens")
    equal(list(out["tree.parents"]), [-1, -1, 0, 0, 1, 1, 2, 2, 3, 3], what="parents")
    close(out["tree.values"], [.5, .3, .25, .1, .075, .075, .15, .1, .04, .03], rtol=1e-12, what="values")
    equal(seq(out, "tree.expanded"), [0, 1, 2, 3], what="expanded")
    # top 4 by value: .5 .3 .25 .15; the 5th is node 3 (.1, ties node 7 exactly: lower index first)
    equal(list(out["keep4"]), [0, 1, 2, 6], what="rerank to 4")
    equal(list(out["keep5"]), [0, 1, 2, 3, 6], what="rerank to 5 (tie)")
    equal(list(out["keep20"]), list(range(10)), what="rerank keeps everything when m > n")


@check("expand_table[*]")
def expand_table(out, ref):
    c = CASES["expand"][ref["case"]]
    tokens, parents, depths, values, calls = expand(c["root"], c["table"], c["depth"], c["top_k"])
    check_tree(out, "tree", tokens, parents, depths, values, calls, "calls")
    n = len(tokens)
    for m in c["keeps"]:
        keep = sorted(sorted(range(n), key=lambda i: (-values[i], i))[:m])
        equal(list(out[f"m{m}.keep"]), keep, what=f"rerank to {m}")
        for i in keep:
            expect(parents[i] == -1 or parents[i] in keep, "kept nodes form a tree")
        flat = {c_: j + 1 for j, c_ in enumerate(keep)}
        f_parents = [-1] + [0 if parents[i] == -1 else flat[parents[i]] for i in keep]
        f_depths = [0] + [depths[i] for i in keep]
        equal(list(out[f"m{m}.tokens"])[1:], [tokens[i] for i in keep], what="flattened tokens")
        equal(int(out[f"m{m}.tokens"][0]), c["root"].index(max(c["root"])), what="root token first")
        equal(list(out[f"m{m}.parents"]), f_parents, what="flattened parents")
        equal(list(out[f"m{m}.depths"]), f_depths, what="flattened depths")
        past = c["past"]
        mask = np.zeros((len(keep) + 1, past + len(keep) + 1), dtype=bool)
        mask[:, :past] = True
        for i in range(len(keep) + 1):
            a = i
            while a != -1:
                mask[i, past + a] = True
                a = f_parents[a]
        equal(out[f"m{m}.mask"].tolist(), mask.tolist(), what="tree attention mask: prefix and ancestors")
        equal(list(out[f"m{m}.positions"]), [past + d for d in f_depths], what="position ids by depth")


@check("static[*]")
def static_trees(out, ref):
    shape = CASES["shapes"][ref["case"]]
    for j in (1, 5, 9, 10):
        c = CASES["expand"][j]
        tokens, parents, depths, values, calls = static(c["root"], c["table"], shape)
        check_tree(out, f"tree{j}", tokens, parents, depths, values, calls, f"calls{j}")


@check("mask_hand")
def mask_hand(out, ref):
    # parents -1 0 0 1 2 3 1: ancestors of 5 are 3, 1, 0; of 6 are 1, 0
    m0 = np.array([[1, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0], [1, 0, 1, 0, 0, 0, 0], [1, 1, 0, 1, 0, 0, 0],
                   [1, 0, 1, 0, 1, 0, 0], [1, 1, 0, 1, 0, 1, 0], [1, 1, 0, 0, 0, 0, 1]], dtype=bool)
    equal(out["mask0"].tolist(), m0.tolist(), what="mask without a prefix")
    equal(out["mask3"].tolist(), np.concatenate([np.ones((7, 3), dtype=bool), m0], axis=1).tolist(), what="mask")
    equal(list(out["pos0"]), [0, 1, 1, 2, 2, 3, 2], what="positions")
    equal(list(out["pos5"]), [5, 6, 6, 7, 7, 8, 7], what="positions after 5 cached entries")
    equal(out["root_only"].tolist(), [[True, True, True]], what="root only")


def greedy_path(tokens, parents, logits):
    path = [0]
    while True:
        best = int(np.argmax(logits[path[-1]]))
        kids = [j for j in range(len(tokens)) if parents[j] == path[-1] and tokens[j] == best]
        if not kids:
            return path, best
        path.append(kids[0])


@check("verify_tree[*]")
def verify_tree(out, ref):
    c = CASES["verify"][ref["case"]]
    path, bonus = greedy_path(c["tokens"], c["parents"], np.array(c["logits"]))
    equal(seq(out, "path"), path, what="longest accepted path")
    equal(out["bonus"], bonus, what="bonus token = target argmax after the path")


@check("verify_hand")
def verify_hand(out, ref):
    # argmax at root = 0 -> child 2 (tok 0); argmax at 2 = 1 -> child 4 (tok 1); argmax at 4 = 3: no child -> bonus 3
    equal(seq(out, "via_second_child.0"), [0, 2, 4], what="path")
    equal(out["via_second_child.1"], 3, what="bonus")
    # all-zero logits: argmax 0 everywhere -> child 2 (tok 0); at 2: argmax 0, child 4 has tok 1 -> stop, bonus 0
    equal(seq(out, "tie_lowest.0"), [0, 2], what="ties: lowest token id")
    equal(out["tie_lowest.1"], 0, what="bonus on a tie")
    equal(seq(out, "reject_root.0"), [0], what="nothing accepted")
    equal(out["reject_root.1"], 3, what="bonus when nothing is accepted")


def inverse_cdf(w, u):
    total, acc = float(sum(w)), 0.0
    for i, x in enumerate(w):
        acc += x
        if acc > u * total and x > 0:
            return i
    return max(i for i, x in enumerate(w) if x > 0)


@check("verify_spec[*]")
def verify_spec(out, ref):
    c = CASES["sampling"][ref["case"]]
    rng = np.random.default_rng(c["seed"])
    used = 0
    path = [0]
    while True:
        cur = path[-1]
        p, q = np.array(c["p"][cur]), np.array(c["q"][cur])
        moved = False
        for j in range(len(c["tokens"])):
            if c["parents"][j] != cur:
                continue
            x = c["tokens"][j]
            r = rng.random()
            used += 1
            if r < p[x] / q[x]:  # accept with probability min(1, p/q)
                path.append(j)
                moved = True
                break
            p = np.maximum(p - q, 0.0)
            p = p / p.sum()
            q[x] = 0.0
            q = q / q.sum()
        if not moved:
            bonus = inverse_cdf(p, rng.random())
            used += 1
            break
    equal(seq(out, "path"), path, what="accepted path")
    equal(out["bonus"], bonus, what="bonus token from the residual")
    equal(out["used"], used, what="random numbers drawn")


@check("verify_spec_hand")
def verify_spec_hand(out, ref):
    # root: p = [.3 .1 .4 .2], q = [.1 .6 .2 .1]. Child tok 1: ratio .1/.6 = .167; r = .5 rejects. Eq. (10):
    # p = norm([.2 0 .2 .1]) = [.4 0 .4 .2]; Eq. (11): q = norm([.1 0 .2 .1]) = [.25 0 .5 .25]. Child tok 2: ratio
    # .4/.5 = .8; r = .85 rejects; p = norm([.15 0 0 0]) = [1 0 0 0] -> bonus token 0 (third number)
    equal(seq(out, "rejects.result.0"), [0], what="both children rejected")
    equal(out["rejects.result.1"], 0, what="bonus from the residual")
    equal(out["rejects.used"], 3, what="numbers drawn")
    # r = .1 < .167 accepts tok 1; entry 1: ratio .25/.7 = .357 > .2 accepts tok 3; leaf: target [0 0 1 0] -> 2
    equal(seq(out, "deep.result.0"), [0, 1, 3], what="deep path")
    equal(out["deep.result.1"], 2, what="bonus at a leaf from the target")
    equal(out["deep.used"], 3, what="numbers drawn")
    # r = .5 rejects tok 1; r = .75 < .8 accepts tok 2 (entry 2, a leaf): bonus from uniform p with u = .3 -> 1
    equal(seq(out, "second.result.0"), [0, 2], what="second child accepted after the residual update")
    equal(out["second.result.1"], 1, what="bonus at the accepted leaf")
    equal(out["second.used"], 3, what="numbers drawn")


@check("compact[*]")
def compact(out, ref):
    c = CASES["cache"][ref["case"]]
    index = list(range(c["past"])) + [c["past"] + a for a in c["accepted"]]
    equal(out["length"], len(index), what="entries kept")
    for layer in range(c["layers"]):
        for kv in range(2):
            equal(out[f"layers.{layer}.{kv}"].tolist(), ref[f"input.{layer}.{kv}"][index].tolist(),
                  what="prefix entries, then the accepted path's, in path order")


@check("proposer[*]")
def proposer(out, ref):
    equal(seq(out, "calls"), [1, 2, 3], what="one draft pass on construction and per call")
    close(out["root_probs"].sum(), 1.0, rtol=1e-12, what="a distribution")
    # node 2's children do not depend on the other rows in the pass; node 6's neither
    close(out["q1"], out["p1"][1:2], **MODEL, what="expanding node 2 alone")
    close(out["q2"], out["p2"][1:2], **MODEL, what="expanding node 6 through other rows")


@check("prefill_case")
def prefill_case(out, ref):
    equal(seq(out, "ids")[:4], [3, 1, 4, 1], what="prompt kept")
    equal(seq(out, "ids")[4], seq(out, "greedy")[0], what="greedy next token")


@check("step[*]")
def step(out, ref):
    ids, old = seq(out, "ids"), seq(out, "old_ids")
    new_tokens = seq(out, "record.new_tokens")
    accepted = seq(out, "record.accepted")
    equal(ids, old + new_tokens, what="committed tokens appended")
    equal(accepted[0], 0, what="path starts at the root")
    equal(len(new_tokens), len(accepted), what="accepted tokens below the root plus the bonus")
    tree_tokens = seq(out, "record.tree_tokens")
    equal(tree_tokens[0], old[-1], what="the root is the last committed token")
    equal(new_tokens[:-1], [tree_tokens[a] for a in accepted[1:]], what="tokens of the path")
    equal(out["calls.target"], 1, what="one target forward pass per step")
    close(out["features"], out["direct_features"], **MODEL, what="features of the committed tokens")
    for layer in range(2):
        for kv in range(2):
            close(out[f"cache.{layer}.{kv}"], out[f"direct_cache.{layer}.{kv}"], **MODEL,
                  what="compacted cache = cache of the committed tokens")
    if ref["calls.uniforms"] == 0:
        n = len(old) - 1
        equal(ids[n:], seq(out, "greedy")[n - len(ids) + len(seq(out, "greedy")):], what="greedy output")


@check("generate[*]")
def generate(out, ref):
    c = CASES["models"]["generate"][ref["case"]]
    tokens = seq(out, "tokens")
    equal(len(tokens), c["max_new"], what="exactly max_new_tokens")
    steps = seq(out, "steps")
    equal(out["target_calls"], 1 + len(steps), what="a prefill and one pass per step")
    made = sum(len(seq(out, f"steps.{i}.new_tokens")) for i in range(len(steps)))
    expect(made + 1 >= c["max_new"] and (not steps or made + 1 - len(seq(out, f"steps.{len(steps) - 1}.new_tokens"))
                                         < c["max_new"]), "stops after the step that reaches the length")
    if "sample" not in c:
        equal(tokens, seq(out, "greedy"), what="greedy EAGLE-2 output = greedy decoding of the target")
        equal(out["uniforms"], 0, what="no random numbers when greedy")
