"""Probe every layer for concept datasets of increasing difficulty and report their concept depth."""
from __future__ import annotations

import argparse

from conceptdepth.analysis import concept_depth, format_table, relative_depth
from conceptdepth.data import concept_dataset
from conceptdepth.probing import probe_layers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--threshold", type=float, default=0.9)
    args = ap.parse_args()

    datasets = [
        concept_dataset("cities (fact)", 160, args.layers, 16, depth=1, seed=args.seed),
        concept_dataset("commonsense", 160, args.layers, 16, depth=3, seed=args.seed + 1),
        concept_dataset("strategy (reasoning)", 160, args.layers, 16, depth=6, seed=args.seed + 2),
    ]
    for ds in datasets:
        results = probe_layers(ds.hidden_states, ds.labels, test_fraction=0.25, seed=args.seed)
        depth = concept_depth([r.accuracy for r in results], args.threshold)
        print(f"== {ds.name}: planted depth {ds.depth}, found {depth} "
              f"(relative {relative_depth(depth, args.layers)})")
        print(format_table(results))


if __name__ == "__main__":
    main()
