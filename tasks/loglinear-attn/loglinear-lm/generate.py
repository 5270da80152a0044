"""Greedy continuation with the level-state cache (one chunkwise prefill, then one token at a time), and a
comparison of the three forms of log-linear attention on random inputs.

    python generate.py --new-tokens 8
"""
from __future__ import annotations

import argparse

import torch

from loglin.cache import LevelCache
from loglin.config import ModelConfig
from loglin.data import copy_batch
from loglin.loglinear import chunk_loglinear_attention, loglinear_attention, loglinear_step
from loglin.model import LogLinearLM
from train import build


@torch.no_grad()
def greedy_generate(model: LogLinearLM, ids: torch.Tensor, new_tokens: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Continue prompts greedily. Returns the new ids (B, new_tokens) and their logits (B, new_tokens, vocab)."""
    cache = LevelCache()
    logits = model(ids, cache=cache)[:, -1]
    chosen, all_logits = [], []
    for _ in range(new_tokens):
        nxt = logits.argmax(-1, keepdim=True)
        chosen.append(nxt)
        all_logits.append(logits)
        logits = model(nxt, cache=cache)[:, -1]
    return torch.cat(chosen, dim=1), torch.stack(all_logits, dim=1)


@torch.no_grad()
def compare_forms(T: int = 13, chunk_size: int = 4, num_levels: int = 5, seed: int = 0) -> dict[str, float]:
    """Largest absolute differences between the quadratic, chunkwise and recurrent forms (float64)."""
    g = torch.Generator().manual_seed(seed)
    B, H, K, V = 2, 2, 3, 4
    q, k = torch.randn(2, B, T, H, K, generator=g, dtype=torch.float64)
    v = torch.randn(B, T, H, V, generator=g, dtype=torch.float64)
    log_a = -torch.rand(B, T, H, generator=g, dtype=torch.float64)
    lam = torch.rand(B, T, H, num_levels, generator=g, dtype=torch.float64)
    o_quad = loglinear_attention(q, k, v, log_a, lam)
    o_chunk, final = chunk_loglinear_attention(q, k, v, log_a, lam, chunk_size, output_final_state=True)
    states = q.new_zeros(B, H, num_levels, K, V)
    outs = []
    for t in range(T):
        o_t, states = loglinear_step(q[:, t], k[:, t], v[:, t], log_a[:, t], lam[:, t], states, t)
        outs.append(o_t)
    o_rec = torch.stack(outs, 1)
    return {"chunk_vs_quadratic": (o_chunk - o_quad).abs().max().item(),
            "recurrent_vs_quadratic": (o_rec - o_quad).abs().max().item(),
            "final_states": (final - states).abs().max().item()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--new-tokens", type=int, default=8)
    args = parser.parse_args()
    print(compare_forms())
    model = build(ModelConfig())
    ids = copy_batch(2, 5, model.cfg.vocab_size, torch.Generator().manual_seed(0))
    tokens, _ = greedy_generate(model, ids, args.new_tokens)
    print(tokens)


if __name__ == "__main__":
    main()
