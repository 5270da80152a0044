"""Hyper-parameters of the TimeMixer forecaster."""

from dataclasses import dataclass


@dataclass
class TimeMixerConfig:
    seq_len: int = 32  # length of the look-back window
    pred_len: int = 8  # forecast horizon
    n_vars: int = 3  # number of variates; each is modelled independently
    d_model: int = 16  # width of the per-time-step embedding
    d_ff: int = 32  # hidden width of the feed-forward layer of a PDM block
    e_layers: int = 2  # number of stacked PDM blocks
    down_sampling_layers: int = 2  # M: number of down-sampling steps (M + 1 scales)
    down_sampling_window: int = 2  # average-pooling window and stride between scales
    moving_avg: int = 5  # kernel size of the trend-extracting moving average (odd)
    dropout: float = 0.0
    use_norm: bool = True  # reversible instance normalisation of the input window

    def scale_lengths(self) -> list[int]:
        """Length T_m of every scale, finest first."""
        w = self.down_sampling_window
        return [self.seq_len // w**m for m in range(self.down_sampling_layers + 1)]
