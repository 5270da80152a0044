"""Probe for schedulefree-family/1: every Schedule-Free optimizer of the release, driven through its public API.

A tiny float64 MLP (built in code, seeded) is trained for a few steps with each optimizer form: the parameters
in training mode (y) after every step, after the switch to evaluation mode (x) and back, the closure's loss,
state-dict round trips and the mode rules. Runs in the sandbox and emits outputs only; the reference's outputs
and the trusted checks (check_schedulefree.py) judge them."""

from __future__ import annotations

import io

import schedulefree as sf
import torch
from lmrbench_probe import case

DT = torch.float64
TOL = {"rtol": 1e-10, "atol": 1e-12}


def make_model(seed: int = 0) -> torch.nn.Module:
    """Linear(4, 5) -> tanh -> Linear(5, 2), plus a parameter the loss never uses (its grad stays None)."""
    gen = torch.Generator().manual_seed(seed)
    model = torch.nn.Module()
    model.lin1 = torch.nn.Linear(4, 5, dtype=DT)
    model.lin2 = torch.nn.Linear(5, 2, dtype=DT)
    model.unused = torch.nn.Parameter(torch.randn(3, dtype=DT, generator=gen))
    with torch.no_grad():
        for p in (model.lin1.weight, model.lin1.bias, model.lin2.weight, model.lin2.bias):
            p.copy_(torch.randn(p.shape, dtype=DT, generator=gen) * 0.7)
    return model


def batch(seed: int = 1):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(8, 4, dtype=DT, generator=gen), torch.randn(8, 2, dtype=DT, generator=gen)


def loss_of(model: torch.nn.Module, step: int) -> torch.Tensor:
    """A different mini-batch at every step (stochastic gradients), fixed by the step index."""
    x, target = batch(100 + step)
    out = model.lin2(torch.tanh(model.lin1(x)))
    return ((out - target) ** 2).mean()


def snapshot(model: torch.nn.Module) -> dict:
    return {name: p.detach().clone() for name, p in model.named_parameters()}


def groups(model: torch.nn.Module, split: bool, unused: bool = True, **second):
    """One group of every parameter, or two groups (lin1 with the defaults, lin2 + unused with `second`).
    `unused=False` leaves the parameter without a gradient out of the optimizer."""
    extra = [model.unused] if unused else []
    if not split:
        return [model.lin1.weight, model.lin1.bias, model.lin2.weight, model.lin2.bias, *extra]
    rest = [model.lin2.weight, model.lin2.bias, *extra]
    return [{"params": [model.lin1.weight, model.lin1.bias]}, {"params": rest, **second}]


def train_steps(model, opt, first: int, last: int, out: dict, switch_at: int | None = None) -> None:
    """Steps first..last-1 in training mode; `switch_at`: an eval/train round trip (with a forward pass
    in evaluation mode) before that step, which must not change the trajectory."""
    for t in range(first, last):
        if t == switch_at:
            opt.eval()
            with torch.no_grad():
                out[f"eval_loss{t}"] = loss_of(model, 99)
            opt.train()
        opt.zero_grad()
        loss_of(model, t).backward()
        out[f"step{t}.returned"] = opt.step()
        out[f"y{t}"] = snapshot(model)


def mode_run(make_opt, steps: int = 5, split: bool = False, second: dict | None = None,
             switch_at: int | None = 2, unused: bool = True) -> dict:
    """Training-mode run of an optimizer with train()/eval() switches: y after every step, x after eval(),
    y again after train(), and an idempotent second eval()/train()."""
    model = make_model()
    opt = make_opt(groups(model, split, unused, **(second or {})))
    out: dict = {"init": snapshot(model)}
    opt.train()
    train_steps(model, opt, 0, steps, out, switch_at)
    opt.eval()
    out["x"] = snapshot(model)
    opt.eval()
    out["x_again"] = snapshot(model)
    opt.train()
    out["y_back"] = snapshot(model)
    opt.train()
    out["y_back_again"] = snapshot(model)
    return out


def closure_run(make_opt, steps: int = 5, split: bool = False, second: dict | None = None,
                unused: bool = True) -> dict:
    """Closure forms keep x in the parameters between steps; the closure's loss is returned by step()."""
    model = make_model()
    opt = make_opt(groups(model, split, unused, **(second or {})))
    out: dict = {}
    for t in range(steps):
        def closure(t=t):
            opt.zero_grad()
            loss = loss_of(model, t)
            loss.backward()
            return loss
        out[f"loss{t}"] = opt.step(closure)
        out[f"x{t}"] = snapshot(model)
    return out


def resume_run(make_opt, steps: int = 6, cut: int = 3) -> dict:
    """Train `cut` steps, eval(), save the model and optimizer state, rebuild both from the saved bytes,
    train(), train to `steps`; beside it the uninterrupted run with the same eval/train at `cut`."""
    out: dict = {}
    model = make_model()
    opt = make_opt(list(model.parameters()))
    opt.train()
    train_steps(model, opt, 0, cut, {})
    opt.eval()
    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, buf)
    opt.train()
    train_steps(model, opt, cut, steps, {})
    out["continuous_y"] = snapshot(model)
    opt.eval()
    out["continuous_x"] = snapshot(model)

    saved = torch.load(io.BytesIO(buf.getvalue()), weights_only=True)
    model2 = make_model(seed=7)
    model2.load_state_dict(saved["model"])
    opt2 = make_opt(list(model2.parameters()))
    opt2.load_state_dict(saved["opt"])
    out["loaded_x"] = snapshot(model2)
    opt2.train()
    train_steps(model2, opt2, cut, steps, {})
    out["resumed_y"] = snapshot(model2)
    opt2.eval()
    out["resumed_x"] = snapshot(model2)
    return out


class BaseAdam(torch.optim.Optimizer):
    """A small Adam written for the probes, usable as the wrapped base optimizer (torch's own Adam and RMSprop
    initialise their state only when a parameter's state is empty, so they cannot share it with a wrapper)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            b1, b2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                if "base_v" not in st:
                    st["base_t"] = 0
                    st["base_m"] = torch.zeros_like(p)
                    st["base_v"] = torch.zeros_like(p)
                st["base_t"] += 1
                st["base_m"].mul_(b1).add_(p.grad, alpha=1 - b1)
                st["base_v"].mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
                mhat = st["base_m"] / (1 - b1 ** st["base_t"])
                vhat = st["base_v"] / (1 - b2 ** st["base_t"])
                p.sub_(group["lr"] * mhat / (vhat.sqrt() + group["eps"]))
        return None


def wrapped(base_cls, wrapper=sf.ScheduleFreeWrapper, **wkw):
    def make(params, **bkw):
        return wrapper(base_cls(params, **bkw), **wkw)
    return make


# ------------------------------------------------------------------------- the optimizers and their options

ADAMW = {
    "default": dict(lr=0.02),
    "warmup_decay": dict(lr=0.05, warmup_steps=3, weight_decay=0.1),
    "betas_r": dict(lr=0.03, betas=(0.5, 0.95), r=1.0, weight_lr_power=1.0, eps=1e-3),
    "uniform_avg": dict(lr=0.03, weight_lr_power=0.0, warmup_steps=2),
}
SGD = {
    "default": dict(lr=0.2),
    "warmup_decay": dict(lr=0.3, momentum=0.5, warmup_steps=3, weight_decay=0.05),
    "r_power": dict(lr=0.1, momentum=0.8, r=2.0, weight_lr_power=3.0),
}
RADAM = {
    "silent": dict(lr=0.05, betas=(0.9, 0.999)),
    "fast_beta2": dict(lr=0.05, betas=(0.7, 0.8), weight_decay=0.1),
    "r_power": dict(lr=0.04, betas=(0.9, 0.9), r=1.0, weight_lr_power=1.0),
}


def foreach_params(table):
    return [(name, fe) for name in table for fe in (True, False)]


@case(params=foreach_params(ADAMW), ids=[f"{n}-foreach{fe}" for n, fe in foreach_params(ADAMW)], **TOL)
def adamw_modes(arg):
    name, fe = arg
    return mode_run(lambda ps: sf.AdamWScheduleFree(ps, foreach=fe, **ADAMW[name]))


@case(params=list(ADAMW), ids=list(ADAMW), **TOL)
def adamw_paper_modes(name):
    return mode_run(lambda ps: sf.AdamWScheduleFreePaper(ps, **ADAMW[name]), steps=6)


@case(params=[(n, z) for n in ADAMW for z in (False, True)], ids=[f"{n}-z{z}" for n in ADAMW for z in (False, True)],
      **TOL)
def adamw_reference_modes(arg):
    name, at_z = arg
    return mode_run(lambda ps: sf.AdamWScheduleFreeReference(ps, decay_at_z=at_z, **ADAMW[name]))


@case(params=foreach_params(ADAMW), ids=[f"{n}-foreach{fe}" for n, fe in foreach_params(ADAMW)], **TOL)
def adamw_closure(arg):
    name, fe = arg
    return closure_run(lambda ps: sf.AdamWScheduleFreeClosure(ps, foreach=fe, **ADAMW[name]))


@case(params=foreach_params(SGD), ids=[f"{n}-foreach{fe}" for n, fe in foreach_params(SGD)], **TOL)
def sgd_modes(arg):
    name, fe = arg
    return mode_run(lambda ps: sf.SGDScheduleFree(ps, foreach=fe, **SGD[name]))


@case(params=list(SGD), ids=list(SGD), **TOL)
def sgd_reference_modes(name):
    return mode_run(lambda ps: sf.SGDScheduleFreeReference(ps, **SGD[name]))


@case(params=foreach_params(SGD), ids=[f"{n}-foreach{fe}" for n, fe in foreach_params(SGD)], **TOL)
def sgd_closure(arg):
    name, fe = arg
    return closure_run(lambda ps: sf.SGDScheduleFreeClosure(ps, foreach=fe, **SGD[name]))


@case(params=foreach_params(RADAM), ids=[f"{n}-foreach{fe}" for n, fe in foreach_params(RADAM)], **TOL)
def radam_modes(arg):
    name, fe = arg
    return mode_run(lambda ps: sf.RAdamScheduleFree(ps, foreach=fe, **RADAM[name]), steps=7)


@case(params=[True, False], ids=["foreachTrue", "foreachFalse"], **TOL)
def radam_sgd_phase(fe):
    """silent_sgd_phase=False: the first steps (rho_t <= 4 with beta2 = 0.999) are plain SGD steps."""
    return mode_run(lambda ps: sf.RAdamScheduleFree(ps, foreach=fe, lr=0.05, silent_sgd_phase=False), steps=4)


@case(params=foreach_params(RADAM), ids=[f"{n}-foreach{fe}" for n, fe in foreach_params(RADAM)], **TOL)
def radam_closure(arg):
    name, fe = arg
    return closure_run(lambda ps: sf.RAdamScheduleFreeClosure(ps, foreach=fe, **RADAM[name]), steps=7)


WRAPPERS = {
    "sgd": (torch.optim.SGD, dict(lr=0.2), dict(momentum=0.9)),
    "sgd_decay_at_y": (torch.optim.SGD, dict(lr=0.2), dict(momentum=0.7, weight_decay_at_y=0.1)),
    "sgd_momentum": (torch.optim.SGD, dict(lr=0.1, momentum=0.5), dict(momentum=0.9)),
    "adam": (BaseAdam, dict(lr=0.02, betas=(0.0, 0.99)), dict(momentum=0.9)),
    "adam_momentum_r": (BaseAdam, dict(lr=0.01, betas=(0.5, 0.9)), dict(momentum=0.8, r=1.0, weight_lr_power=1.0)),
}


@case(params=[(n, w) for n in WRAPPERS for w in ("memory", "reference")],
      ids=[f"{n}-{w}" for n in WRAPPERS for w in ("memory", "reference")], **TOL)
def wrapper_modes(arg):
    name, which = arg
    base, bkw, wkw = WRAPPERS[name]
    wrapper = sf.ScheduleFreeWrapper if which == "memory" else sf.ScheduleFreeWrapperReference
    # A parameter without a gradient is left out where the wrapper decays at y: nothing decides whether such
    # a parameter is decayed.
    return mode_run(lambda ps: wrapper(base(ps, **bkw), **wkw), unused="weight_decay_at_y" not in wkw)


# ------------------------------------------------------------------------- parameter groups

@case(params=["adamw", "adamw_paper", "adamw_reference", "sgd", "sgd_reference", "radam", "wrapper"], **TOL)
def two_groups(kind):
    """Two parameter groups with their own learning rate, weight decay and momentum."""
    makers = {
        "adamw": lambda ps: sf.AdamWScheduleFree(ps, lr=0.02, warmup_steps=2),
        "adamw_paper": lambda ps: sf.AdamWScheduleFreePaper(ps, lr=0.02, warmup_steps=2),
        "adamw_reference": lambda ps: sf.AdamWScheduleFreeReference(ps, lr=0.02, warmup_steps=2),
        "sgd": lambda ps: sf.SGDScheduleFree(ps, lr=0.2, warmup_steps=2),
        "sgd_reference": lambda ps: sf.SGDScheduleFreeReference(ps, lr=0.2, warmup_steps=2),
        "radam": lambda ps: sf.RAdamScheduleFree(ps, lr=0.05, betas=(0.9, 0.8)),
        "wrapper": lambda ps: sf.ScheduleFreeWrapper(torch.optim.SGD(ps, lr=0.2), momentum=0.9),
    }
    second = {"lr": 0.07, "weight_decay": 0.2}
    if kind.startswith("adamw") or kind == "radam":
        second["betas"] = (0.6, 0.9)
    if kind.startswith("sgd"):
        second["momentum"] = 0.5
    return mode_run(makers[kind], steps=6, split=True, second=second)


@case(params=["adamw", "adamw_paper", "adamw_reference", "sgd", "sgd_reference", "radam"], **TOL)
def unit_decay(kind):
    """Weight decay 1 (the loop forms, no foreach)."""
    make = {
        "adamw": lambda ps: sf.AdamWScheduleFree(ps, lr=0.01, weight_decay=1.0, foreach=False),
        "adamw_paper": lambda ps: sf.AdamWScheduleFreePaper(ps, lr=0.01, weight_decay=1.0, foreach=False),
        "adamw_reference": lambda ps: sf.AdamWScheduleFreeReference(ps, lr=0.01, weight_decay=1.0),
        "sgd": lambda ps: sf.SGDScheduleFree(ps, lr=0.05, weight_decay=1.0, foreach=False),
        "sgd_reference": lambda ps: sf.SGDScheduleFreeReference(ps, lr=0.05, weight_decay=1.0),
        "radam": lambda ps: sf.RAdamScheduleFree(ps, lr=0.02, betas=(0.9, 0.8), weight_decay=1.0, foreach=False),
    }[kind]
    return mode_run(make, steps=4)


@case(params=["adamw", "sgd", "radam"], **TOL)
def closure_unit_decay(kind):
    """Weight decay 1 (the loop form, no foreach)."""
    make = {
        "adamw": lambda ps: sf.AdamWScheduleFreeClosure(ps, lr=0.01, weight_decay=1.0, foreach=False),
        "sgd": lambda ps: sf.SGDScheduleFreeClosure(ps, lr=0.05, weight_decay=1.0, foreach=False),
        "radam": lambda ps: sf.RAdamScheduleFreeClosure(ps, lr=0.02, betas=(0.9, 0.8), weight_decay=1.0,
                                                        foreach=False),
    }[kind]
    return closure_run(make, steps=4)


@case(params=["adamw", "sgd", "radam"], **TOL)
def closure_two_groups(kind):
    makers = {
        "adamw": lambda ps: sf.AdamWScheduleFreeClosure(ps, lr=0.02, warmup_steps=2),
        "sgd": lambda ps: sf.SGDScheduleFreeClosure(ps, lr=0.2, warmup_steps=2),
        "radam": lambda ps: sf.RAdamScheduleFreeClosure(ps, lr=0.05, betas=(0.9, 0.8)),
    }
    second = {"lr": 0.07, "weight_decay": 0.2}
    second.update({"momentum": 0.5} if kind == "sgd" else {"betas": (0.6, 0.9)})
    return closure_run(makers[kind], steps=6, split=True, second=second)


# ------------------------------------------------------------------------- save and load

RESUMABLE = {
    "adamw": lambda ps: sf.AdamWScheduleFree(ps, lr=0.02, warmup_steps=2, weight_decay=0.05),
    "adamw_paper": lambda ps: sf.AdamWScheduleFreePaper(ps, lr=0.02, warmup_steps=2),
    "adamw_reference": lambda ps: sf.AdamWScheduleFreeReference(ps, lr=0.02, warmup_steps=2),
    "sgd": lambda ps: sf.SGDScheduleFree(ps, lr=0.2, warmup_steps=2, weight_decay=0.05),
    "sgd_reference": lambda ps: sf.SGDScheduleFreeReference(ps, lr=0.2, warmup_steps=2),
    "radam": lambda ps: sf.RAdamScheduleFree(ps, lr=0.05, betas=(0.9, 0.8)),
    "wrapper_adam": wrapped(BaseAdam, momentum=0.9),
    "wrapper_reference_sgd": wrapped(torch.optim.SGD, sf.ScheduleFreeWrapperReference, momentum=0.9),
}


def _wrapped_lr(name):
    if name == "wrapper_adam":
        return lambda ps: RESUMABLE[name](ps, lr=0.02)
    if name == "wrapper_reference_sgd":
        return lambda ps: RESUMABLE[name](ps, lr=0.2)
    return RESUMABLE[name]


@case(params=list(RESUMABLE), ids=list(RESUMABLE), **TOL)
def save_load_resume(name):
    return resume_run(_wrapped_lr(name))


# ------------------------------------------------------------------------- forms of one method agree

@case(**TOL)
def adam_forms():
    """Schedule-Free AdamW in its memory-efficient, reference, closure and wrapper forms (Adam with
    beta1 = 0 as the base): the evaluation point x after 5 steps, no warmup, no weight decay."""
    kw = dict(lr=0.03, betas=(0.8, 0.95))
    out = {
        "memory": mode_run(lambda ps: sf.AdamWScheduleFree(ps, **kw))["x"],
        "reference": mode_run(lambda ps: sf.AdamWScheduleFreeReference(ps, **kw))["x"],
        "closure": closure_run(lambda ps: sf.AdamWScheduleFreeClosure(ps, **kw))["x4"],
        "wrapper": mode_run(lambda ps: sf.ScheduleFreeWrapper(BaseAdam(ps, lr=0.03, betas=(0.0, 0.95)),
                                                              momentum=0.8))["x"],
    }
    return out


@case(**TOL)
def sgd_forms():
    """Schedule-Free SGD in all its forms, and both wrappers around plain SGD (weight decay at y)."""
    kw = dict(lr=0.2, momentum=0.7, weight_decay=0.1)
    return {
        "memory": mode_run(lambda ps: sf.SGDScheduleFree(ps, **kw), unused=False)["x"],
        "reference": mode_run(lambda ps: sf.SGDScheduleFreeReference(ps, **kw), unused=False)["x"],
        "closure": closure_run(lambda ps: sf.SGDScheduleFreeClosure(ps, **kw), unused=False)["x4"],
        "wrapper": mode_run(lambda ps: sf.ScheduleFreeWrapper(torch.optim.SGD(ps, lr=0.2), momentum=0.7,
                                                              weight_decay_at_y=0.1), unused=False)["x"],
        "wrapper_reference": mode_run(lambda ps: sf.ScheduleFreeWrapperReference(
            torch.optim.SGD(ps, lr=0.2), momentum=0.7, weight_decay_at_y=0.1), unused=False)["x"],
    }


# ------------------------------------------------------------------------- by hand (check file)

def quadratic(make_opt, steps: int = 3) -> dict:
    """f(w) = w^2 / 2 on one scalar parameter w_1 = 1: y after every step, then x."""
    w = torch.nn.Parameter(torch.ones(1, dtype=DT))
    opt = make_opt([w])
    opt.train()
    out = {}
    for t in range(steps):
        opt.zero_grad()
        (0.5 * w**2).sum().backward()
        opt.step()
        out[f"y{t}"] = float(w.detach()[0])
    opt.eval()
    out["x"] = float(w.detach()[0])
    return out


@case(**TOL)
def sgd_quadratic_by_hand():
    return quadratic(lambda ps: sf.SGDScheduleFree(ps, lr=0.1, momentum=0.5))


@case(**TOL)
def adamw_quadratic_by_hand():
    return quadratic(lambda ps: sf.AdamWScheduleFree(ps, lr=0.1, betas=(0.5, 0.5), eps=0.0))


@case(**TOL)
def warmup_quadratic_by_hand():
    return quadratic(lambda ps: sf.SGDScheduleFree(ps, lr=0.1, momentum=0.5, warmup_steps=2))


# ------------------------------------------------------------------------- mode rules

@case(**TOL)
def eval_before_any_step_is_identity():
    model = make_model()
    before = snapshot(model)
    opt = sf.AdamWScheduleFree(list(model.parameters()))
    opt.train()
    opt.eval()
    opt.train()
    return {"before": before, "after": snapshot(model)}
