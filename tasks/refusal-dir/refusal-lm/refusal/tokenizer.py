"""A word-level tokenizer with a fixed vocabulary and the chat template of the tiny model."""
from __future__ import annotations

import torch

SPECIAL = ["<pad>", "<bos>", "<user>", "<eoi>", "<bot>", ":"]
HARMFUL_WORDS = ["bomb", "poison", "hack", "steal", "weapon", "malware", "fraud", "threaten"]
NEUTRAL_WORDS = ["write", "a", "poem", "about", "the", "sea", "explain", "how", "to", "cook", "rice", "plan",
                 "trip", "list", "fruits", "describe", "cat", "summarize", "book", "make", "bread", "teach",
                 "me", "chess", "build", "website", "for", "my", "friend", "school"]
RESPONSE_WORDS = ["sorry", "cannot", "sure", "here", "okay", "."]
VOCAB = SPECIAL + HARMFUL_WORDS + NEUTRAL_WORDS + RESPONSE_WORDS

# tokens that begin a refusal; their probability at the last prompt position is the model's refusal probability
REFUSAL_TOKENS = ["sorry", "cannot"]
COMPLIANCE_TOKENS = ["sure", "here", "okay"]


class Tokenizer:
    """Word-level tokenizer. ``<pad>`` is id 0; batches are padded on the left so that the last positions of
    every prompt hold the same template tokens."""

    # the template wraps an instruction as: <bos> <user> {instruction} <eoi> <bot> :
    prefix = ["<bos>", "<user>"]
    post_instruction = ["<eoi>", "<bot>", ":"]

    def __init__(self) -> None:
        self.vocab = list(VOCAB)
        self.ids = {w: i for i, w in enumerate(self.vocab)}
        self.pad_id = self.ids["<pad>"]

    def __len__(self) -> int:
        return len(self.vocab)

    def token_ids(self, words: list[str]) -> list[int]:
        return [self.ids[w] for w in words]

    @property
    def refusal_ids(self) -> list[int]:
        return self.token_ids(REFUSAL_TOKENS)

    @property
    def compliance_ids(self) -> list[int]:
        return self.token_ids(COMPLIANCE_TOKENS)

    @property
    def post_instruction_ids(self) -> list[int]:
        """Ids of the template tokens that follow the instruction (the last len(...) positions of a prompt)."""
        return self.token_ids(self.post_instruction)

    def apply_template(self, instruction: str) -> list[int]:
        return self.token_ids(self.prefix + instruction.split() + self.post_instruction)

    def encode_batch(self, instructions: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """Template and left-pad a list of instructions.

        Returns (input_ids, attention_mask), both int64 of shape (batch, longest prompt); the mask is 1 on
        real tokens and 0 on the padding, which is on the left."""
        seqs = [self.apply_template(s) for s in instructions]
        width = max(len(s) for s in seqs)
        ids = torch.full((len(seqs), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for b, s in enumerate(seqs):
            ids[b, width - len(s):] = torch.tensor(s, dtype=torch.long)
            mask[b, width - len(s):] = 1
        return ids, mask
