"""Greedy generation with the recursion-wise KV cache, checked against the full-sequence forward."""
from __future__ import annotations

import argparse

import torch

from mor.config import MoRConfig
from mor.model import MoRModel
from train import train


@torch.no_grad()
def generate(model: MoRModel, prompt: torch.Tensor, n_new: int):
    """prompt: (B, T0). Prefills the cache with the prompt, then decodes n_new greedy tokens one at a time.

    Returns the ids (B, T0 + n_new) and the number of recursion steps each token took (B, T0 + n_new).
    """
    b, t0 = prompt.shape
    cache = model.new_cache(b, t0 + n_new)
    full, info = model.prefill(prompt, cache)
    ids, depths = prompt, list(info["selected"].sum(dim=1).unbind(dim=1))
    logits = full[:, -1]
    for _ in range(n_new):
        nxt = logits.argmax(dim=-1)
        ids = torch.cat([ids, nxt[:, None]], dim=1)
        logits, sel = model.step(cache, nxt)
        depths.append(sel.sum(dim=1))
    return ids, torch.stack(depths, dim=1)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--routing", default="expert", choices=["expert", "token"])
    p.add_argument("--kv-sharing", action="store_true")
    a = p.parse_args()
    cfg = MoRConfig(routing=a.routing, kv_sharing=a.kv_sharing)
    model, _ = train(cfg, steps=10)
    prompt = torch.tensor([[1, 2, 3, 4], [7, 8, 9, 10]])
    ids, depths = generate(model, prompt, 6)
    full, info = model(ids[:, :-1], mode="threshold")
    print("ids", ids.tolist())
    print("recursion depth per token", depths.tolist())
    print("full-sequence depths     ", info["selected"].sum(dim=1).tolist())
    print("greedy agrees with full forward:", bool((full.argmax(-1)[:, 3:] == ids[:, 4:]).all()))


if __name__ == "__main__":
    main()
