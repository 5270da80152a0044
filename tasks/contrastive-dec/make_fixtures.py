"""Regenerate tests/fixtures for contrastive-dec/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR``. Writes OUT_DIR/cases.json: pairs of expert/amateur logit vectors
(rounded to 6 decimals) with options, and prompts with search options for the tiny model pair. Deterministic.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def main(out: Path) -> None:
    rng = np.random.default_rng(20221027)
    logits = []
    for vocab, spread, alpha, temp in [(6, 1.0, 0.1, 1.0), (10, 2.0, 0.3, 0.5), (16, 3.0, 0.05, 1.0),
                                       (8, 0.5, 0.9, 2.0), (12, 2.5, 0.2, 0.7)]:
        logits.append({"expert": np.round(rng.normal(0, spread, (2, vocab)), 6).tolist(),
                       "amateur": np.round(rng.normal(0, spread, (2, vocab)), 6).tolist(),
                       "alpha": alpha, "amateur_temperature": temp})
    searches = [
        {"prompt": [1, 2, 3], "alpha": 0.1, "amateur_temperature": 1.0, "beam_size": 1, "max_new_tokens": 6},
        {"prompt": [7], "alpha": 0.1, "amateur_temperature": 0.5, "beam_size": 3, "max_new_tokens": 5},
        {"prompt": [4, 4, 9], "alpha": 0.3, "amateur_temperature": 1.0, "beam_size": 2, "max_new_tokens": 4},
        {"prompt": [0], "alpha": 0.05, "amateur_temperature": 1.5, "beam_size": 5, "max_new_tokens": 3},
        {"prompt": [12, 3], "alpha": 1.0, "amateur_temperature": 1.0, "beam_size": 2, "max_new_tokens": 3},
        {"prompt": [5, 6], "alpha": 0.2, "amateur_temperature": 1.0, "beam_size": 4, "max_new_tokens": 1},
    ]
    out.mkdir(parents=True, exist_ok=True)
    (out / "cases.json").write_text(json.dumps({"logits": logits, "searches": searches}, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
