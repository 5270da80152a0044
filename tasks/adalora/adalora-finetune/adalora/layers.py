"""SVD-form low-rank adapter layer.

The frozen pre-trained map ``W`` is kept as it is and an incremental update is added in the form
``P diag(lambda) Q`` (see ``paper.md``, "Parameterisation"). The singular values ``lambda`` are what the
rank allocator prunes; ``P`` and ``Q`` are pushed towards orthogonality by ``adalora.regularizer``.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# Added to ``ranknum`` in the denominator of the adapter scaling, so that the division never blows up.
RANKNUM_EPS = 1e-5


class SVDLinear(nn.Module):
    """A frozen linear layer plus a trainable update ``P Lambda Q`` in SVD form.

    Args:
        in_features, out_features: sizes of the wrapped linear map.
        r: initial number of singular triplets. ``r == 0`` means no adapter (a plain frozen linear layer).
        lora_alpha: scaling numerator. ``self.scaling = lora_alpha`` if ``lora_alpha > 0`` else ``float(r)``.
        lora_dropout: dropout probability applied to the input of the adapter branch only.
        fan_in_fan_out: the frozen weight is stored transposed, as ``(in_features, out_features)``
            (the layout of GPT-2's ``Conv1D``).
        bias: whether the frozen layer has a bias.

    Tensors (all created here; only the three ``lora_*`` tensors are trainable):
        weight:  ``(out_features, in_features)``, or ``(in_features, out_features)`` if ``fan_in_fan_out``.
        bias:    ``(out_features,)`` or ``None``.
        lora_A:  ``(r, in_features)``  -- the right singular vectors ``Q`` (one per row).
        lora_E:  ``(r, 1)``            -- the singular values ``lambda`` (the diagonal of ``Lambda``).
        lora_B:  ``(out_features, r)`` -- the left singular vectors ``P`` (one per column).
        ranknum: 0-d float buffer holding the rank ``r`` used to normalise the update.
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        r: int = 0,
        lora_alpha: float = 1.0,
        lora_dropout: float = 0.0,
        fan_in_fan_out: bool = False,
        bias: bool = True,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.r = r
        self.lora_alpha = lora_alpha
        self.fan_in_fan_out = fan_in_fan_out
        self.scaling = lora_alpha if lora_alpha > 0 else float(r)

        shape = (in_features, out_features) if fan_in_fan_out else (out_features, in_features)
        self.weight = nn.Parameter(torch.empty(shape, dtype=dtype), requires_grad=False)
        if bias:
            self.bias = nn.Parameter(torch.empty(out_features, dtype=dtype), requires_grad=False)
        else:
            self.register_parameter("bias", None)

        self.lora_dropout: nn.Module = nn.Dropout(p=lora_dropout) if lora_dropout > 0 else nn.Identity()
        if r > 0:
            self.lora_A = nn.Parameter(torch.empty(r, in_features, dtype=dtype))
            self.lora_E = nn.Parameter(torch.empty(r, 1, dtype=dtype))
            self.lora_B = nn.Parameter(torch.empty(out_features, r, dtype=dtype))
            self.register_buffer("ranknum", torch.tensor(float(r), dtype=dtype))
        self.reset_parameters()

    @torch.no_grad()
    def reset_parameters(self) -> None:
        # The frozen part is initialised like nn.Linear; from_linear() overwrites it with pre-trained values.
        weight = self.weight.T if self.fan_in_fan_out else self.weight
        nn.init.kaiming_uniform_(weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1.0 / math.sqrt(self.in_features)
            nn.init.uniform_(self.bias, -bound, bound)
        if self.r > 0:
            # Lambda starts at zero, so the adapted model starts exactly at the pre-trained one;
            # P and Q start small and random so that their gradients are not all zero.
            nn.init.zeros_(self.lora_E)
            nn.init.normal_(self.lora_A, mean=0.0, std=0.02)
            nn.init.normal_(self.lora_B, mean=0.0, std=0.02)

    @classmethod
    def from_linear(cls, linear: nn.Linear, r: int, lora_alpha: float = 1.0, lora_dropout: float = 0.0) -> "SVDLinear":
        """Wrap a (pre-trained) ``nn.Linear``: copy its weight and bias, add a fresh adapter of rank ``r``."""
        layer = cls(
            linear.in_features,
            linear.out_features,
            r=r,
            lora_alpha=lora_alpha,
            lora_dropout=lora_dropout,
            bias=linear.bias is not None,
            dtype=linear.weight.dtype,
        )
        with torch.no_grad():
            layer.weight.copy_(linear.weight)
            if linear.bias is not None:
                layer.bias.copy_(linear.bias)
        return layer

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, r={self.r}, "
            f"scaling={self.scaling}, fan_in_fan_out={self.fan_in_fan_out}"
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Frozen linear map plus the scaled SVD-form update.

        Args:
            x: input of shape ``(*, in_features)`` (any number of leading dimensions, including none).

        Returns:
            Tensor of shape ``(*, out_features)``:

                W x + b + (dropout(x) (A * E)^T B^T) * scaling / (ranknum + RANKNUM_EPS)

            where ``W`` is the frozen weight as an ``(out_features, in_features)`` matrix (so the stored
            ``self.weight`` is transposed first when ``self.fan_in_fan_out`` is set), ``b`` the frozen bias
            (omitted when ``self.bias`` is None), ``A * E`` scales row ``i`` of ``lora_A`` by the singular value
            ``lora_E[i]``, ``dropout`` is ``self.lora_dropout`` and is applied to the adapter branch only, and
            ``scaling`` / ``ranknum`` are ``self.scaling`` / ``self.ranknum``. When ``self.r == 0`` the layer
            has no adapter and returns ``W x + b``. The layer's tensors are not modified.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError
