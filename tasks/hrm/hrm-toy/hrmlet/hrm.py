"""HRM forward pass with the one-step gradient, and deep supervision with adaptive computation time."""
import torch
import torch.nn.functional as F

from .model import HRMNet, exact_match, sample_min_segments


def hrm_forward(net: HRMNet, z_h: torch.Tensor, z_l: torch.Tensor, x: torch.Tensor):
    """One HRM forward pass of N high-level cycles of T low-level steps each (cfg.n_cycles, cfg.t_steps).

    Args:
        net: the network; its `low`, `high`, `input_embedding`, `head` and `q_values` are used.
        z_h, z_l: (B, S, d) float states entering the pass.
        x: (B, S) int64 input tokens.
    Returns:
        (z_h, z_l, logits, q): the final states (B, S, d), output logits (B, S, V) and Q logits (B, 2).
    Raises:
        ValueError: if n_cycles or t_steps is smaller than 1.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def act_segment(net: HRMNet, z_h: torch.Tensor, z_l: torch.Tensor, x: torch.Tensor, y: torch.Tensor,
                segment: int, min_segments: torch.Tensor):
    """One deep-supervision segment with the ACT halting decision and the Q-learning loss.

    Args:
        z_h, z_l: (B, S, d) detached states from the previous segment. x, y: (B, S) int64 inputs and targets.
        segment: the 1-based index m of this segment. min_segments: (B,) int64 M_min per sequence.
    Returns:
        dict with "loss" (scalar: mean token cross-entropy + mean BCE of the two Q logits against their targets),
        "halt" (B,) bool, "q_target" (B, 2) float, "z_h", "z_l" (detached new states), "logits", "q".
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def train_batch(net: HRMNet, optimizer: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor,
                generator: torch.Generator) -> list[float]:
    """Deep supervision over segments m = 1..M_max for one batch, one optimizer step per segment, stopping
    after the first segment whose halting decision (`act_segment`'s "halt") is true for every sequence at once;
    every sequence of the batch takes part in each segment that is run, and a sequence that halted in an earlier
    segment is decided again (nothing is carried over from earlier decisions). The states start from `net.initial_state`. M_min is drawn once per batch with `sample_min_segments(..., generator)`.
    Returns the list of segment losses (floats)."""
    # TODO: implement (see the method description).
    raise NotImplementedError
