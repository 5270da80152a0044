"""Probe for dash-shampoo/1: the DASH optimizer of pytorch_optimizer, driven through its public API.

A tiny float64 model built in code (a 6x5 matrix, vectors, a 4x2x3x3 tensor, a 1x7 row, a 3x1x4 tensor, a
scalar, a matrix whose gradient is all zeros and a parameter the loss never uses) is trained for a few steps
with DASH under many options; the batched Newton-DB and power-iteration helpers are called on their own too.
Runs in the sandbox and emits outputs only; the reference's outputs and the trusted checks (check_dash.py)
judge them."""

from __future__ import annotations

import io

import torch
from lmrbench_probe import case
from pytorch_optimizer import DASH
from pytorch_optimizer.base.exception import NoComplexParameterError, NoSparseGradientError  # noqa: F401
from pytorch_optimizer.optimizer.utils import batched_power_iteration, compute_power_newton_db

DT = torch.float64
TRAJ = {"rtol": 1e-7, "atol": 1e-9}
EVD = {"rtol": 1e-5, "atol": 1e-7}


class Tiny(torch.nn.Module):
    """Parameters of every shape family DASH handles; the loss is a smooth function of all but `unused`."""

    def __init__(self, seed: int = 0):
        super().__init__()
        gen = torch.Generator().manual_seed(seed)

        def p(*shape, s=0.5):
            return torch.nn.Parameter(torch.randn(*shape, dtype=DT, generator=gen) * s)

        self.w1, self.b1 = p(6, 5), p(6)
        self.w2, self.b2 = p(4, 2, 3, 3, s=0.3), p(4)
        self.row = p(1, 7)
        self.mix = p(3, 1, 4)
        self.gain = p((), s=1.0)
        self.still = p(2, 3)      # in the loss with weight 0: an all-zero gradient
        self.unused = p(3)
        self.register_buffer("lift", torch.randn(6, 18, dtype=DT, generator=gen) * 0.4)   # fixed, not trained

    def forward(self, x: torch.Tensor, x2: torch.Tensor):
        """The output and the two hidden layers (each hidden layer also has a target of its own, so that every
        block's gradient statistics are well conditioned)."""
        h1 = torch.tanh(x @ self.w1.T + self.b1)                          # (N, 6)
        h2 = torch.tanh((h1 @ self.lift) @ self.w2.reshape(4, 18).T + self.b2)   # (N, 4)
        h3 = h2[:, :3] @ self.mix.reshape(3, 4)                           # (N, 4)
        out = self.gain * h3.sum(-1) + (x2 * self.row).sum(-1) + 0.0 * self.still.sum()
        return out, h1, h2


def batch(step: int):
    gen = torch.Generator().manual_seed(1000 + step)
    n = 64   # many samples per batch: every block's gradient is far from rank-deficient
    x = torch.randn(n, 5, dtype=DT, generator=gen)
    x2 = torch.randn(n, 7, dtype=DT, generator=gen)
    y = torch.randn(n, dtype=DT, generator=gen)
    t1 = torch.randn(n, 6, dtype=DT, generator=gen) * 0.5
    t2 = torch.randn(n, 4, dtype=DT, generator=gen) * 0.5
    return x, x2, y, t1, t2


def loss_of(model: Tiny, step: int) -> torch.Tensor:
    x, x2, y, t1, t2 = batch(step)
    out, h1, h2 = model(x, x2)
    return ((out - y) ** 2).mean() + ((h1 - t1) ** 2).mean() + ((h2 - t2) ** 2).mean()


def snapshot(model: torch.nn.Module) -> dict:
    return {name: p.detach().clone() for name, p in model.named_parameters()}


def train(model: Tiny, opt, first: int, last: int, out: dict | None = None, sign: float = 1.0) -> None:
    for t in range(first, last):
        opt.zero_grad()
        (sign * loss_of(model, t)).backward()
        returned = opt.step()
        if out is not None:
            out[f"step{t}"] = snapshot(model)
            out[f"returned_none.step{t}"] = returned is None


NEWTON = dict(lr=0.05, block_size=4, precondition_frequency=1, newton_steps=40, matrix_eps=1e-6)
EIGH = dict(lr=0.05, block_size=4, precondition_frequency=1, inverse_root_method="eigh", matrix_eps=1e-12)

CONFIGS = {
    "newton": {},
    "newton_momentum_nesterov": dict(momentum=0.5),
    "newton_momentum_plain": dict(momentum=0.5, nesterov=False),
    "newton_decay_grafting_beta": dict(weight_decay=0.1, grafting_beta=0.99),
    "newton_no_bias_correction": dict(correct_bias=False, momentum=0.2),
    "newton_no_beta1": dict(betas=(0.0, 0.9)),
    "newton_block3": dict(block_size=3, betas=(0.8, 0.99)),
    "newton_block64": dict(block_size=64),
    "newton_frobenius": dict(matrix_scaling="frobenius", newton_steps=60),
    "newton_freq2_start2": dict(precondition_frequency=2, start_preconditioning_step=2),
    "newton_stale": dict(precondition_frequency=100),
    "adam_phase": dict(start_preconditioning_step=6, momentum=0.3, weight_decay=0.05),
    "eigh": dict(EIGH),
    "eigh_block5_momentum": dict(EIGH, block_size=5, momentum=0.9, eps=1e-6),
    "eigh_start3": dict(EIGH, start_preconditioning_step=3, lr=0.1),
}


def options(name: str) -> dict:
    return {**NEWTON, **CONFIGS[name]}


def run_config(name: str) -> dict:
    model = Tiny()
    opt = DASH(model.parameters(), **options(name))
    out = {"init": snapshot(model)}
    train(model, opt, 0, 5, out)
    return out


NEWTON_CONFIGS = [n for n in CONFIGS if not n.startswith("eigh")]
EIGH_CONFIGS = [n for n in CONFIGS if n.startswith("eigh")]


@case(params=NEWTON_CONFIGS, ids=NEWTON_CONFIGS, **TRAJ)
def trajectory(name):
    return run_config(name)


# The regularised eigendecomposition leaves the placement of the matrix epsilon to the implementation (added
# to the matrix, to the eigenvalues, or both); with statistics whose smallest eigenvalues are near 1e-10 the
# readings differ by up to about 1e-6 relative, hence the looser tolerance of the EVD cases.
@case(params=EIGH_CONFIGS, ids=EIGH_CONFIGS, **EVD)
def trajectory_eigh(name):
    return run_config(name)


@case(**TRAJ)
def maximize():
    """maximize=True on the negated loss follows the same trajectory as minimising the loss."""
    model, twin = Tiny(), Tiny()
    opt = DASH(model.parameters(), maximize=True, **NEWTON)
    ref = DASH(twin.parameters(), **NEWTON)
    out: dict = {}
    train(model, opt, 0, 4, out, sign=-1.0)
    train(twin, ref, 0, 4)
    out["minimised"] = snapshot(twin)
    return out


@case(**EVD)
def two_groups():
    """Per-group options: the matrices with Newton-DB and block 4, the rest with EVD, block 3 and decay."""
    model = Tiny()
    first = [model.w1, model.w2, model.mix]
    rest = [model.b1, model.b2, model.row, model.gain, model.still, model.unused]
    opt = DASH([{"params": first},
                {"params": rest, "lr": 0.02, "block_size": 3, "inverse_root_method": "eigh",
                 "matrix_eps": 1e-12, "weight_decay": 0.2, "momentum": 0.4}], **NEWTON)
    out: dict = {}
    train(model, opt, 0, 5, out)
    return out


@case(params=["newton", "eigh"], **EVD)
def save_load_resume(kind):
    """Two steps, save the optimizer's state_dict, rebuild model and optimizer from the saved bytes, three
    more steps. With Newton-DB the inverse roots are refreshed every 5 steps, so steps 3-4 use the roots saved
    at step 1 (with EVD they are refreshed every step: stale roots of rank-deficient statistics would make the
    result depend on where the matrix epsilon is added)."""
    opts = dict(options("newton"), precondition_frequency=5) if kind == "newton" else options("eigh")
    model = Tiny()
    opt = DASH(model.parameters(), **opts)
    train(model, opt, 0, 2)
    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, buf)
    train(model, opt, 2, 5)
    out = {"continuous": snapshot(model)}
    saved = torch.load(io.BytesIO(buf.getvalue()), weights_only=True)
    model2 = Tiny(seed=3)
    model2.load_state_dict(saved["model"])
    opt2 = DASH(model2.parameters(), **opts)
    opt2.load_state_dict(saved["opt"])
    train(model2, opt2, 2, 5)
    out["resumed"] = snapshot(model2)
    return out


@case(**TRAJ)
def adam_before_start():
    """Before start_preconditioning_step the update is Adam's (the grafting direction); beside it torch's Adam
    with the same hyper-parameters."""
    model, twin = Tiny(), Tiny()
    opt = DASH(model.parameters(), lr=0.03, betas=(0.8, 0.9), eps=1e-6, start_preconditioning_step=10)
    adam = torch.optim.Adam(twin.parameters(), lr=0.03, betas=(0.8, 0.9), eps=1e-6)
    out: dict = {}
    train(model, opt, 0, 4, out)
    train(twin, adam, 0, 4)
    out["adam"] = snapshot(twin)
    return out


@case(**EVD)
def newton_matches_eigh():
    """Newton-DB run to convergence and the eigen-decomposition give the same trajectory (matrix epsilon
    1e-12, roots refreshed every step)."""
    a, b = Tiny(), Tiny()
    out: dict = {}
    train(a, DASH(a.parameters(), **dict(NEWTON, matrix_eps=1e-12, newton_steps=60)), 0, 4, out)
    train(b, DASH(b.parameters(), **EIGH), 0, 4)
    out["eigh"] = snapshot(b)
    return out


# ------------------------------------------------------------------------- by hand (check file)

@case(**TRAJ)
def scalar_parameter_by_hand():
    """A single scalar parameter, f(w) = w^2/2, w = 1: one-sided 1x1 preconditioning grafted to Adam."""
    w = torch.nn.Parameter(torch.ones((), dtype=DT))
    opt = DASH([w], lr=0.1, betas=(0.9, 0.95), precondition_frequency=1, newton_steps=30)
    out = {}
    for t in range(2):
        opt.zero_grad()
        (0.5 * w**2).backward()
        opt.step()
        out[f"w{t}"] = float(w.detach())
    return out


@case(params=["newton_db", "eigh"], **TRAJ)
def diagonal_gradient_by_hand(kind):
    """A 2x2 matrix whose gradient is the constant diagonal C = diag(3, -0.5): Shampoo's direction is
    L^{-1/4} M R^{-1/4} = c * sign(C) for a positive c, grafted to Adam's norm."""
    w = torch.nn.Parameter(torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=DT))
    c = torch.diag(torch.tensor([3.0, -0.5], dtype=DT))
    opt = DASH([w], lr=0.1, precondition_frequency=1, newton_steps=40, matrix_eps=1e-12, inverse_root_method=kind)
    out = {}
    for t in range(3):
        opt.zero_grad()
        (c * w).sum().backward()
        opt.step()
        out[f"w{t}"] = w.detach().clone()
    return out


# ------------------------------------------------------------------------- the batched helpers

def spd_batch(seed: int, eigvals: list[list[float]]) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    mats = []
    for vals in eigvals:
        q, _ = torch.linalg.qr(torch.randn(len(vals), len(vals), dtype=DT, generator=gen))
        mats.append(q @ torch.diag(torch.tensor(vals, dtype=DT)) @ q.T)
    return torch.stack(mats)


SPECTRA = [[4.0, 1.0, 0.5, 0.25], [0.9, 0.6, 0.3, 0.05], [2.0, 1.9, 0.1, 0.01]]


@case(params=[(k, inv) for k in (1, 2, 3, 6, 40) for inv in (True, False)],
      ids=[f"iters{k}-{'inverse' if inv else 'sqrt'}" for k in (1, 2, 3, 6, 40) for inv in (True, False)],
      rtol=1e-10, atol=1e-12)
def newton_db(arg):
    iters, inverse = arg
    a = spd_batch(5, SPECTRA)
    scale = torch.tensor([5.0, 1.0, 2.5], dtype=DT).view(3, 1, 1)
    result = compute_power_newton_db(a.clone(), scale.clone(), iters, inverse=inverse)
    return {"a": a, "scale": scale, "result": result}


@case(params=[torch.float64, torch.float32], ids=["float64", "float32"], rtol=1e-6, atol=1e-9)
def power_iteration(dtype):
    a = spd_batch(6, [[5.0, 2.0, 1.0, 0.5], [0.3, 0.1, 0.05, 0.01], [8.0, 1.0, 1.0, 1.0]]).to(dtype)
    return {"a": a, "estimate": batched_power_iteration(a.clone(), num_iters=60, num_vectors=4)}


# ------------------------------------------------------------------------- errors

@case
def sparse_gradient_raises():
    emb = torch.nn.Embedding(5, 3, sparse=True).double()
    opt = DASH(emb.parameters())
    emb(torch.tensor([0, 2])).sum().backward()
    return {"result": opt.step()}


@case
def complex_parameter_raises():
    w = torch.nn.Parameter(torch.randn(3, 2, dtype=torch.complex128))
    opt = DASH([w])
    (w.abs() ** 2).sum().backward()
    return {"result": opt.step()}
