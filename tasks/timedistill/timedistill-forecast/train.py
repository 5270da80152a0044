"""Train a Transformer teacher for a few steps, then distill it into the multi-scale MLP student."""

from __future__ import annotations

import argparse

import torch
import torch.nn.functional as F

from evaluate import evaluate
from timedistill.data import make_series, windows
from timedistill.losses import DistillConfig, distillation_loss
from timedistill.models.student import MultiScaleMLP
from timedistill.models.teacher import PatchTransformer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lookback", type=int, default=48)
    parser.add_argument("--horizon", type=int, default=24)
    parser.add_argument("--channels", type=int, default=3)
    parser.add_argument("--teacher-steps", type=int, default=40)
    parser.add_argument("--student-steps", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    series, marks = make_series(2000, args.channels, gen)
    cfg = DistillConfig()

    teacher = PatchTransformer(args.lookback, args.horizon)
    opt = torch.optim.Adam(teacher.parameters(), lr=3e-3)
    for step in range(args.teacher_steps):
        x, y, _, _ = windows(series, marks, args.lookback, args.horizon, args.batch_size, gen)
        loss = F.mse_loss(teacher(x)[0], y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    teacher.eval().requires_grad_(False)
    print("teacher:", evaluate(teacher, series, marks, args.lookback, args.horizon))

    student = MultiScaleMLP(args.lookback, args.horizon, num_scales=cfg.num_scales, window=cfg.window,
                            n_mark=marks.shape[-1])
    opt = torch.optim.Adam(student.parameters(), lr=3e-3)
    for step in range(1, args.student_steps + 1):
        x, y, x_mark, _ = windows(series, marks, args.lookback, args.horizon, args.batch_size, gen)
        with torch.no_grad():
            t_pred, t_hidden = teacher(x)
        s_pred, s_hidden = student(x, x_mark)
        losses = distillation_loss(s_pred, s_hidden, t_pred, t_hidden, y, cfg)
        opt.zero_grad()
        losses["total"].backward()
        opt.step()
        if step == 1 or step % 10 == 0:
            print(f"step {step:3d}  " + "  ".join(f"{k} {v.item():.4f}" for k, v in losses.items()))
    print("student:", evaluate(student, series, marks, args.lookback, args.horizon, use_marks=True))


if __name__ == "__main__":
    main()
