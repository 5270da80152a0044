"""Sampling groups of responses, and aligning the model's logits with the tokens they predict."""
from __future__ import annotations

import torch

from emr.batch import Batch, collate
from emr.config import SamplingConfig
from emr.model import TinyLM


@torch.no_grad()
def sample_groups(model: TinyLM, prompts: list[list[int]], group_size: int, cfg: SamplingConfig,
                  generator: torch.Generator) -> Batch:
    """`group_size` responses per prompt; the rows of one prompt are consecutive (rows g*K .. g*K + K - 1)."""
    prompts = [p for p in prompts for _ in range(group_size)]
    responses = []
    for p in prompts:
        seq = list(p)
        for _ in range(cfg.max_new_tokens):
            logits = model(torch.tensor([seq]))[0, -1] / cfg.temperature
            probs = torch.softmax(logits.double(), dim=-1)
            seq.append(int(torch.multinomial(probs, 1, generator=generator)))
        responses.append(seq[len(p):])
    return collate(prompts, responses)


def aligned_logits(model: TinyLM, batch: Batch) -> torch.Tensor:
    """(B, T, V): entry [b, t] is the model's distribution (as logits) of the token input_ids[b, t]; row t = 0,
    which nothing predicts, is zeros (it is never a response token)."""
    logits = model(batch.input_ids)
    return torch.cat([torch.zeros_like(logits[:, :1]), logits[:, :-1]], dim=1)


def next_token(logits: torch.Tensor, temperature: float, generator: torch.Generator) -> torch.Tensor:
    """One token per row from (B, V) logits: the argmax when temperature == 0, else one draw from
    softmax(logits / temperature) with `generator`. Returns (B,) int64."""
    if temperature == 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits.double() / temperature, dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(1)
