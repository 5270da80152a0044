"""Toy instruction data: a pool of training examples from several task families, and small validation sets
(a few examples per target subtask)."""
from __future__ import annotations

from dataclasses import dataclass

import torch

PROMPT, SEP = 1, 2  # special tokens; content tokens are 3..vocab_size-1


@dataclass(frozen=True)
class Example:
    """One instruction-response pair.

    input_ids: (T,) int64 tokens, prompt then response.
    labels: (T,) int64, equal to input_ids on response tokens and -100 on prompt tokens (not trained on).
    family: the task family the example was generated from (used only by the toy setup's reports).
    """

    input_ids: torch.Tensor
    labels: torch.Tensor
    family: str = ""


def _example(prompt: list[int], response: list[int], family: str) -> Example:
    ids = torch.tensor([PROMPT, *prompt, SEP, *response], dtype=torch.int64)
    labels = ids.clone()
    labels[: len(prompt) + 2] = -100
    return Example(ids, labels, family)


def make_example(family: str, g: torch.Generator, vocab_size: int = 16) -> Example:
    """Families: "copy" (repeat the prompt), "reverse", "sort", "const" (answer with the first token, 3 times)."""
    n = int(torch.randint(2, 6, (1,), generator=g))
    prompt = torch.randint(3, vocab_size, (n,), generator=g).tolist()
    response = {"copy": prompt, "reverse": prompt[::-1], "sort": sorted(prompt), "const": [prompt[0]] * 3}[family]
    return _example(prompt, response, family)


def make_pool(n: int, seed: int, families: tuple[str, ...] = ("copy", "reverse", "sort", "const"),
              vocab_size: int = 16) -> list[Example]:
    g = torch.Generator().manual_seed(seed)
    return [make_example(families[int(torch.randint(len(families), (1,), generator=g))], g, vocab_size)
            for _ in range(n)]


def make_validation(families: tuple[str, ...], per_task: int, seed: int, vocab_size: int = 16
                    ) -> dict[str, list[Example]]:
    """One small validation set per target subtask (here: a family)."""
    g = torch.Generator().manual_seed(seed)
    return {f: [make_example(f, g, vocab_size) for _ in range(per_task)] for f in families}
