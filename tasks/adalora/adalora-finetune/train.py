"""Fine-tune the adapters of a tiny encoder with AdaLoRA's budget allocation (a few steps, CPU)."""

from __future__ import annotations

import argparse

import torch
import torch.nn.functional as F

from adalora.allocator import RankAllocator
from adalora.data import make_batch
from adalora.model import EncoderClassifier, ModelConfig
from adalora.regularizer import orthogonal_regularization
from adalora.utils import count_trainable, effective_ranks, mark_only_adapters_trainable
from evaluate import accuracy, rank_report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=5e-3)
    parser.add_argument("--target-rank", type=int, default=2)
    parser.add_argument("--orth-reg", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    cfg = ModelConfig()
    model = EncoderClassifier(cfg)
    mark_only_adapters_trainable(model, extra_trainable=("head.",))
    print(f"trainable parameters: {count_trainable(model)}")

    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr)
    allocator = RankAllocator(
        model,
        target_rank=args.target_rank,
        init_warmup=args.steps // 5,
        final_warmup=args.steps // 5,
        mask_interval=2,
        total_step=args.steps,
    )
    gen = torch.Generator().manual_seed(args.seed)
    for step in range(1, args.steps + 1):
        tokens, pad_mask, labels = make_batch(args.batch_size, cfg.max_len, cfg.vocab_size, gen)
        task_loss = F.cross_entropy(model(tokens, pad_mask), labels)
        loss = task_loss + args.orth_reg * orthogonal_regularization(model)
        loss.backward()
        optimizer.step()
        budget, threshold = allocator.update_and_allocate(model, step)
        optimizer.zero_grad(set_to_none=True)
        if step % 10 == 0 or step == 1:
            total_rank = sum(effective_ranks(model).values())
            print(f"step {step:3d}  loss {task_loss.item():.4f}  budget {budget:3d}  total rank {total_rank:3d}")
    print(f"accuracy: {accuracy(model):.3f}")
    print(rank_report(model))


if __name__ == "__main__":
    main()
