"""Train the tiny HRM on a toy task (sort a short sequence of digits) with deep supervision and ACT."""
import torch

from hrmlet.config import HRMConfig
from hrmlet.hrm import train_batch
from hrmlet.model import HRMNet


def make_batch(cfg: HRMConfig, batch: int, generator: torch.Generator):
    x = torch.randint(0, cfg.vocab_size, (batch, cfg.seq_len), generator=generator)
    return x, x.sort(dim=1).values


def main(steps: int = 5, batch: int = 8):
    cfg = HRMConfig()
    torch.manual_seed(cfg.seed)
    net = HRMNet(cfg)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(cfg.seed)
    for step in range(steps):
        x, y = make_batch(cfg, batch, gen)
        losses = train_batch(net, opt, x, y, gen)
        print(f"step {step}: segments={len(losses)} loss={losses[-1]:.4f}")


if __name__ == "__main__":
    main()
