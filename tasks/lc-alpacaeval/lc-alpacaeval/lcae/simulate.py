"""A simulated judge with a length bias, to try the method on tiny data (no model or API needed)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

WORDS = ("the", "model", "answer", "because", "first", "note", "list", "example", "result", "finally")


@dataclass(frozen=True)
class SimulatedModel:
    """A generator: its quality (logit of beating the baseline at equal length) and its verbosity."""

    name: str
    quality: float  # judge's log-odds of preferring it at equal length on an average instruction
    mean_words: float  # mean output length, in words
    sensitivity: float = 1.0  # how much the instruction's difficulty affects it


@dataclass(frozen=True)
class JudgeConfig:
    """The simulated auto-annotator."""

    length_bias: float = 1.5  # coefficient of tanh(standardised length difference) in the judge's log-odds
    length_scale: float = 150.0  # characters: the length difference that counts as one unit
    noise: float = 0.5  # standard deviation of per-row noise on the log-odds
    fail_rate: float = 0.05  # fraction of rows the judge fails to annotate (NaN preference)
    seed: int = 0
    baseline_words: float = 30.0  # mean length of the baseline's outputs, in words
    difficulty_scale: float = 1.0  # standard deviation of the instructions' difficulties


def _text(rng: np.random.Generator, mean_words: float) -> str:
    n = max(1, round(mean_words * np.exp(0.6 * rng.standard_normal() - 0.18)))
    return " ".join(rng.choice(WORDS, size=n))


def simulate(models: list[SimulatedModel], n_instructions: int, judge: JudgeConfig, baseline: str = "baseline"
             ) -> pd.DataFrame:
    """An annotations table (schema: `lcae.annotations`) of every model against the baseline."""
    rng = np.random.default_rng(judge.seed)
    difficulty = judge.difficulty_scale * rng.standard_normal(n_instructions)
    baseline_outputs = [_text(rng, judge.baseline_words) for _ in range(n_instructions)]
    records = []
    for model in models:
        for x in range(n_instructions):
            output = _text(rng, model.mean_words)
            delta = (len(output) - len(baseline_outputs[x])) / judge.length_scale
            logit = (model.quality + judge.length_bias * np.tanh(delta) - model.sensitivity * difficulty[x]
                     + judge.noise * rng.standard_normal())
            win = 1.0 / (1.0 + np.exp(-logit))
            swap = bool(rng.random() < 0.5)
            pref = float("nan") if rng.random() < judge.fail_rate else (2.0 - win if swap else 1.0 + win)
            first, second = (model.name, baseline) if swap else (baseline, model.name)
            out_1, out_2 = (output, baseline_outputs[x]) if swap else (baseline_outputs[x], output)
            records.append({"instruction": f"x{x:03d}", "generator_1": first, "generator_2": second,
                            "output_1": out_1, "output_2": out_2, "preference": pref})
    return pd.DataFrame.from_records(records)
