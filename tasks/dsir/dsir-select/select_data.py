"""Select raw documents that look like the target domain with DSIR, and compare with random selection.

    python select_data.py --k 100 --target-domain science
"""
from __future__ import annotations

import argparse
from collections import Counter

from dsir.config import DSIRConfig
from dsir.corpus import make_corpus
from dsir.importance import dsir_select, featurize, kl_reduction
from dsir.rng import make_rng, uniform_subset


def run(k: int = 100, target_domain: str = "science", config: DSIRConfig | None = None, n_raw: int = 400,
        n_target: int = 60, corpus_seed: int = 0) -> dict:
    config = config or DSIRConfig()
    raw, target = make_corpus(corpus_seed, n_raw=n_raw, n_target=n_target, target_domain=target_domain)
    raw_texts, target_texts = [d.text for d in raw], [d.text for d in target]
    rng = make_rng(config.seed)
    selection = dsir_select(raw_texts, target_texts, k, config, rng)
    random_pick = uniform_subset(make_rng(config.seed + 1), len(raw_texts), k)

    raw_counts = featurize(raw_texts, config)
    target_counts = featurize(target_texts, config)
    result = {"indices": selection.indices, "log_weights": selection.log_weights}
    for name, idx in (("dsir", selection.indices), ("random", random_pick)):
        result[f"{name}_kl_reduction"] = kl_reduction(raw_counts[idx], raw_counts, [target_counts], config.smoothing)
        result[f"{name}_domains"] = Counter(raw[i].domain for i in idx)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--target-domain", default="science")
    parser.add_argument("--num-buckets", type=int, default=10_000)
    parser.add_argument("--top-k", action="store_true", help="deterministic top-k instead of resampling")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = DSIRConfig(num_buckets=args.num_buckets, resample=not args.top_k, seed=args.seed)
    out = run(args.k, args.target_domain, config)
    for name in ("dsir", "random"):
        print(f"{name:>6}: KL reduction {out[f'{name}_kl_reduction']:.4f}  domains {dict(out[f'{name}_domains'])}")


if __name__ == "__main__":
    main()
