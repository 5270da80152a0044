"""Perplexity of the tiny LM alone and as a kNN-LM whose datastore is built from a training corpus.

    python evaluate.py [--k 8] [--lam 0.25]
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from knnlm.config import KnnConfig
from knnlm.data import corpus
from knnlm.knn import build_datastore, sequence_logprobs
from knnlm.model import TinyLM


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--lam", type=float, default=0.25)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    model = TinyLM()
    store = build_datastore(model, corpus(rng, 40))
    test = corpus(rng, 10)
    for lam in (0.0, args.lam, 0.5):
        cfg = KnnConfig(k=args.k, lam=lam)
        total = sum(float(sequence_logprobs(model, store, seq, cfg).sum()) for seq in test)
        count = sum(len(seq) - 1 for seq in test)
        print(f"lambda {lam:.2f}: perplexity {math.exp(-total / count):.3f}  ({len(store)} datastore entries)")


if __name__ == "__main__":
    main()
