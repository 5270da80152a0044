"""Budget scheduling and importance-based pruning of singular values (AdaLoRA's rank allocator).

Call ``update_and_allocate(model, step)`` after ``loss.backward()`` and ``optimizer.step()`` and before
``optimizer.zero_grad()``: it refreshes the smoothed importance of every adapter entry from the current
gradients, and at the masking steps sets the least important singular values to zero, so that at most
``budget`` singular triplets remain in the whole model.
"""

from __future__ import annotations

import torch
import torch.nn as nn

from adalora.utils import lora_parameters, svd_layers


class RankAllocator:
    """Keeps the importance statistics of every adapter entry and prunes triplets to the budget.

    Args:
        model: the model holding the SVDLinear layers (used only to count the triplets).
        target_rank: average rank per layer wanted at the end; the final budget is
            ``target_rank * number_of_svd_layers``.
        init_warmup: steps before the first pruning (the budget stays at the initial total rank).
        final_warmup: last steps during which the budget stays at its final value and the importance
            statistics are no longer updated.
        mask_interval: prune every ``mask_interval`` steps while the budget is decreasing.
        total_step: total number of training steps.
        beta1: smoothing factor of the exponential moving average of the sensitivity.
        beta2: smoothing factor of the exponential moving average of the uncertainty.

    State (dictionaries keyed by parameter name, as in ``model.named_parameters()``, one entry per
    ``lora_A`` / ``lora_E`` / ``lora_B`` tensor, each a tensor of the parameter's shape):
        ipt:          the latest sensitivity ``I``.
        exp_avg_ipt:  the smoothed sensitivity ``I_bar``.
        exp_avg_unc:  the smoothed uncertainty ``U_bar``.
    """

    def __init__(
        self,
        model: nn.Module,
        target_rank: int,
        init_warmup: int,
        final_warmup: int,
        mask_interval: int,
        total_step: int,
        beta1: float = 0.85,
        beta2: float = 0.85,
    ) -> None:
        if not (0.0 <= beta1 < 1.0 and 0.0 <= beta2 < 1.0):
            raise ValueError("beta1 and beta2 must be in [0, 1)")
        if init_warmup + final_warmup >= total_step:
            raise ValueError("init_warmup + final_warmup must be smaller than total_step")
        layers = list(svd_layers(model))
        self.init_bgt = sum(module.r for _, module in layers)
        self.target_bgt = target_rank * len(layers)
        self.init_warmup = init_warmup
        self.final_warmup = final_warmup
        self.mask_interval = mask_interval
        self.total_step = total_step
        self.beta1 = beta1
        self.beta2 = beta2
        self.ipt: dict[str, torch.Tensor] = {}
        self.exp_avg_ipt: dict[str, torch.Tensor] = {}
        self.exp_avg_unc: dict[str, torch.Tensor] = {}

    def budget_schedule(self, step: int) -> tuple[int, bool]:
        """Cubic budget decay: ``(budget, whether to prune at this step)``."""
        decay_end = self.total_step - self.final_warmup
        if step <= self.init_warmup:
            return self.init_bgt, False
        if step > decay_end:
            return self.target_bgt, True
        remaining = 1.0 - (step - self.init_warmup) / (decay_end - self.init_warmup)
        budget = int(self.target_bgt + (self.init_bgt - self.target_bgt) * remaining**3)
        return budget, step % self.mask_interval == 0

    @torch.no_grad()
    def update_ipt(self, model: nn.Module) -> None:
        """Refresh the importance statistics of every adapter tensor from its current gradient.

        For each ``(name, p)`` in ``adalora.utils.lora_parameters(model)`` whose ``p.grad`` is not None
        (tensors without a gradient are skipped and their statistics left unchanged), element-wise:

            I     = |p * p.grad|                                   (sensitivity)
            I_bar = beta1 * I_bar + (1 - beta1) * I                (smoothed sensitivity)
            U_bar = beta2 * U_bar + (1 - beta2) * |I - I_bar|      (uncertainty, using the NEW I_bar)

        ``I_bar`` and ``U_bar`` start at zero the first time a tensor is seen. The results are stored
        (detached, same shape as ``p``) in ``self.ipt[name]``, ``self.exp_avg_ipt[name]`` and
        ``self.exp_avg_unc[name]``. Parameters and gradients are not modified.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    @torch.no_grad()
    def mask_to_budget(self, model: nn.Module, budget: int) -> float | None:
        """Zero the singular values of the least important triplets so that ``budget`` triplets survive.

        The importance of an entry is ``s = I_bar * U_bar`` (from ``self.exp_avg_ipt`` / ``self.exp_avg_unc``,
        which hold every adapter tensor of ``model``). The score of triplet ``i`` of a layer is

            S_i = s(lora_E[i, 0]) + mean_j s(lora_A[i, j]) + mean_j s(lora_B[j, i])

        (row ``i`` of ``lora_A``, column ``i`` of ``lora_B``). Scores of all layers
        (``adalora.utils.svd_layers(model)``) are ranked together. With ``n`` triplets in total: if
        ``budget >= n`` nothing is pruned and ``None`` is returned; otherwise ``threshold`` is the
        ``(n - budget)``-th smallest score (1-based), every triplet with ``S_i <= threshold`` gets
        ``lora_E[i, 0] = 0`` (in place; ``lora_A`` / ``lora_B`` are left untouched), and
        ``threshold`` is returned as a Python float.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def update_and_allocate(self, model: nn.Module, global_step: int) -> tuple[int, float | None]:
        """One allocation step: update importance (outside the final warm-up) and prune when scheduled."""
        budget, prune_now = self.budget_schedule(global_step)
        if global_step <= self.total_step - self.final_warmup:
            self.update_ipt(model)
        threshold = self.mask_to_budget(model, budget) if prune_now else None
        return budget, threshold
