"""Select cherry samples from a toy instruction dataset with the IFD score.

    python select_data.py --samples 60 --selected 6
"""
from __future__ import annotations

import argparse

from cherry.config import CherryConfig
from cherry.data import toy_dataset
from cherry.model import TinyLM
from cherry.selection import CherryResult, cherry_pipeline

VOCAB_SIZE = 40


def run(config: CherryConfig, num_samples: int, data_seed: int = 0) -> CherryResult:
    """The pipeline on `num_samples` toy samples, with a base model seeded by `config.seed`."""
    samples = toy_dataset(num_samples, VOCAB_SIZE, data_seed)
    return cherry_pipeline(TinyLM(VOCAB_SIZE, seed=config.seed), samples, config)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--selected", type=int, default=CherryConfig.num_selected)
    parser.add_argument("--clusters", type=int, default=CherryConfig.num_clusters)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    config = CherryConfig(num_selected=args.selected, num_clusters=args.clusters, seed=args.seed)
    result = run(config, args.samples, args.seed)
    print(f"pre-experience subset: {result.experience_subset}")
    print(f"IFD: mean {result.ifd.mean():.3f}, {int((result.ifd >= 1).sum())} samples at or above 1")
    print(f"cherry samples: {result.selected} (IFD {[round(float(result.ifd[i]), 3) for i in result.selected]})")


if __name__ == "__main__":
    main()
