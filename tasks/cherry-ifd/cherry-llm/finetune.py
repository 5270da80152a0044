"""Instruction-tune the base model on the cherry samples only and compare its loss on all samples with the
base model's.

    python finetune.py --samples 60 --steps 20
"""
from __future__ import annotations

import argparse

import torch

from cherry.config import CherryConfig
from cherry.data import toy_dataset
from cherry.model import TinyLM
from cherry.selection import cherry_pipeline
from cherry.train import brief_training, sft_loss
from select_data import VOCAB_SIZE


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args(argv)
    config = CherryConfig()
    samples = toy_dataset(args.samples, VOCAB_SIZE, 0)
    base = TinyLM(VOCAB_SIZE, seed=config.seed)
    result = cherry_pipeline(base, samples, config)
    tuned = brief_training(base, [samples[i] for i in result.selected], args.steps, config.lr)
    with torch.no_grad():
        print(f"loss on all samples: base {sft_loss(base, samples):.3f}, cherry-tuned {sft_loss(tuned, samples):.3f}")


if __name__ == "__main__":
    main()
