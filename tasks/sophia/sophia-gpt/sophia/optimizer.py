"""SophiaG: a clipped, diagonally pre-conditioned optimizer with a Gauss-Newton-Bartlett Hessian estimate.

Usage (see ``train.py``): call ``step()`` after every ``loss.backward()``; every ``k`` steps, additionally
back-propagate the loss on labels *sampled from the model* and call ``update_hessian(batch_size)``, which turns
those gradients into a diagonal Hessian estimate and folds it into a moving average.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch.optim import Optimizer


class SophiaG(Optimizer):
    """Sophia with the Gauss-Newton-Bartlett (GNB) estimator and decoupled weight decay.

    Args:
        params: parameters or parameter groups, as for any ``torch.optim.Optimizer``.
        lr: learning rate ``eta``; it bounds the change of every coordinate in one step (before decay).
        betas: ``(beta1, beta2)``: decay of the gradient moving average and of the Hessian moving average.
        rho: the scale ``rho`` (``gamma`` in the paper) applied to the Hessian estimate in the denominator.
        weight_decay: decoupled weight decay ``lambda``.
        eps: floor ``epsilon`` of the denominator.

    State per parameter (created as zeros by ``_state`` the first time it is needed, same shape as ``p``):
        ``exp_avg``: moving average ``m`` of the gradients.
        ``hessian``: moving average ``h`` of the diagonal Hessian estimates.
    """

    def __init__(
        self,
        params: Iterable[torch.Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-4,
        betas: tuple[float, float] = (0.965, 0.99),
        rho: float = 0.04,
        weight_decay: float = 1e-1,
        eps: float = 1e-15,
    ) -> None:
        if lr <= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"Invalid betas: {betas}")
        if rho < 0.0 or weight_decay < 0.0 or eps <= 0.0:
            raise ValueError("rho and weight_decay must be >= 0 and eps > 0")
        super().__init__(params, dict(lr=lr, betas=betas, rho=rho, weight_decay=weight_decay, eps=eps))

    def _state(self, p: torch.Tensor) -> dict[str, torch.Tensor]:
        state = self.state[p]
        if len(state) == 0:
            state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["hessian"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        return state

    @torch.no_grad()
    def update_hessian(self, batch_size: int) -> None:
        """Fold a GNB diagonal Hessian estimate into the Hessian moving average.

        Must be called right after back-propagating the loss computed with labels sampled from the model's
        own predictive distribution, averaged over ``batch_size`` terms, so that ``p.grad`` holds the gradient
        ``g_hat`` of that sampled-label loss. For each group (``betas = (beta1, beta2)``) and each parameter
        ``p`` with ``p.grad`` not None (others are skipped), element-wise:

            h_hat = batch_size * g_hat * g_hat        (GNB estimate of the Hessian diagonal)
            h     = beta2 * h + (1 - beta2) * h_hat   (in place in self.state[p]["hessian"])

        Nothing else (parameters, gradients, ``exp_avg``) is modified.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    @torch.no_grad()
    def step(self, closure: Callable[[], torch.Tensor] | None = None) -> torch.Tensor | None:
        """Apply one SophiaG update to every parameter that has a gradient.

        If ``closure`` is given it is called first, with gradients enabled, and its loss is returned;
        otherwise ``None`` is returned. For each group (``lr``, ``betas = (beta1, beta2)``, ``rho``,
        ``weight_decay``, ``eps``) and each parameter ``p`` with ``p.grad`` not None (others are left
        untouched), with ``g = p.grad`` and the state ``m = exp_avg``, ``h = hessian`` (zeros at first), in
        this order and element-wise:

            m = beta1 * m + (1 - beta1) * g                       (stored back in the state)
            p = p * (1 - lr * weight_decay)                       (decoupled weight decay)
            p = p - lr * clip(m / max(rho * h, eps), -1, 1)       (clip(z, -1, 1) = min(max(z, -1), 1))

        ``h`` is only read here (it changes only in ``update_hessian``). ``p.grad`` is not modified.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError
