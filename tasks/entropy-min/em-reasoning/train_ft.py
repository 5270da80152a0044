"""EM-FT on a tiny LM: sample responses to random prompts, then minimise their token entropy."""
from __future__ import annotations

import torch

from emr.config import FTConfig, ModelConfig
from emr.entropy import em_ft_loss, token_entropy
from emr.model import TinyLM
from emr.sampling import aligned_logits, sample_groups


def main() -> None:
    torch.manual_seed(0)
    mcfg, cfg = ModelConfig(), FTConfig()
    model = TinyLM(mcfg)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    g = torch.Generator().manual_seed(1)
    for step in range(cfg.steps):
        prompts = torch.randint(1, mcfg.vocab_size, (4, 3), generator=g).tolist()
        batch = sample_groups(model, prompts, cfg.samples_per_prompt, cfg.sampling, g)
        logits = aligned_logits(model, batch)
        loss = em_ft_loss(logits, batch.response_mask, cfg.loss_agg_mode)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            h = token_entropy(logits)[batch.response_mask].mean()
        print(f"step {step}: loss {loss.item():.4f}  mean token entropy {h.item():.4f}")


if __name__ == "__main__":
    main()
