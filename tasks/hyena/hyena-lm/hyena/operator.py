"""The Hyena operator and the FFT-based causal long convolution it relies on."""

import torch
from torch import Tensor, nn

from hyena.filters import HyenaFilter


def fft_causal_conv(u: Tensor, h: Tensor) -> Tensor:
    """Causal (linear, not circular) convolution of each channel of ``u`` with its own filter, by FFT.

    Args:
        u: signal, shape (..., D, L): any leading batch dimensions, D channels, length L.
        h: filters, shape (D, L_h), one per channel; L_h may be shorter or longer than L (taps at
            lags >= L cannot reach any output).

    Returns:
        y of shape (..., D, L) and u's dtype, with ``y[..., c, t] = sum_{s=0}^{t} h[c, t - s] * u[..., c, s]``
        (filter taps beyond L_h count as zero).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


class HyenaOperator(nn.Module):
    """Order-N Hyena operator over sequences of shape (batch, L, d_model).

    ``in_proj`` produces (N + 1) * d_model channels, which ``short_filter`` (a depthwise convolution
    padded by ``short_filter_size - 1`` on both sides) mixes over a few neighbouring steps. ``filter(L)``
    returns the long filters ``h`` (N, d_model, L) and skip biases ``bias`` (N, d_model).
    """

    def __init__(
        self,
        d_model: int,
        l_max: int,
        order: int = 2,
        filter_order: int = 32,
        short_filter_size: int = 3,
        **filter_kwargs,
    ):
        super().__init__()
        self.d_model, self.order, self.l_max = d_model, order, l_max
        width = (order + 1) * d_model
        self.in_proj = nn.Linear(d_model, width)
        self.short_filter = nn.Conv1d(
            width, width, kernel_size=short_filter_size, groups=width, padding=short_filter_size - 1
        )
        self.filter = HyenaFilter(d_model, order, l_max, filter_order=filter_order, **filter_kwargs)
        self.out_proj = nn.Linear(d_model, d_model)

    def forward(self, u: Tensor) -> Tensor:
        """Apply the operator to u of shape (batch, L, d_model); returns (batch, L, d_model).

        Steps: project to (N + 1) * d_model channels; apply the short depthwise convolution causally
        (output at t uses inputs at t, t-1, ...); split the channels, in this order, into
        v, x^1, ..., x^N (d_model channels each); then z^1 = v and, for n = 1..N,
        z^{n+1} = x^n * (h^n * z^n + bias^n * z^n), where h^n * z^n is the causal long convolution
        (``fft_causal_conv``) with ``h[n - 1]`` and bias^n = ``bias[n - 1]`` scales each channel;
        finally ``out_proj`` of z^{N+1}. The output at position t depends only on u[:, :t + 1].
        """
        # TODO: implement (see the method description).
        raise NotImplementedError
