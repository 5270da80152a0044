"""Toy knowledge-conflict examples: a context passage that may contradict "prior knowledge", and a question."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

SPECIALS = ["<pad>", "<eos>", "<unk>"]
WORDS = (
    "context question answer : . ? the of is was in a who what which capital country city river "
    "president wrote invented discovered born france italy spain germany paris rome madrid berlin "
    "lyon milan seville munich tesla edison curie newton london england rhine seine danube"
).split()


class Vocab:
    def __init__(self) -> None:
        self.itos = SPECIALS + WORDS
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        self.pad_id = self.stoi["<pad>"]
        self.eos_id = self.stoi["<eos>"]

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, text: str) -> list[int]:
        return [self.stoi.get(w, self.stoi["<unk>"]) for w in text.lower().split()]

    def decode(self, ids: list[int]) -> str:
        return " ".join(self.itos[i] for i in ids if i not in (self.pad_id, self.eos_id))


@dataclass
class Example:
    context: str
    question: str
    answer: str  # the answer the context supports (which may contradict prior knowledge)


def conflict(country: str, city: str) -> Example:
    """A context that names a (counterfactual) capital, and the question about it."""
    return Example(f"context : the capital of {country} is {city} .",
                   f"question : what is the capital of {country} ? answer :", city)


EXAMPLES = [conflict("france", "lyon"), conflict("italy", "milan"), conflict("spain", "seville"),
            conflict("germany", "munich")]


def batch(examples: list[Example], vocab: Vocab) -> tuple[Tensor, Tensor]:
    """(context_ids, query_ids) as rectangular LongTensors; the examples must have equal lengths."""
    ctx = [vocab.encode(e.context) for e in examples]
    qry = [vocab.encode(e.question) for e in examples]
    if len({len(c) for c in ctx}) > 1 or len({len(q) for q in qry}) > 1:
        raise ValueError("batch() needs examples of equal context and question lengths")
    return torch.tensor(ctx), torch.tensor(qry)
