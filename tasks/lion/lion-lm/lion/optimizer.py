"""The Lion optimizer (EvoLved Sign Momentum).

Lion keeps a single moving average of the gradients per parameter and moves every coordinate by the same
amount, the learning rate, in the direction given by the sign of an interpolation between that average and
the current gradient. See ``paper.md`` for the algorithm.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch.optim import Optimizer


class Lion(Optimizer):
    """Lion with decoupled weight decay.

    Args:
        params: parameters or parameter groups (dicts), as for any ``torch.optim.Optimizer``.
        lr: learning rate (step size of every coordinate). Typically 3-10x smaller than AdamW's.
        betas: ``(beta1, beta2)``: ``beta1`` interpolates the update direction, ``beta2`` is the decay of the
            moving average kept in the state.
        weight_decay: decoupled weight decay coefficient ``lambda`` (typically 3-10x larger than AdamW's).

    State per parameter: ``self.state[p]["exp_avg"]``, the moving average ``m`` of the gradients (same shape
    and dtype as ``p``), created as zeros the first time ``p`` has a gradient.
    """

    def __init__(
        self,
        params: Iterable[torch.Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-4,
        betas: tuple[float, float] = (0.9, 0.99),
        weight_decay: float = 0.0,
    ) -> None:
        if lr <= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not (0.0 <= betas[0] <= 1.0 and 0.0 <= betas[1] <= 1.0):
            raise ValueError(f"Invalid betas: {betas}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure: Callable[[], torch.Tensor] | None = None) -> torch.Tensor | None:
        """Apply one Lion update to every parameter that has a gradient.

        If ``closure`` is given it is called first, with gradients enabled, and its return value (the loss)
        is returned; otherwise ``None`` is returned. Then, for each parameter group (hyper-parameters
        ``lr``, ``betas = (beta1, beta2)``, ``weight_decay``) and each parameter ``p`` in it whose ``p.grad`` is
        not None (parameters without a gradient are left completely untouched, and get no state), with
        ``g = p.grad`` and ``m = self.state[p]["exp_avg"]`` (zeros at the first update):

            c = beta1 * m + (1 - beta1) * g
            p = p * (1 - lr * weight_decay) - lr * sign(c)       (decay uses p before this step)
            m = beta2 * m + (1 - beta2) * g                      (stored back in the state)

        ``sign(0) = 0``. All updates are in place; ``p.grad`` is not modified.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError
