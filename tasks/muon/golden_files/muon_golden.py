"""Muon for the hidden weight matrices and AdamW for every other parameter, in one optimizer (Section 2 of
paper.md)."""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import torch


def orthogonalize(G: torch.Tensor, steps: int = 5, eps: float = 1e-7) -> torch.Tensor:
    """Newton-Schulz orthogonalisation of Eq. (2).

    Args:
        G: floating tensor of shape (..., m, n); every trailing (m, n) matrix is processed independently.
        steps: number of iterations N (0 gives the normalised input).
        eps: added to the Frobenius norm of each matrix in the normalisation of Eq. (2).

    Returns:
        A tensor of the shape and dtype of G, computed in G's dtype.

    Raises:
        ValueError: if G has fewer than 2 dimensions or steps < 0.
    """
    if G.ndim < 2:
        raise ValueError(f"orthogonalize needs a matrix or a batch of matrices, got shape {tuple(G.shape)}")
    if steps < 0:
        raise ValueError(f"steps must be >= 0, got {steps}")
    a, b, c = 3.4445, -4.7750, 2.0315
    transposed = G.shape[-2] > G.shape[-1]
    X = G.mT if transposed else G
    X = X / (torch.linalg.matrix_norm(X, keepdim=True) + eps)
    for _ in range(steps):
        A = X @ X.mT
        X = a * X + (b * A + c * (A @ A)) @ X
    return X.mT if transposed else X


class Muon(torch.optim.Optimizer):
    """Muon (Eqs. (1) to (4) of paper.md) for the groups with `use_muon` true, AdamW for the others.

    Every parameter group is a dict with `params` and a bool `use_muon`; any hyper-parameter of `__init__` may
    be overridden per group. Muon groups hold 2-D parameters only; the update of a parameter of shape (A, B)
    follows Section 2 of paper.md (Nesterov-style momentum when the group's `nesterov` is true, `ns_steps`
    Newton-Schulz iterations by `orthogonalize` with its default eps, update RMS matched to `rms_scale`).
    AdamW groups are updated exactly as `torch.optim.AdamW` (amsgrad and maximize off) would update them with
    the group's `lr`, `betas`, `eps` and `weight_decay`.

    State: `self.state[p]["momentum_buffer"]` is M_t of Eq. (1) for a Muon parameter (same shape and dtype as
    p). All per-parameter state lives in `self.state`, so that `state_dict` / `load_state_dict` resume a run
    exactly. Parameters whose `.grad` is None are skipped: neither they nor their state change.
    """

    def __init__(self, params: Iterable[dict[str, Any]], lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True, ns_steps: int = 5, rms_scale: float = 0.2,
                 betas: tuple[float, float] = (0.9, 0.95), eps: float = 1e-8) -> None:
        """
        Args:
            params: parameter groups, as `moonlet.grouping.param_groups` builds them.
            lr: learning rate eta_t, shared by Muon and AdamW groups.
            weight_decay: decoupled weight decay lambda.
            momentum: mu of Eq. (1).
            nesterov: Nesterov-style momentum (Section 2.1) for Muon groups.
            ns_steps: Newton-Schulz iterations N for Muon groups.
            rms_scale: the update RMS that Muon's updates are matched to (Section 2.2).
            betas, eps: AdamW's coefficients, for AdamW groups.

        Raises:
            ValueError: see `add_param_group`; also raised for out-of-range defaults.
        """
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_steps=ns_steps, rms_scale=rms_scale, betas=tuple(betas), eps=eps)
        self._check_hyperparameters(defaults)
        super().__init__(params, defaults)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group (called by `__init__` for each group, and usable later), filled from the defaults.

        Raises:
            ValueError: if the group has no bool `use_muon`; if a hyper-parameter is out of range (lr < 0,
                weight_decay < 0, momentum outside [0, 1), ns_steps < 1, rms_scale <= 0, a beta outside
                [0, 1), eps < 0); if a Muon group holds a parameter that is not 2-D.
        """
        if not isinstance(param_group, dict) or not isinstance(param_group.get("use_muon"), bool):
            raise ValueError("every parameter group needs a bool 'use_muon'")
        super().add_param_group(param_group)
        group = self.param_groups[-1]
        try:
            self._check_hyperparameters(group)
            if group["use_muon"]:
                for p in group["params"]:
                    if p.ndim != 2:
                        raise ValueError(f"Muon updates 2-D parameters only, got shape {tuple(p.shape)}")
        except ValueError:
            self.param_groups.pop()
            raise

    @staticmethod
    def _check_hyperparameters(group: dict[str, Any]) -> None:
        """Raise ValueError if a hyper-parameter of `group` (a filled group or the defaults) is out of range."""
        if group["lr"] < 0:
            raise ValueError(f"invalid learning rate {group['lr']}")
        if group["weight_decay"] < 0:
            raise ValueError(f"invalid weight_decay {group['weight_decay']}")
        if not 0.0 <= group["momentum"] < 1.0:
            raise ValueError(f"invalid momentum {group['momentum']}")
        if group["ns_steps"] < 1:
            raise ValueError(f"invalid ns_steps {group['ns_steps']}")
        if group["rms_scale"] <= 0:
            raise ValueError(f"invalid rms_scale {group['rms_scale']}")
        if not all(0.0 <= beta < 1.0 for beta in group["betas"]):
            raise ValueError(f"invalid betas {group['betas']}")
        if group["eps"] < 0:
            raise ValueError(f"invalid eps {group['eps']}")

    @torch.no_grad()
    def step(self, closure: Callable[[], torch.Tensor] | None = None) -> torch.Tensor | None:
        """One update of every parameter that has a gradient.

        Args:
            closure: re-evaluates the model and returns the loss (called with gradients enabled), or None.

        Returns:
            The closure's loss, or None.
        """
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            if group["use_muon"]:
                self._muon_group(group)
            else:
                self._adamw_group(group)
        return loss

    def _muon_group(self, group: dict[str, Any]) -> None:
        """Update every parameter of one group with `use_muon` true that has a gradient."""
        lr, decay, mu = group["lr"], group["weight_decay"], group["momentum"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = torch.zeros_like(p)
            buf = state["momentum_buffer"]
            buf.mul_(mu).add_(p.grad)
            update = p.grad.add(buf, alpha=mu) if group["nesterov"] else buf
            ortho = orthogonalize(update, group["ns_steps"])
            scale = group["rms_scale"] * math.sqrt(max(p.shape[0], p.shape[1]))
            p.mul_(1 - lr * decay)
            p.add_(ortho, alpha=-lr * scale)

    def _adamw_group(self, group: dict[str, Any]) -> None:
        """Update every parameter of one group with `use_muon` false that has a gradient."""
        lr, decay, eps = group["lr"], group["weight_decay"], group["eps"]
        beta1, beta2 = group["betas"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if not state:
                state["step"] = 0
                state["exp_avg"] = torch.zeros_like(p)
                state["exp_avg_sq"] = torch.zeros_like(p)
            state["step"] += 1
            t = state["step"]
            state["exp_avg"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
            state["exp_avg_sq"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
            p.mul_(1 - lr * decay)
            denom = (state["exp_avg_sq"].sqrt() / math.sqrt(1 - beta2**t)).add_(eps)
            p.addcdiv_(state["exp_avg"], denom, value=-lr / (1 - beta1**t))
