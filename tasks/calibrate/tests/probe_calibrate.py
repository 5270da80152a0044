"""Probe for calibrate/1: label probabilities, the content-free estimate, the calibration parameters, calibration
and few-shot classification of calib/calibration.py. Runs in the sandbox; emits outputs only, never compares.

Everything is float64 (the model included): rtol 1e-9 (NOTES.md)."""
from __future__ import annotations

import json
from pathlib import Path

import torch

from calib.calibration import calibrate, calibration_params, classify, content_free_probs, label_probs
from calib.config import CalibConfig
from calib.model import sentiment_lm
from calib.prompts import SENTIMENT, SENTIMENT3, YES_NO
from calib.tokenizer import Tokenizer
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "cases.json").read_text())
TEMPLATES = {"sentiment": SENTIMENT, "sentiment3": SENTIMENT3, "yes_no": YES_NO}
TOL = dict(rtol=1e-9, atol=1e-12)


def setup(i: int):
    c = CASES["sets"][i]
    tok = Tokenizer()
    m = c["model"]
    model = sentiment_lm(tok, seed=m["seed"], label_bias=m["label_bias"], decay=m.get("decay", 0.8))
    demos = [(x, int(y)) for x, y in c["demos"]]
    return c, tok, model, TEMPLATES[c["template"]], demos


@case(**TOL)
def calibrate_hand():
    W, b = calibration_params(torch.tensor([0.8, 0.2], dtype=torch.float64))
    probs = torch.tensor([[0.7, 0.3], [0.5, 0.5], [0.2, 0.8]], dtype=torch.float64)
    W3, b3 = calibration_params(torch.tensor([0.25, 0.5, 0.25], dtype=torch.float64))
    W32, b32 = calibration_params(torch.tensor([0.25, 0.75], dtype=torch.float32))
    return {"W": W, "b": b, "q": calibrate(probs, W, b), "q_f32": calibrate(probs.float(), W, b),
            "q_batched": calibrate(probs.reshape(3, 1, 2).expand(3, 4, 2), W, b), "W3": W3, "b3": b3, "W32": W32, "b32": b32,
            "q3": calibrate(torch.tensor([1 / 3, 1 / 3, 1 / 3], dtype=torch.float64), W3, b3)}


@case(**TOL)
def calibrate_with_bias_term():
    W = torch.tensor([[2.0, 0.0], [0.0, 0.5]], dtype=torch.float64)
    b = torch.tensor([0.1, -0.3], dtype=torch.float64)
    return {"q": calibrate(torch.tensor([[0.6, 0.4]], dtype=torch.float64), W, b),
            "q_full_W": calibrate(torch.tensor([0.6, 0.4], dtype=torch.float64),
                                  torch.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=torch.float64), b)}


@case(params=range(len(CASES["sets"])), **TOL)
def label_probs_sets(i):
    c, tok, model, template, demos = setup(i)
    return {"case": i, "probs": torch.stack([label_probs(model, tok, template, template.build_prompt(demos, q))
                                             for q in c["queries"]])}


@case(params=range(len(CASES["sets"])), **TOL)
def content_free_sets(i):
    c, tok, model, template, demos = setup(i)
    return {"case": i, "default": content_free_probs(model, tok, template, demos, CalibConfig()),
            "na_only": content_free_probs(model, tok, template, demos, CalibConfig(content_free=("n/a",))),
            "two": content_free_probs(model, tok, template, demos, CalibConfig(content_free=("[mask]", "n/a")))}


@case(params=range(len(CASES["sets"])), **TOL)
def classify_sets(i):
    c, tok, model, template, demos = setup(i)
    out: dict = {"case": i}
    for name, cal in (("plain", False), ("calibrated", True)):
        res = classify(model, tok, template, demos, c["queries"], CalibConfig(), calibrated=cal)
        out[name] = {"probs": res.probs, "predictions": res.predictions, "p_cf": res.p_cf}
    return out
