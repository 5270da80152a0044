"""Greedy decoding vs CoT-decoding on a few prompts with the tiny model.

    python run_cot.py [--branches 10] [--aggregate]
"""

from __future__ import annotations

import argparse

from cotdec.config import DecodeConfig
from cotdec.decoding import cot_decode
from cotdec.model import TinyLM
from cotdec.prompts import PROMPTS
from cotdec.tokenizer import Tokenizer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--branches", type=int, default=10)
    parser.add_argument("--aggregate", action="store_true")
    args = parser.parse_args()
    tok = Tokenizer()
    model = TinyLM(len(tok))
    cfg = DecodeConfig(num_branches=args.branches, aggregate=args.aggregate)
    for prompt in PROMPTS:
        result = cot_decode(model, tok, prompt, cfg)
        greedy = result.paths[0]
        print(prompt)
        print(f"  greedy : {tok.decode(greedy.tokens)!r} -> {greedy.answer.text if greedy.answer else None}")
        print(f"  chosen : branch {result.best_branch} -> {result.answer}  scores {result.answer_scores}")


if __name__ == "__main__":
    main()
