"""Regenerate tests/fixtures for calibrate/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR`` from the repository (it uses calib.data). Writes OUT_DIR/cases.json:
sets of demonstrations (balanced, all of one class, of different sizes, none) with test reviews, and model
options (seed, label-word biases, decay). Deterministic.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from calib.data import dataset


def main(out: Path) -> None:
    rng = np.random.default_rng(20210219)
    sets = []
    for shots, only, template, model in [
        (4, None, "sentiment", {"seed": 0, "label_bias": {"positive": 1.5}}),
        (2, None, "sentiment", {"seed": 1, "label_bias": {}}),
        (4, 1, "sentiment", {"seed": 2, "label_bias": {"negative": 0.5}}),
        (8, None, "sentiment", {"seed": 3, "label_bias": {"positive": 1.0}, "decay": 0.95}),
        (0, None, "sentiment", {"seed": 4, "label_bias": {"positive": 2.0}}),
        (3, None, "sentiment3", {"seed": 5, "label_bias": {"neutral": 1.0}}),
        (4, 0, "yes_no", {"seed": 6, "label_bias": {"yes": 1.0}}),
    ]:
        demos = dataset(rng, 40) if only is not None else dataset(rng, shots)
        if only is not None:
            demos = [d for d in demos if d[1] == only][:shots]
        if template == "sentiment3":  # class 2 = positive in the three-class format
            demos = [(x, 2 * y) for x, y in demos]
        queries = [x for x, _ in dataset(rng, 6)]
        sets.append({"demos": demos, "queries": queries, "template": template, "model": model})
    data = {"sets": sets}
    out.mkdir(parents=True, exist_ok=True)
    (out / "cases.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
