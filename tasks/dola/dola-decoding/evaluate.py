"""Compare greedy decoding with DoLa on a tiny random early-exit LM.

    python evaluate.py --steps 8 --alpha 0.1 --bucket 0

Prints, for a few toy prompts, the greedy continuation, the DoLa continuation, and how often
each candidate layer was picked as the premature layer.
"""

from __future__ import annotations

import argparse
from collections import Counter

import torch
from dola.contrast import candidate_buckets, dola_step
from dola.generate import dola_generate, greedy_generate
from dola.model import build_model
from dola.tokenizer import ToyTokenizer

PROMPTS = [
    "the capital of france is",
    "newton discovered",
    "the river which flows through rome",
    "curie was a",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--bucket", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    tok = ToyTokenizer()
    model = build_model(seed=args.seed)
    buckets = candidate_buckets(model.cfg.n_layers)
    candidates = buckets[args.bucket]
    print(f"mature layer {model.mature_layer}, buckets {buckets}, using {candidates}")

    picked: Counter[int] = Counter()
    changed = 0
    for text in PROMPTS:
        ids = torch.tensor([tok.encode(text)])
        greedy = greedy_generate(model, ids, args.steps)[0].tolist()
        out = dola_generate(model, ids, args.steps, candidates, alpha=args.alpha)
        dola = out.tokens[0].tolist()
        picked.update(out.premature_layers[0].tolist())
        changed += sum(g != d for g, d in zip(greedy, dola))
        print(f"{text!r}\n  greedy: {tok.decode(greedy)}\n  dola:   {tok.decode(dola)}")

    # Teacher-forced view of one prompt: how large is the contrast at each position?
    ids = torch.tensor([tok.encode(PROMPTS[0])])
    logits = model.early_exit_logits(ids, [*candidates, model.mature_layer])
    for pos in range(ids.shape[1]):
        step = dola_step({j: x[:, pos] for j, x in logits.items()}, candidates, model.mature_layer, args.alpha)
        print(f"pos {pos}: premature {step.premature_layer.item()}, "
              f"jsd {[round(v, 4) for v in step.jsd[0].tolist()]}, plausible {int(step.plausible.sum())}")
    print(f"premature layer histogram: {dict(sorted(picked.items()))}; tokens changed vs greedy: {changed}")


if __name__ == "__main__":
    main()
