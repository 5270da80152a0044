"""Regenerate tests/fixtures for cot-decoding/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR``. Writes OUT_DIR/cases.json: hand-made paths (token ids and per-step
distributions, rounded to 6 decimals) for scoring, scored paths (answer text, branch, confidence) for the choice
of the answer, and prompts with decoding options for the tiny model. Deterministic.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

VOCAB = 33  # cotdec.tokenizer.Tokenizer: 3 special tokens, 10 digits, 20 words
DIGIT = {str(d): 3 + d for d in range(10)}
WORD = 20  # "so", a non-digit token


def rows(rng: np.random.Generator, n: int) -> list:
    p = rng.dirichlet(np.full(VOCAB, 0.3), size=n)
    return np.round(p, 6).tolist()


def main(out: Path) -> None:
    rng = np.random.default_rng(20240215)
    d = DIGIT
    token_lists = [
        [WORD, d["4"], WORD, d["1"], d["2"]],          # answer "12" at the end
        [d["7"], WORD, WORD],                          # answer "7" is the first token
        [WORD, WORD, WORD],                            # no answer
        [d["3"], d["0"], WORD, d["9"], WORD, WORD],    # answer "9" in the middle
        [],                                            # an empty path (the first token was <eos>)
        [WORD, d["5"], d["5"], d["5"]],                # answer "555"
    ]
    scoring = [{"tokens": t, "probs": rows(rng, len(t))} for t in token_lists]
    choosing = [
        # (answer text or None, confidence); branch = position
        [["12", 0.5], [None, None], ["7", 0.25], ["12", 0.125], ["7", 0.375]],
        [["3", 0.25], ["4", 0.25], ["3", 0.0625]],                  # a tie on the best path: "3" comes first
        [["8", 0.5], ["6", 0.25], ["6", 0.25], ["8", 0.0]],        # aggregated tie 0.5 = 0.5: "8" first
        [[None, None], [None, None]],
        [["2", 0.1], ["9", 0.3], ["2", 0.15], ["2", 0.1], ["9", 0.05]],
    ]
    decoding = [
        {"prompt": "q: i have 3 apples and get 2 more . a:", "num_branches": 10, "max_new_tokens": 16},
        {"prompt": "q: 4 plus 4 = a:", "num_branches": 5, "max_new_tokens": 8},
        {"prompt": "q: we have 7 minus 3 apples . the total is a:", "num_branches": 3, "max_new_tokens": 16},
        {"prompt": "q: a:", "num_branches": 10, "max_new_tokens": 1},
        {"prompt": "q: i have 1 2 apples then 5 left . a:", "num_branches": 1, "max_new_tokens": 12},
        {"prompt": "so the answer is", "num_branches": 40, "max_new_tokens": 4},
    ]
    data = {"scoring": scoring, "choosing": choosing, "decoding": decoding}
    out.mkdir(parents=True, exist_ok=True)
    (out / "cases.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
