"""Sentence- and system-level MoverScore of the toy systems.

    python evaluate.py [--n-gram N] [--seed S]
"""

from __future__ import annotations

import argparse

from moverscore.data import REFERENCES, SYSTEMS
from moverscore.encoder import Encoder
from moverscore.metric import MoverScorer
from moverscore.tokenizer import Tokenizer


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n-gram", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    tokenizer = Tokenizer.build(REFERENCES + [s for outs in SYSTEMS.values() for s in outs])
    encoder = Encoder(len(tokenizer), seed=args.seed)
    system_scores = {}
    for name, outputs in SYSTEMS.items():
        scorer = MoverScorer(tokenizer, encoder, REFERENCES, outputs, n_gram=args.n_gram)
        scores = scorer.score(outputs, REFERENCES)
        system_scores[name] = scores.mean().item()
        print(f"{name}: MoverScore-{args.n_gram} = {system_scores[name]:.4f}")
        for hyp, ref, s in zip(outputs, REFERENCES, scores.tolist()):
            print(f"    {s:.4f}  {hyp!r}  vs  {ref!r}")
    return system_scores


if __name__ == "__main__":
    main()
