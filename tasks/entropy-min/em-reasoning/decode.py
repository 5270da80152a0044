"""Greedy decoding with and without EM-INF on random prompts."""
from __future__ import annotations

import dataclasses

import torch

from emr.config import InfConfig, ModelConfig
from emr.entropy import em_inf_generate
from emr.model import TinyLM


def main() -> None:
    mcfg, cfg = ModelConfig(), InfConfig()
    model = TinyLM(mcfg)
    prompts = torch.randint(1, mcfg.vocab_size, (3, 4), generator=torch.Generator().manual_seed(3))
    plain = em_inf_generate(model, prompts, dataclasses.replace(cfg, max_steps=0))
    sharpened = em_inf_generate(model, prompts, cfg)
    for p, a, b in zip(prompts.tolist(), plain.tolist(), sharpened.tolist(), strict=True):
        print(f"prompt {p}: greedy {a}  EM-INF {b}")


if __name__ == "__main__":
    main()
