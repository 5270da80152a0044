"""Held-out SPIN loss of a model against a given opponent.

At the start of an iteration the model equals its opponent, every log-ratio is 0 and the logistic loss
is log 2; after training the model should rank held-out human responses above fresh opponent samples.

    python evaluate.py
"""
from __future__ import annotations

import torch

from spin.generation import sample_responses
from spin.model import LSTMLanguageModel, snapshot
from spin.selfplay import SPINConfig, run_selfplay, spin_step
from spin.sft_data import make_sft_data


@torch.no_grad()
def held_out_metrics(model, opponent, data, cfg: SPINConfig, seed: int = 1234) -> dict:
    g = torch.Generator().manual_seed(seed)
    generated = sample_responses(opponent, data.prompts, cfg.max_new_tokens, generator=g)
    _, metrics = spin_step(model.eval(), opponent, data.prompts, data.real, generated, cfg)
    return metrics


def main() -> dict:
    cfg = SPINConfig(iterations=1, steps_per_iteration=10)
    torch.manual_seed(cfg.seed)
    model = LSTMLanguageModel()
    opponent = snapshot(model)
    held_out = make_sft_data(32, model.vocab_size, seed=77)
    print("before:", held_out_metrics(model, opponent, held_out, cfg))
    run_selfplay(model, make_sft_data(64, model.vocab_size, seed=cfg.seed), cfg)
    result = held_out_metrics(model, opponent, held_out, cfg)
    print("after one iteration:", result)
    return result


if __name__ == "__main__":
    main()
