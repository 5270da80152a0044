"""Score the toy systems with BERTScore, sentence- and system-level.

    python evaluate.py [--idf] [--rescale] [--layer N]
"""

from __future__ import annotations

import argparse

import torch

from bertscore.data import REFERENCES, SYSTEMS
from bertscore.encoder import TinyEncoder
from bertscore.score import BERTScorer, rescale_with_baseline
from bertscore.tokenizer import WordTokenizer


def main(argv: list[str] | None = None) -> dict[str, tuple[float, float, float]]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--idf", action="store_true", help="weight tokens by idf over the references")
    parser.add_argument("--rescale", action="store_true", help="rescale with a random-pair baseline")
    parser.add_argument("--layer", type=int, default=-1, help="encoder layer whose states are used")
    parser.add_argument("--seed", type=int, default=0, help="encoder seed")
    args = parser.parse_args(argv)

    all_texts = REFERENCES + [s for outputs in SYSTEMS.values() for s in outputs]
    tokenizer = WordTokenizer.from_corpus(all_texts)
    encoder = TinyEncoder(tokenizer.vocab_size, seed=args.seed)
    scorer = BERTScorer(tokenizer, encoder, layer=args.layer, idf_references=REFERENCES if args.idf else None)
    baseline = scorer.baseline(all_texts) if args.rescale else None

    results = {}
    for name, outputs in SYSTEMS.items():
        scores = list(scorer.score(outputs, REFERENCES))
        if baseline is not None:
            scores = [rescale_with_baseline(s, b) for s, b in zip(scores, baseline)]
        p, r, f = (torch.stack(scores).mean(dim=1)).tolist()
        results[name] = (p, r, f)
        print(f"{name}: P={p:.4f} R={r:.4f} F1={f:.4f}")
        for cand, ref, fi in zip(outputs, REFERENCES, scores[2].tolist()):
            print(f"    F1={fi:+.4f}  {cand!r}  vs  {ref!r}")
    return results


if __name__ == "__main__":
    main()
