"""Score a few synthetic "decoders" against synthetic human text with MAUVE (higher = closer to human text).

    python evaluate.py [--n 200] [--buckets K]
"""

from __future__ import annotations

import argparse

import numpy as np

from mauve.config import MauveConfig
from mauve.data import human_texts, model_texts
from mauve.divergence import compute_mauve
from mauve.features import featurize

DECODERS = {
    "human (held out)": dict(exponent=1.1, repeat=0.0),
    "sampling, mild repetition": dict(exponent=1.1, repeat=0.2),
    "low temperature": dict(exponent=1.6, repeat=0.0),
    "greedy-like": dict(exponent=2.5, repeat=0.6),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--buckets", type=int, default=None)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    cfg = MauveConfig(num_buckets=args.buckets)
    p_features = featurize(human_texts(args.n, rng))
    for name, kw in DECODERS.items():
        q_features = featurize(model_texts(args.n, rng, **kw))
        result = compute_mauve(p_features, q_features, cfg)
        print(f"{name:28s} MAUVE {result.score:.4f}  ({result.num_buckets} clusters)")


if __name__ == "__main__":
    main()
