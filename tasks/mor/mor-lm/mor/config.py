"""Configuration of a tiny Mixture-of-Recursions language model."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class MoRConfig:
    vocab_size: int = 32
    d_model: int = 16
    n_heads: int = 2
    d_ff: int = 32
    n_layers: int = 2            # layers in the shared recursion block (reused at every recursion step)
    n_recursions: int = 3        # N_r: the largest number of recursion steps a token can take
    routing: str = "expert"      # "expert" (expert-choice) or "token" (token-choice)
    sharing: str = "cycle"       # "cycle" or "middle_cycle" (unique first and last layers around the recursion)
    router_alpha: float = 1.0    # alpha: scale of the router weight that multiplies the block's update
    kv_sharing: bool = False     # recursive KV sharing: every step reuses the first recursion's keys/values
    causal_fix: str = "aux_loss" # expert-choice inference: "aux_loss" (main router) or "aux_router" (separate MLP)
    aux_router_hidden: int = 8   # hidden width of the auxiliary router's MLP
    aux_coef: float = 0.01       # weight of the expert-choice auxiliary (BCE) loss
    balance_coef: float = 0.01   # weight of the token-choice balancing loss
    z_coef: float = 1e-3         # weight of the token-choice router z-loss
    rope_base: float = 10000.0
    norm_eps: float = 1e-6

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads:
            raise ValueError("d_model must be divisible by n_heads")
        if self.routing not in ("expert", "token"):
            raise ValueError(f"unknown routing {self.routing!r}")
        if self.causal_fix not in ("aux_loss", "aux_router"):
            raise ValueError(f"unknown causal_fix {self.causal_fix!r}")
        if self.sharing not in ("cycle", "middle_cycle"):
            raise ValueError(f"unknown sharing {self.sharing!r}")
        if self.n_recursions < 1 or self.n_layers < 1:
            raise ValueError("n_recursions and n_layers must be >= 1")

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads
