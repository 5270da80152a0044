"""EM-RL on a tiny LM: sample a group of responses per prompt, reward them by their negative entropy, RLOO."""
from __future__ import annotations

import torch

from emr.config import ModelConfig, RLConfig
from emr.entropy import em_rl_loss, entropy_rewards, rloo_advantages
from emr.model import TinyLM
from emr.sampling import aligned_logits, sample_groups


def main() -> None:
    torch.manual_seed(0)
    mcfg, cfg = ModelConfig(), RLConfig()
    model = TinyLM(mcfg)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    g = torch.Generator().manual_seed(2)
    for step in range(cfg.steps):
        prompts = torch.randint(1, mcfg.vocab_size, (3, 3), generator=g).tolist()
        batch = sample_groups(model, prompts, cfg.group_size, cfg.sampling, g)
        logits = aligned_logits(model, batch)
        rewards = entropy_rewards(logits, batch.input_ids, batch.response_mask, cfg.reward)
        adv = rloo_advantages(rewards, cfg.group_size)
        loss = em_rl_loss(logits, batch.input_ids, batch.response_mask, adv, cfg.loss_agg_mode)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f}  mean reward {rewards.mean().item():.4f}")


if __name__ == "__main__":
    main()
