"""A whitespace tokenizer over a fixed toy vocabulary (no files, no downloads)."""

from __future__ import annotations

SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]
WORDS = (
    "the capital of france is paris rome berlin madrid city river "
    "which flows through a an in on and was born lived wrote painter "
    "poet scientist who discovered gravity theory poem newton curie einstein . ,"
).split()


class ToyTokenizer:
    def __init__(self) -> None:
        self.itos = SPECIALS + WORDS
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    @property
    def vocab_size(self) -> int:
        return len(self.itos)

    @property
    def bos_id(self) -> int:
        return self.stoi["<bos>"]

    @property
    def eos_id(self) -> int:
        return self.stoi["<eos>"]

    def encode(self, text: str, add_bos: bool = True) -> list[int]:
        ids = [self.stoi.get(w, self.stoi["<unk>"]) for w in text.lower().split()]
        return [self.bos_id, *ids] if add_bos else ids

    def decode(self, ids: list[int]) -> str:
        return " ".join(self.itos[i] for i in ids if self.itos[i] not in SPECIALS)
