"""Trusted checks for schedulefree-family/1 (never enter the sandbox): values worked out by hand from the
paper's equations and the properties the paper states, on the outputs probe_schedulefree.py emitted. The
default comparison with the reference's outputs has already passed."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect


def _params(out: dict, prefix: str) -> dict:
    """The parameter tensors a snapshot emitted under `prefix` (keys `prefix.<param name>`)."""
    return {k[len(prefix) + 1:]: v for k, v in out.items() if k.startswith(prefix + ".") and "#" not in k}


def _same(out: dict, a: str, b: str, rtol: float = 1e-9, atol: float = 1e-11) -> None:
    pa, pb = _params(out, a), _params(out, b)
    equal(sorted(pa), sorted(pb), what=f"{a} and {b}: the same parameters")
    expect(len(pa) > 0, f"{a}: no parameters emitted")
    for name in pa:
        close(pa[name], pb[name], rtol=rtol, atol=atol, what=f"{a}.{name} vs {b}.{name}")


# ------------------------------------------------------------------------- by hand

@check("sgd_quadratic_by_hand")
def sgd_by_hand(out, ref):
    # f(w) = w^2/2, w_1 = x_1 = z_1 = y_1 = 1, gamma = 0.1, beta = 0.5, c_{t+1} = 1/t (constant step, power 2).
    # t=1: g = 1;      z = 0.9;                       c = 1:   x = 0.9;      y = 0.5*0.9 + 0.5*0.9 = 0.9
    # t=2: g = 0.9;    z = 0.9 - 0.09 = 0.81;         c = 1/2: x = 0.855;    y = 0.5*0.81 + 0.5*0.855 = 0.8325
    # t=3: g = 0.8325; z = 0.81 - 0.08325 = 0.72675; c = 1/3: x = (2*0.855 + 0.72675)/3 = 0.81225
    #      y = 0.5*0.72675 + 0.5*0.81225 = 0.7695
    close([out["y0"], out["y1"], out["y2"], out["x"]], [0.9, 0.8325, 0.7695, 0.81225], rtol=1e-12, atol=1e-14)


@check("warmup_quadratic_by_hand")
def warmup_by_hand(out, ref):
    # As above with T_warmup = 2: gamma_t = 0.1*min(1, t/2) = 0.05, 0.1, 0.1; weights gamma_t^2.
    # t=1: z = 1 - 0.05 = 0.95; c = 1: x = 0.95; y = 0.95
    # t=2: g = 0.95; z = 0.95 - 0.095 = 0.855; c = 0.01/(0.0025 + 0.01) = 0.8: x = 0.2*0.95 + 0.8*0.855 = 0.874
    #      y = 0.5*0.855 + 0.5*0.874 = 0.8645
    # t=3: g = 0.8645; z = 0.855 - 0.08645 = 0.76855; c = 0.01/0.0225 = 4/9: x = (5*0.874 + 4*0.76855)/9
    #      = 0.82713333...; y = 0.5*0.76855 + 0.5*0.82713333 = 0.79784166...
    close([out["y0"], out["y1"], out["y2"], out["x"]], [0.95, 0.8645, 0.7978416666666667, 0.8271333333333333],
          rtol=1e-12, atol=1e-14)


@check("adamw_quadratic_by_hand")
def adamw_by_hand(out, ref):
    # f(w) = w^2/2, w_1 = 1, gamma = 0.1, beta1 = beta2 = 0.5, eps = 0, no warmup (c_{t+1} = 1/t).
    # t=1: g = 1; v = 0.5; vhat = 0.5/0.5 = 1; z = 1 - 0.1 = 0.9; x = 0.9; y = 0.9
    # t=2: g = 0.9; v = 0.25 + 0.5*0.81 = 0.655; vhat = 0.655/0.75 = 0.87333...; g/sqrt(vhat) = 0.96305847...
    #      z = 0.9 - 0.096305847 = 0.80369415; x = (0.9 + 0.80369415)/2 = 0.85184708; y = 0.82777064
    # t=3: g = 0.82777064; v = 0.3275 + 0.5*g^2 = 0.66010312; vhat = v/0.875 = 0.75440357;
    #      z = 0.80369415 - 0.1*g/sqrt(vhat) = 0.70839157; x = (2*0.85184708 + 0.70839157)/3 = 0.80402858
    #      (the three-step recursion evaluated in double precision gives the literals below)
    close([out["y0"], out["y1"], out["y2"]], [0.9, 0.8277706420305998, 0.7566854009821637], rtol=1e-12, atol=1e-14)
    close(out["x"], 0.8042662478346152, rtol=1e-12)


# ------------------------------------------------------------------------- mode switches

@check("*_modes[*]")
def mode_switches(out, ref):
    """eval() then train() returns the parameters to y exactly (up to rounding); a second eval() or train()
    changes nothing; the parameter the loss never uses never moves; an eval/train round trip in the middle
    of training does not change the trajectory (checked through the reference comparison)."""
    last = max(int(k[1:].split(".")[0]) for k in out if k.startswith("y") and k[1:].split(".")[0].isdigit())
    _same(out, "y_back", f"y{last}", rtol=1e-12, atol=1e-13)
    _same(out, "x_again", "x", rtol=0, atol=0)
    _same(out, "y_back_again", "y_back", rtol=0, atol=0)
    for key in ("x", "y_back", f"y{last}"):
        if f"{key}.unused" in ref:
            close(out[f"{key}.unused"], ref["init.unused"], rtol=0, atol=0, what=f"{key}.unused: never updated")


@check("two_groups[*]")
def two_groups_switch(out, ref):
    mode_switches(out, ref)


@check("eval_before_any_step_is_identity")
def eval_identity(out, ref):
    _same(out, "before", "after", rtol=0, atol=0)


# ------------------------------------------------------------------------- save and load

@check("save_load_resume[*]")
def resume_equals_continuous(out, ref):
    """A checkpoint saved in evaluation mode restores the run: the resumed run's y and x equal the
    uninterrupted run's."""
    _same(out, "resumed_y", "continuous_y", rtol=1e-12, atol=1e-13)
    _same(out, "resumed_x", "continuous_x", rtol=1e-12, atol=1e-13)


# ------------------------------------------------------------------------- forms of one method

@check("adam_forms")
def adam_forms_agree(out, ref):
    """The paper's method is one algorithm whatever the storage: the memory-efficient, reference, closure and
    wrapper (base Adam with beta1 = 0, bias-corrected second moment) forms give the same x."""
    for form in ("reference", "closure", "wrapper"):
        _same(out, form, "memory")


@check("sgd_forms")
def sgd_forms_agree(out, ref):
    """Schedule-Free SGD with weight decay at y equals the wrapper around plain SGD with weight decay at y."""
    for form in ("reference", "closure", "wrapper", "wrapper_reference"):
        _same(out, form, "memory")


@check("adamw_closure[*]")
def closure_returns_loss(out, ref):
    for key, value in out.items():
        if key.startswith("loss") and "#" not in key:
            expect(np.ndim(value) == 0 and np.isfinite(value), f"{key}: step(closure) returns the closure's loss")


@check("radam_modes[silent-*]")
def silent_phase(out, ref):
    """beta2 = 0.999: rho_t <= 4 for t <= 4, so the silent form leaves the parameters where they started for
    the first four steps, and the fifth step moves them."""
    for t in range(4):
        _same(out, f"y{t}", "y0", rtol=0, atol=0)
    moved = max(float(np.abs(np.asarray(out[f"y4.{n}"]) - np.asarray(out[f"y3.{n}"])).max())
                for n in _params(out, "y4"))
    expect(moved > 0, "the first rectified step (t = 5) moves the parameters")
