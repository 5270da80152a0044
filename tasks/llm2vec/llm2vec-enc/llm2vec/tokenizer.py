"""A word-level tokenizer with the special tokens of a decoder-only LM.

Every encoded text starts with <bos> and ends with <eos>. Batches are padded on the left, as is usual for
decoder-only models (the attention mask marks real tokens with 1 and padding with 0). The special tokens
(<pad>, <bos>, <eos> and the mask token "_") carry no text: they are never chosen for masking and never
predicted. A decoder-only LM has no mask token of its own; like LLM2Vec we use the underscore.
"""
from __future__ import annotations

import torch

PAD, BOS, EOS, MASK, UNK = "<pad>", "<bos>", "<eos>", "_", "<unk>"
SPECIALS = (PAD, BOS, EOS, MASK, UNK)


class Tokenizer:
    def __init__(self, words: list[str]):
        self.itos = list(SPECIALS) + [w for w in words if w not in SPECIALS]
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        self.pad_id, self.bos_id, self.eos_id = self.stoi[PAD], self.stoi[BOS], self.stoi[EOS]
        self.mask_id, self.unk_id = self.stoi[MASK], self.stoi[UNK]

    @property
    def vocab_size(self) -> int:
        return len(self.itos)

    @property
    def special_ids(self) -> list[int]:
        """Ids of the tokens that are never masked: <pad>, <bos>, <eos> and the mask token."""
        return [self.pad_id, self.bos_id, self.eos_id, self.mask_id]

    def encode(self, text: str) -> list[int]:
        return [self.bos_id] + [self.stoi.get(w, self.unk_id) for w in text.split()] + [self.eos_id]

    def decode(self, ids: list[int]) -> str:
        return " ".join(self.itos[i] for i in ids if i not in (self.pad_id, self.bos_id, self.eos_id))

    def batch(self, texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """Left-padded (input_ids, attention_mask), both (B, T) int64."""
        seqs = [self.encode(t) for t in texts]
        t = max(len(s) for s in seqs)
        ids = torch.full((len(seqs), t), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(seqs), t), dtype=torch.long)
        for b, s in enumerate(seqs):
            ids[b, t - len(s):] = torch.tensor(s, dtype=torch.long)
            mask[b, t - len(s):] = 1
        return ids, mask
