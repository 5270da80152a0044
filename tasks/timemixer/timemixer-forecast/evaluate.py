"""Evaluate a TimeMixer forecaster on the validation windows of a synthetic series."""

import torch

from timemixer import TimeMixer, TimeMixerConfig
from timemixer.data import sliding_windows, synthetic_series, train_val_split
from timemixer.metrics import mae, mse


@torch.no_grad()
def evaluate(model: TimeMixer, inputs: torch.Tensor, targets: torch.Tensor) -> dict[str, float]:
    model.eval()
    pred = model(inputs)
    return {"mse": mse(pred, targets), "mae": mae(pred, targets)}


def validation_windows(cfg: TimeMixerConfig, length: int = 400, seed: int = 0):
    series = synthetic_series(length, cfg.n_vars, seed=seed)
    _, val = train_val_split(series)
    return sliding_windows(val, cfg.seq_len, cfg.pred_len)


def main() -> None:
    torch.manual_seed(0)
    cfg = TimeMixerConfig()
    model = TimeMixer(cfg)
    x, y = validation_windows(cfg)
    print("untrained:", evaluate(model, x, y))


if __name__ == "__main__":
    main()
