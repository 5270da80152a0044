"""Compress a toy few-shot prompt with LLMLingua and print what is left.

    python compress_prompt.py --rate 0.4 --demonstrations 6 [--train-steps 30]
"""
from __future__ import annotations

import argparse

from lingua.compressor import PromptCompressor
from lingua.config import CompressionConfig
from lingua.data import corpus, make_prompt
from lingua.lm import TinyCausalLM
from lingua.prompt import CompressedPrompt
from lingua.tokenizer import WordTokenizer
from train_lm import train_lm


def build(config: CompressionConfig, seed: int = 0, train_steps: int = 0) -> PromptCompressor:
    """A compressor with a seeded small model over the toy vocabulary, optionally trained on toy problems."""
    tokenizer = WordTokenizer.from_texts(corpus())
    lm = TinyCausalLM(tokenizer.vocab_size, seed=seed)
    if train_steps:
        train_lm(lm, tokenizer, steps=train_steps, seed=seed)
    return PromptCompressor(lm, tokenizer, config)


def run(config: CompressionConfig, num_demonstrations: int, seed: int = 0,
        train_steps: int = 0) -> CompressedPrompt:
    """Compress the toy prompt of `seed` with `num_demonstrations` demonstrations."""
    return build(config, seed, train_steps).compress(make_prompt(num_demonstrations, seed))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rate", type=float, default=CompressionConfig.rate)
    parser.add_argument("--demonstrations", type=int, default=6)
    parser.add_argument("--granularity", type=float, default=CompressionConfig.granularity)
    parser.add_argument("--segment-size", type=int, default=CompressionConfig.segment_size)
    parser.add_argument("--train-steps", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    config = CompressionConfig(rate=args.rate, granularity=args.granularity, segment_size=args.segment_size)
    result = run(config, args.demonstrations, args.seed, args.train_steps)
    budget = result.budget
    print(f"kept demonstrations {list(budget.kept)} (tau_dems {budget.demonstration_rate:.3f}, "
          f"delta {budget.delta:+.3f})")
    print(f"{len(result.ids)} of {result.original_length} tokens (rate {result.achieved_rate:.3f})")
    print(result.text)


if __name__ == "__main__":
    main()
