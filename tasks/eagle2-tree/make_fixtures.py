"""Regenerate tests/fixtures for eagle2-tree/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR``. Writes OUT_DIR/cases.json:
- "expand": draft probability tables (root distribution, and one (vocab, vocab) table per depth: the row of a
  node's token gives its children's distribution) with depth, top_k and the numbers of kept nodes to try; some
  tables use coarse probabilities with exact ties and one-hot rows;
- "verify": flattened trees (parents, distinct sibling tokens) with target logits whose argmax follows a chosen
  path for a chosen number of steps;
- "cache": cache shapes and accepted paths for compaction;
- "models": prompts and configurations for the tiny models (proposer, steps, generations).
Every float is rounded to 6 decimals (ties: exact dyadic values). Deterministic: no model is run here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def dirichlet(rng, shape, conc):
    d = rng.dirichlet(np.full(shape[-1], conc), size=shape[:-1])
    d = np.round(d, 6)
    d[..., -1] = np.round(1.0 - d[..., :-1].sum(axis=-1), 6)
    return np.clip(d, 0.0, None)


def coarse(rng, shape):
    # multiples of 1/8 summing to 1 (exact ties), some rows one-hot
    out = np.zeros(shape)
    for idx in np.ndindex(*shape[:-1]):
        if rng.random() < 0.25:
            out[idx + (int(rng.integers(shape[-1])),)] = 1.0
            continue
        for _ in range(8):
            out[idx + (int(rng.integers(shape[-1])),)] += 0.125
    return out


def random_tree(rng, n, vocab, path_len):
    parents = [-1]
    for i in range(1, n):
        parents.append(int(rng.integers(0, i)))
    tokens = [int(rng.integers(vocab))]
    for i in range(1, n):
        used = {tokens[j] for j in range(1, i) if parents[j] == parents[i]}
        tokens.append(int(rng.choice([t for t in range(vocab) if t not in used])))
    logits = np.round(rng.normal(size=(n, vocab)), 6)
    cur, steps = 0, 0
    while steps < path_len:
        kids = [j for j in range(n) if parents[j] == cur]
        if not kids:
            break
        nxt = int(rng.choice(kids))
        logits[cur, tokens[nxt]] = logits[cur].max() + 0.5
        cur, steps = nxt, steps + 1
    return {"tokens": tokens, "parents": parents, "logits": logits.tolist()}


def main(out: Path) -> None:
    rng = np.random.default_rng(20240624)
    expand = []
    for vocab, depth, top_k, kind in [(5, 3, 2, "dir"), (6, 4, 3, "dir"), (8, 5, 2, "dir"), (4, 3, 4, "dir"),
                                      (7, 1, 3, "dir"), (10, 6, 3, "peaked"), (6, 4, 2, "coarse"),
                                      (8, 3, 3, "coarse"), (5, 5, 1, "dir"), (9, 4, 4, "peaked")]:
        if kind == "coarse":
            root, table = coarse(rng, (vocab,)), coarse(rng, (max(depth - 1, 1), vocab, vocab))
        else:
            conc = 0.3 if kind == "peaked" else 1.0
            root, table = dirichlet(rng, (vocab,), conc), dirichlet(rng, (max(depth - 1, 1), vocab, vocab), conc)
        n = top_k + (depth - 1) * top_k * top_k
        keeps = sorted({1, max(1, n // 3), max(1, n // 2), n, n + 2})
        expand.append({"vocab": vocab, "depth": depth, "top_k": top_k, "root": root.tolist(),
                       "table": table.tolist(), "keeps": keeps, "past": int(rng.integers(0, 5))})
    # wide coarse tables (ties among 17 or more candidates), from a separate generator
    wide = np.random.default_rng(17)
    root, table = coarse(wide, (20,)), coarse(wide, (3, 20, 20))
    expand.append({"vocab": 20, "depth": 4, "top_k": 5, "root": root.tolist(), "table": table.tolist(),
                   "keeps": [1, 17, 40, 80, 82], "past": 3})
    verify = [random_tree(rng, n, vocab, path_len)
              for n, vocab, path_len in [(1, 5, 0), (2, 4, 1), (6, 6, 2), (9, 8, 3), (12, 10, 9), (12, 10, 0),
                                         (16, 12, 4), (7, 3, 9), (20, 16, 5), (5, 5, 9)]]
    sampling = []
    for n, vocab, conc in [(1, 5, 1.0), (4, 6, 1.0), (8, 8, 0.5), (12, 10, 2.0), (10, 6, 0.3), (15, 12, 1.0),
                           (6, 4, 5.0), (9, 16, 0.5)]:
        tree = random_tree(rng, n, vocab, 0)
        for _ in range(2):
            sampling.append({"tokens": tree["tokens"], "parents": tree["parents"],
                             "p": np.clip(dirichlet(rng, (n, vocab), conc), 1e-6, None).tolist(),
                             "q": np.clip(dirichlet(rng, (n, vocab), conc), 1e-6, None).tolist(),
                             "seed": int(rng.integers(1000))})
    shapes = [[[0], [1], [0, 0], [0, 1], [1, 0], [0, 0, 0]],
              [[0], [1], [2], [0, 0], [1, 0], [2, 0], [0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 0, 0, 0]],
              [[2], [0], [2, 1], [0, 0], [2, 1, 0]],
              [[0]]]
    cache = [{"layers": 2, "hidden": 3, "past": 4, "tree": 6, "accepted": [0, 2, 5]},
             {"layers": 1, "hidden": 2, "past": 0, "tree": 3, "accepted": [0]},
             {"layers": 3, "hidden": 4, "past": 7, "tree": 9, "accepted": [0, 1, 4, 8]},
             {"layers": 2, "hidden": 2, "past": 1, "tree": 5, "accepted": [0, 3]}]
    models = {
        "proposer": [{"prompt": [3, 1, 4, 1, 5], "root": 9, "seed": 0},
                     {"prompt": [7], "root": 2, "seed": 1},
                     {"prompt": [0, 12, 12, 6, 8, 2, 11], "root": 15, "seed": 2}],
        "step": [{"prompt": [12, 15, 5, 0, 3], "depth": 4, "top_k": 3, "total": 8, "seed": 0},
                 {"prompt": [2], "depth": 1, "top_k": 2, "total": 1, "seed": 0},
                 {"prompt": [4, 4, 9], "depth": 6, "top_k": 4, "total": 20, "seed": 2},
                 {"prompt": [8, 15, 13, 8, 6, 1], "depth": 5, "top_k": 2, "total": 30, "seed": 2},
                 {"prompt": [11, 2, 11, 8, 7], "depth": 3, "top_k": 5, "total": 6, "seed": 1},
                 {"prompt": [12, 15, 5, 0, 3], "depth": 4, "top_k": 3, "total": 8, "seed": 0, "stream": 5},
                 {"prompt": [3, 3, 1], "depth": 5, "top_k": 4, "total": 15, "seed": 2, "stream": 11},
                 {"prompt": [12, 15, 5, 0, 3], "seed": 0, "static": 1},
                 {"prompt": [7, 1], "seed": 1, "static": 2, "stream": 3}],
        "generate": [{"prompt": [12, 15, 5, 0, 3], "depth": 4, "top_k": 3, "total": 8, "max_new": 20, "seed": 0},
                     {"prompt": [11, 2, 11, 8, 7], "depth": 6, "top_k": 4, "total": 16, "max_new": 24, "seed": 2},
                     {"prompt": [5], "depth": 2, "top_k": 2, "total": 3, "max_new": 9, "seed": 1},
                     {"prompt": [1, 2, 3], "depth": 1, "top_k": 1, "total": 1, "max_new": 5, "seed": 3},
                     {"prompt": [9, 9, 0, 14], "depth": 5, "top_k": 3, "total": 12, "max_new": 1, "seed": 0},
                     {"prompt": [6, 13, 2, 2], "depth": 3, "top_k": 3, "total": 7, "max_new": 17, "seed": 4},
                     {"prompt": [12, 15, 5, 0, 3], "depth": 4, "top_k": 3, "total": 8, "max_new": 20, "seed": 0,
                      "sample": 7},
                     {"prompt": [2, 9], "depth": 6, "top_k": 4, "total": 20, "max_new": 16, "seed": 2,
                      "sample": 1},
                     {"prompt": [11, 2, 11, 8, 7], "max_new": 18, "seed": 2, "static": 1},
                     {"prompt": [4, 4, 4], "max_new": 12, "seed": 3, "static": 0, "sample": 2}],
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "cases.json").write_text(json.dumps({"expand": expand, "verify": verify, "sampling": sampling,
                                                "shapes": shapes, "cache": cache,
                                                "models": models}, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
