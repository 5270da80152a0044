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
    n, t = net.cfg.n_cycles, net.cfg.t_steps
    if n < 1 or t < 1:
        raise ValueError("n_cycles and t_steps must be >= 1")
    x_emb = net.input_embedding(x)
    with torch.no_grad():
        for i in range(1, n * t):
            z_l = net.low(z_l, z_h, x_emb)
            if i % t == 0:
                z_h = net.high(z_h, z_l)
    z_l = net.low(z_l, z_h, x_emb)
    z_h = net.high(z_h, z_l)
    return z_h, z_l, net.head(z_h), net.q_values(z_h)


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
    max_seg = net.cfg.max_segments
    z_h, z_l, logits, q = hrm_forward(net, z_h, z_l, x)
    with torch.no_grad():
        q_prob = torch.sigmoid(q)
        halt = (segment >= max_seg) | ((q_prob[:, 0] > q_prob[:, 1]) & (segment >= min_segments))
        _, _, _, q_next = hrm_forward(net, z_h.detach(), z_l.detach(), x)
        q_next = torch.sigmoid(q_next)
        g_halt = exact_match(logits, y).to(q.dtype)
        if segment >= max_seg:
            g_cont = q_next[:, 0]
        else:
            g_cont = torch.maximum(q_next[:, 0], q_next[:, 1])
        target = torch.stack([g_halt, g_cont], dim=1)
    lm = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
    loss = lm + F.binary_cross_entropy_with_logits(q, target)
    return {"loss": loss, "halt": halt, "q_target": target, "z_h": z_h.detach(), "z_l": z_l.detach(),
            "logits": logits, "q": q}


def train_batch(net: HRMNet, optimizer: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor,
                generator: torch.Generator) -> list[float]:
    """Deep supervision over segments m = 1..M_max for one batch, one optimizer step per segment, stopping
    after the first segment whose halting decision (`act_segment`'s "halt") is true for every sequence at once;
    every sequence of the batch takes part in each segment that is run, and a sequence that halted in an earlier
    segment is decided again (nothing is carried over from earlier decisions). The states start from `net.initial_state`. M_min is drawn once per batch with `sample_min_segments(..., generator)`.
    Returns the list of segment losses (floats)."""
    cfg = net.cfg
    min_seg = sample_min_segments(x.shape[0], cfg.max_segments, cfg.explore_prob, generator)
    z_h, z_l = net.initial_state(x.shape[0])
    losses = []
    for m in range(1, cfg.max_segments + 1):
        out = act_segment(net, z_h, z_l, x, y, m, min_seg)
        optimizer.zero_grad()
        out["loss"].backward()
        optimizer.step()
        losses.append(out["loss"].item())
        if bool(out["halt"].all()):
            break
        z_h, z_l = out["z_h"], out["z_l"]
    return losses
