"""Train a tiny TimeMixer for a few steps on a synthetic series and report validation metrics."""

import argparse

import torch

from evaluate import evaluate, validation_windows
from timemixer import TimeMixer, TimeMixerConfig
from timemixer.data import sliding_windows, synthetic_series, train_val_split


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-2)
    args = parser.parse_args()

    torch.manual_seed(0)
    cfg = TimeMixerConfig()
    series = synthetic_series(400, cfg.n_vars, seed=0)
    train, _ = train_val_split(series)
    x_train, y_train = sliding_windows(train, cfg.seq_len, cfg.pred_len)
    x_val, y_val = validation_windows(cfg)

    model = TimeMixer(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    print("before:", evaluate(model, x_val, y_val))
    for step in range(args.steps):
        model.train()
        idx = torch.randint(0, x_train.shape[0], (args.batch_size,))
        loss = torch.nn.functional.mse_loss(model(x_train[idx]), y_train[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step:3d}  train mse {loss.item():.4f}")
    print("after:", evaluate(model, x_val, y_val))


if __name__ == "__main__":
    main()
