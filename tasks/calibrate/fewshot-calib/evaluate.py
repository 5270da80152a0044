"""Few-shot accuracy with and without contextual calibration, over several sets of demonstrations.

    python evaluate.py [--shots 4] [--sets 5]
"""

from __future__ import annotations

import argparse

import numpy as np

from calib.calibration import classify
from calib.config import CalibConfig
from calib.data import dataset
from calib.model import sentiment_lm
from calib.prompts import SENTIMENT
from calib.tokenizer import Tokenizer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shots", type=int, default=4)
    parser.add_argument("--sets", type=int, default=5)
    args = parser.parse_args()
    tok = Tokenizer()
    model = sentiment_lm(tok, label_bias={"positive": 1.5})  # a model that prefers one label word
    rng = np.random.default_rng(0)
    test = dataset(rng, 40)
    gold = np.array([y for _, y in test])
    for s in range(args.sets):
        demos = dataset(rng, args.shots)
        texts = [x for x, _ in test]
        plain = classify(model, tok, SENTIMENT, demos, texts, CalibConfig(), calibrated=False)
        cal = classify(model, tok, SENTIMENT, demos, texts, CalibConfig(), calibrated=True)
        acc_plain = float((plain.predictions.numpy() == gold).mean())
        acc_cal = float((cal.predictions.numpy() == gold).mean())
        share = float(plain.predictions.float().mean())
        print(f"set {s}: accuracy {acc_plain:.3f} -> {acc_cal:.3f} calibrated "
              f"(predicted positive {share:.2f} before; p_cf {cal.p_cf.numpy().round(3)})")


if __name__ == "__main__":
    main()
