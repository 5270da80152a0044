"""Probe for peft-hira-osf/1: the HiRA and OSF tuners reached through peft's public entry points (get_peft_model,
forward/backward, optimizer steps, merge/unmerge, merge_and_unload, disable_adapter, add/set/delete_adapter,
save_pretrained/from_pretrained) on tiny float64 models built here with seeded weights.

HiRA: wherever a trajectory is compared, the probe writes its own A (and B) into the adapter through the layer's
`hira_A`/`hira_B` entries (the names the visible `adapter_layer_names` gives), accepting either orientation of a
factor, so nothing depends on how a solution draws its random init; the probe recomputes every trajectory with its
own float64 reference of paper.md 1.2-1.4. Embedding and convolution layers are checked by meaning through
`get_delta_weight` (the modulation, by the class comment of `HiraLayer`).
OSF: the probe recomputes the SVD split, the projected-gradient training and the merged weight in float64 itself
(paper.md 2.2-2.4); the release decomposes in float32, so OSF values are compared with a relative 1e-5."""

from __future__ import annotations

import os
import tempfile
import warnings

import torch
import torch.nn.functional as F
from lmrbench_probe import case
from peft import HiraConfig, OSFConfig, PeftModel, get_peft_model
from peft.tuners.tuners_utils import BaseTunerLayer
from torch import nn

warnings.filterwarnings("ignore")


# ================================================================ models and helpers


class MLP(nn.Module):
    """Linear 6->10 -> tanh -> Linear 10->4 (with bias)."""

    def __init__(self, seed: int = 0):
        super().__init__()
        torch.manual_seed(seed)
        self.lin1 = nn.Linear(6, 10)
        self.lin2 = nn.Linear(10, 4)

    def forward(self, x):
        return self.lin2(torch.tanh(self.lin1(x)))


class OMLP(nn.Module):
    """Linear 8->12 -> tanh -> Linear 12->4 -> tanh -> Linear 4->4 (with bias): tall, wide and square weights."""

    def __init__(self, seed: int = 0):
        super().__init__()
        torch.manual_seed(seed)
        self.lin1 = nn.Linear(8, 12)
        self.lin2 = nn.Linear(12, 4)
        self.lin3 = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin3(torch.tanh(self.lin2(torch.tanh(self.lin1(x)))))


class EmbNet(nn.Module):
    def __init__(self, seed: int = 0):
        super().__init__()
        torch.manual_seed(seed)
        self.emb = nn.Embedding(12, 6)
        self.head = nn.Linear(6, 3)

    def forward(self, ids):
        return self.head(torch.tanh(self.emb(ids)))


class ConvNet(nn.Module):
    def __init__(self, seed: int = 0):
        super().__init__()
        torch.manual_seed(seed)
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.pw = nn.Conv2d(4, 2, 1)

    def forward(self, x):
        return self.pw(torch.tanh(self.conv(x)))


class GPT2Like(nn.Module):
    """Two transformers Conv1D layers (weight stored as in_features x out_features)."""

    def __init__(self, seed: int = 0):
        super().__init__()
        from transformers.pytorch_utils import Conv1D

        torch.manual_seed(seed)
        self.c_fc = Conv1D(10, 6)
        self.c_proj = Conv1D(4, 10)

    def forward(self, x):
        return self.c_proj(torch.tanh(self.c_fc(x)))


class WithNorm(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.lin = nn.Linear(4, 4)
        self.norm = nn.LayerNorm(4)

    def forward(self, x):
        return self.norm(self.lin(x))


def _x(shape, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64)


def _raises(fn):
    try:
        fn()
    except Exception:
        return True
    return False


def _f(v):
    return torch.tensor(float(v), dtype=torch.float64)


def _layers(model):
    return {n.split(".")[-1]: m for n, m in model.named_modules() if isinstance(m, BaseTunerLayer)}


def _trainable(model):
    return [p for p in model.parameters() if p.requires_grad]


def _n_trainable(model):
    return sum(p.numel() for p in _trainable(model))


def _base_trainable(model):
    return sum(p.numel() for n, p in model.named_parameters() if p.requires_grad and "base_layer" in n)


def _optim(params, opt, lr):
    return torch.optim.Adam(params, lr=lr) if opt == "adam" else torch.optim.SGD(params, lr=lr)


def _train(pm, x, target, steps, lr, opt):
    """Optimizer steps on a mean squared error over the model's trainable parameters; returns the losses."""
    pm.train()
    optim = _optim(_trainable(pm), opt, lr)
    losses = []
    for _ in range(steps):
        optim.zero_grad()
        loss = ((pm(x) - target) ** 2).mean()
        loss.backward()
        optim.step()
        losses.append(loss.detach())
    pm.eval()
    return torch.stack(losses)


def _weight(m):
    return m.get_base_layer().weight.detach().clone()


def _refused(make_config, model, x):
    """Refused anywhere from the config to a first training step and a merge (any exception): where a refusal is
    raised is not decided."""
    def run():
        pm = get_peft_model(model.double(), make_config())
        pm.train()
        pm(x).sum().backward()
        pm.merge_adapter()
    return _raises(run)


# ================================================================ HiRA


HALL = ["lin1", "lin2"]


def _hira(model, adapter_name="default", **kw):
    kw.setdefault("target_modules", HALL)
    return get_peft_model(model.double(), HiraConfig(**kw), adapter_name=adapter_name)


def _factor(m, kind, adapter="default"):
    """The layer's parameter for `kind` ("hira_A"/"hira_B") of one adapter: the visible `adapter_layer_names`."""
    holder = getattr(m, kind)[adapter]
    if isinstance(holder, torch.Tensor):
        return holder
    ps = list(holder.parameters())
    return ps[0]


def _canon(t, rows, cols):
    """A factor in the paper's orientation (rows x cols), whichever orientation the layer stores it in."""
    t = t.detach()
    if tuple(t.shape) == (rows, cols):
        return t.clone()
    if tuple(t.shape) == (cols, rows):
        return t.T.clone()
    return t.reshape(rows, cols).clone()


def _set_factor(m, kind, value, adapter="default"):
    """Write the paper-oriented value into the layer's factor, whichever orientation it uses."""
    p = _factor(m, kind, adapter)
    with torch.no_grad():
        if tuple(p.shape) == tuple(value.shape):
            p.copy_(value)
        elif tuple(p.shape) == tuple(value.T.shape):
            p.copy_(value.T)
        else:
            p.copy_(value.reshape(p.shape))


def _hira_dims(name, model):
    m = getattr(model, name)
    return m.out_features, m.in_features


def _give(pm, r, seed, adapter="default", with_b=False, ranks=None):
    """Seeded A (and B) for every HiRA Linear layer of an MLP; returns them (paper orientation)."""
    g = torch.Generator().manual_seed(seed)
    given = {}
    for name, m in _layers(pm).items():
        if adapter not in m.hira_A:
            continue
        rr = (ranks or {}).get(name, r)
        dout, din = m.get_base_layer().weight.shape
        a = torch.randn(rr, din, generator=g, dtype=torch.float64) / din ** 0.5
        b = torch.randn(dout, rr, generator=g, dtype=torch.float64) * 0.3 if with_b else torch.zeros(dout, rr,
                                                                                                     dtype=torch.float64)
        _set_factor(m, "hira_A", a, adapter)
        if with_b:
            _set_factor(m, "hira_B", b, adapter)
        given[name] = (a, b)
    return given


def _ref_mlp(model, x, mods):
    """Reference forward of MLP with effective weights W0 * (1 + B A) (paper 1.2)."""
    h = x
    names = ["lin1", "lin2"]
    for i, name in enumerate(names):
        lin = getattr(model, name)
        w = lin.weight
        if name in mods:
            a, b = mods[name]
            w = w + w * (b @ a)
        h = F.linear(h, w, lin.bias)
        if i == 0:
            h = torch.tanh(h)
    return h


def _ref_train(given, x, target, steps, lr, opt):
    """Float64 reference of HiRA training on MLP (paper 1.2-1.4): only A and B move."""
    model = MLP().double()
    for p in model.parameters():
        p.requires_grad_(False)
    params = {n: (a.clone().requires_grad_(True), b.clone().requires_grad_(True)) for n, (a, b) in given.items()}
    optim = _optim([t for ab in params.values() for t in ab], opt, lr)
    losses = []
    for _ in range(steps):
        optim.zero_grad()
        loss = ((_ref_mlp(model, x, params) - target) ** 2).mean()
        loss.backward()
        optim.step()
        losses.append(loss.detach())
    return model, {n: (a.detach(), b.detach()) for n, (a, b) in params.items()}, torch.stack(losses)


@case(params=[(2, None), (3, None)], ids=["r2", "r3"], rtol=1e-12, atol=1e-12)
def hira_init(p):
    """No-op at the start (B = 0, A not zero); r (d_in + d_out) trainable numbers per layer; base frozen."""
    r, pattern = p
    x = _x((3, 6))
    with torch.no_grad():
        base = MLP().double()(x)
    kw = {"rank_pattern": pattern} if pattern else {}
    pm = _hira(MLP(), r=r, **kw)
    pm.eval()
    with torch.no_grad():
        out = pm(x)
    a_nonzero, b_zero, mod_zero = True, True, True
    for m in _layers(pm).values():
        a_nonzero &= bool(_factor(m, "hira_A").detach().abs().max() > 0)
        b_zero &= bool(_factor(m, "hira_B").detach().abs().max() == 0)
        mod_zero &= bool(m.get_delta_weight("default").detach().abs().max() == 0)
    types = sorted(type(m).__module__ + "." + type(m).__name__ for m in _layers(pm).values())
    return {"out": out, "base": base, "n_trainable": _n_trainable(pm), "base_trainable": _base_trainable(pm),
            "a_nonzero": a_nonzero, "b_zero": b_zero, "modulation_zero": mod_zero, "types": types}


HTRAIN = [("sgd", 2, 0.5), ("adam", 3, 0.05), ("sgd", 1, 1.0)]


@case(params=HTRAIN, ids=[f"{o}_r{r}" for o, r, _ in HTRAIN], rtol=1e-9, atol=1e-11)
def hira_train(p):
    """Training from the given A and B = 0: losses and outputs = the float64 reference (W0 * (1 + B A), no scale);
    base weights unchanged; merge = unmerged; unmerge restores W0; disable = base; merge_and_unload."""
    opt, r, lr = p
    x, target = _x((5, 6), 2), _x((5, 4), 3)
    with torch.no_grad():
        base = MLP().double()(x)
    pm = _hira(MLP(), r=r)
    given = _give(pm, r, seed=10 + r)
    w_before = {n: _weight(m) for n, m in _layers(pm).items()}
    losses = _train(pm, x, target, steps=4, lr=lr, opt=opt)
    ref_model, ref_params, ref_losses = _ref_train(given, x, target, 4, lr, opt)
    with torch.no_grad():
        out = pm(x)
        out_ref = _ref_mlp(ref_model, x, ref_params)
        frozen = max(float((_weight(m) - w_before[n]).abs().max()) for n, m in _layers(pm).items())
        mod_err = 0.0
        for n, m in _layers(pm).items():
            a, b = ref_params[n]
            mod_err = max(mod_err, float((m.get_delta_weight("default") - b @ a).abs().max()))
        with pm.disable_adapter():
            disabled = pm(x)
        pm.merge_adapter(safe_merge=True)
        merged = pm(x)
        merged_w_err = 0.0
        for n, m in _layers(pm).items():
            a, b = ref_params[n]
            merged_w_err = max(merged_w_err, float((_weight(m) - w_before[n] * (1 + b @ a)).abs().max()))
        pm.unmerge_adapter()
        unmerge_restores = max(float((_weight(m) - w_before[n]).abs().max()) for n, m in _layers(pm).items())
        after_unmerge = pm(x)
        pm.merge_adapter()
        with pm.disable_adapter():
            disabled_merged = pm(x)
        if any(m.merged for m in _layers(pm).values()):  # where disabling left it merged
            pm.unmerge_adapter()
        unloaded = pm.merge_and_unload()
        out_unloaded = unloaded(x)
        plain = all(type(getattr(unloaded, n)) is nn.Linear for n in HALL)
    return {"losses": losses, "losses_ref": ref_losses, "out": out, "out_ref": out_ref, "base": base,
            "frozen": _f(frozen), "modulation_err": _f(mod_err), "disabled": disabled, "merged": merged,
            "merged_w_err": _f(merged_w_err), "unmerge_restores": _f(unmerge_restores),
            "after_unmerge": after_unmerge, "out_unloaded": out_unloaded, "unloaded_plain": plain,
            "disabled_merged": disabled_merged}


@case(rtol=1e-9, atol=1e-11)
def hira_gradients():
    """One backward pass with given non-zero A and B: dL/dB = (G * W0) A^T, dL/dA = B^T (G * W0) (paper 1.4),
    compared in the paper's orientation; input gradient through W0 * (1 + B A)."""
    x, target = _x((2, 3, 6), 4), _x((2, 3, 4), 5)  # a batch of sequences: features on the last axis
    pm = _hira(MLP(), r=2)
    given = _give(pm, 2, seed=21, with_b=True)
    pm.train()
    xg = x.clone().requires_grad_(True)
    loss = ((pm(xg) - target) ** 2).mean()
    loss.backward()
    ref = MLP().double()
    with torch.no_grad():
        for n, (a, b) in given.items():
            w = getattr(ref, n).weight
            w.copy_(w * (1 + b @ a))
    xr = x.clone().requires_grad_(True)
    loss_ref = ((ref(xr) - target) ** 2).mean()
    loss_ref.backward()
    w0 = MLP().double()
    err_a, err_b = 0.0, 0.0
    for n, m in _layers(pm).items():
        a, b = given[n]
        gw = getattr(ref, n).weight.grad * getattr(w0, n).weight
        ga = _factor(m, "hira_A").grad
        gb = _factor(m, "hira_B").grad
        if ga is None or gb is None:
            err_a = err_b = float("inf")
            continue
        err_a = max(err_a, float((_canon(ga, *a.shape) - b.T @ gw).abs().max()))
        err_b = max(err_b, float((_canon(gb, *b.shape) - gw @ a.T).abs().max()))
    return {"loss": loss.detach(), "loss_ref": loss_ref.detach(), "grad_x": xg.grad, "grad_x_ref": xr.grad,
            "grad_a_err": _f(err_a), "grad_b_err": _f(err_b)}


@case(rtol=1e-9, atol=1e-11, outputs={"both": {"compare": "none"}, "both_sum": {"compare": "none"},
                                       "both_product": {"compare": "none"}})
def hira_two_adapters():
    """A second adapter: its own factors; set_adapter switches; both active = both merged; merging two and
    unmerging restores W0; delete_adapter leaves the first."""
    x = _x((4, 6), 6)
    pm = _hira(MLP(), r=2)
    g1 = _give(pm, 2, seed=31, with_b=True)
    pm.add_adapter("other", HiraConfig(r=3, target_modules=["lin1"]))  # lin2 has no "other"
    g2 = _give(pm, 3, seed=32, adapter="other", with_b=True)
    w0 = {n: _weight(m) for n, m in _layers(pm).items()}
    ref = MLP().double()
    with torch.no_grad():
        out_default = pm(x)
        pm.set_adapter("other")
        out_other = pm(x)
        ref_default = _ref_mlp(ref, x, g1)
        ref_other = _ref_mlp(ref, x, g2)
        pm.base_model.set_adapter(["default", "other"])
        both = pm(x)
        sums = {n: (torch.cat([g1[n][0], g2[n][0]]), torch.cat([g1[n][1], g2[n][1]], dim=1)) if n in g2 else g1[n]
                for n in HALL}
        both_sum = _ref_mlp(ref, x, sums)
        prod_model = MLP().double()
        for n in HALL:
            w = getattr(prod_model, n).weight
            w.copy_(w * (1 + g1[n][1] @ g1[n][0]))
            if n in g2:
                w.copy_(w * (1 + g2[n][1] @ g2[n][0]))
        both_product = prod_model(x)
        pm.merge_adapter(["default", "other"])
        both_merged = pm(x)
        merged_flags = [bool(m.merged) for m in _layers(pm).values()]
        pm.unmerge_adapter()
        unmerge_restores = max(float((_weight(m) - w0[n]).abs().max()) for n, m in _layers(pm).items())
        pm.set_adapter("default")
        pm.delete_adapter("other")
        after_delete = pm(x)
        left = sorted(_layers(pm)["lin1"].hira_A.keys())
    return {"out_default": out_default, "ref_default": ref_default, "out_other": out_other,
            "ref_other": ref_other, "both": both, "both_sum": both_sum, "both_product": both_product,
            "both_merged": both_merged, "merged_flags": merged_flags, "unmerge_restores": _f(unmerge_restores),
            "after_delete": after_delete,
            "left": left}


@case(rtol=1e-9, atol=1e-11)
def hira_dropout():
    """Dropout only on the adapter input (paper 1.2): in training mode, (output - W0 x - b) = (W0 * B A) x_d with
    every entry of x_d either 0 or x / (1 - p); in eval mode no dropout."""
    torch.manual_seed(0)
    lin_model = nn.Sequential(nn.Linear(6, 10)).double()
    pm = get_peft_model(lin_model, HiraConfig(r=2, target_modules=["0"], hira_dropout=0.5))
    m = _layers(pm)["0"]
    g = torch.Generator().manual_seed(41)
    a = torch.randn(2, 6, generator=g, dtype=torch.float64)
    b = torch.randn(10, 2, generator=g, dtype=torch.float64)
    _set_factor(m, "hira_A", a)
    _set_factor(m, "hira_B", b)
    base = m.get_base_layer()
    w0 = base.weight.detach()
    mod = w0 * (b @ a)
    x = _x((8, 6), 7)
    with torch.no_grad():
        pm.eval()
        out_eval = pm(x)
        ref_eval = F.linear(x, w0 + mod, base.bias)
        pm.train()
        torch.manual_seed(5)
        out_train = pm(x)
        resid = out_train - F.linear(x, w0, base.bias)
        xd = torch.linalg.lstsq(mod, resid.T).solution.T  # mod has full column rank 6
        kept = (xd - 2 * x).abs() < 1e-8
        dropped = xd.abs() < 1e-8
        ok = bool((kept | dropped).all())
        n_dropped = int(dropped.sum())
        some_each = 0 < n_dropped < x.numel()
    return {"out_eval": out_eval, "ref_eval": ref_eval, "entries_ok": ok, "some_dropped_some_kept": some_each}


@case(rtol=1e-9, atol=1e-11, outputs={k: {"compare": "none"} for k in
                                       ("out", "ref", "merged", "out_unloaded", "loss1", "loss2")})
def hira_embedding():
    """Embedding layer: no-op at the start; after SGD steps the output is the embedding of W0 * (1 + M) with M the
    layer's modulation (get_delta_weight, the weight's shape), M of rank <= r and not zero; merge = unmerged;
    unmerge restores; only the adapter trains."""
    ids = torch.tensor([[0, 3, 5, 11], [7, 3, 2, 9]])
    target = _x((2, 4, 3), 8)
    with torch.no_grad():
        base = EmbNet().double()(ids)
    pm = get_peft_model(EmbNet().double(), HiraConfig(r=2, target_modules=["emb"]))
    with torch.no_grad():
        init_out = pm(ids)
    m = _layers(pm)["emb"]
    w0 = _weight(m)
    n_tr = _n_trainable(pm)
    losses = _train(pm, ids, target, steps=3, lr=0.5, opt="sgd")
    with torch.no_grad():
        out = pm(ids)
        mod = m.get_delta_weight("default").detach()
        shape_ok = tuple(mod.shape) == tuple(w0.shape)
        ref_net = EmbNet().double()
        if shape_ok:
            ref_net.emb.weight.copy_(w0 * (1 + mod))
        ref = ref_net(ids)
        rank = int(torch.linalg.matrix_rank(mod, atol=1e-10)) if shape_ok else -1
        reprs = repr(m).startswith("hira.")
        frozen = float((_weight(m) - w0).abs().max())
        pm.merge_adapter()
        merged = pm(ids)
        pm.unmerge_adapter()
        unmerge_restores = float((_weight(m) - w0).abs().max())
        unloaded = pm.merge_and_unload()
        out_unloaded = unloaded(ids)
    return {"init_out": init_out, "base": base, "n_trainable": n_tr, "shape_ok": shape_ok, "out": out, "ref": ref,
            "reprs": reprs,
            "rank_le_r": 0 < rank <= 2, "frozen": _f(frozen), "merged": merged,
            "unmerge_restores": _f(unmerge_restores), "out_unloaded": out_unloaded, "loss1": losses[0],
            "loss2": losses[-1]}


@case(rtol=1e-9, atol=1e-11, outputs={k: {"compare": "none"} for k in ("out", "ref", "merged", "out_unloaded",
                                                                       "n_trainable", "rank_ok")})
def hira_conv():
    """Conv2d layers (3x3 and 1x1): no-op at the start; after SGD steps the output is the convolution with
    W0 * (1 + M), M = get_delta_weight of the kernel's shape and of rank <= r over (out, in*k*k); merge = unmerged;
    unmerge restores."""
    x = _x((2, 3, 5, 5), 9)
    target = _x((2, 2, 5, 5), 10)
    with torch.no_grad():
        base = ConvNet().double()(x)
    pm = get_peft_model(ConvNet().double(), HiraConfig(r=2, target_modules=["conv", "pw"]))
    with torch.no_grad():
        init_out = pm(x)
    w0 = {n: _weight(m) for n, m in _layers(pm).items()}
    n_tr = _n_trainable(pm)
    _train(pm, x, target, steps=3, lr=0.5, opt="sgd")
    with torch.no_grad():
        out = pm(x)
        ref_net = ConvNet().double()
        shape_ok, rank_ok, changed = True, True, True
        for n, m in _layers(pm).items():
            mod = m.get_delta_weight("default").detach()
            if tuple(mod.shape) != tuple(w0[n].shape):
                shape_ok = False
                continue
            getattr(ref_net, n).weight.copy_(w0[n] * (1 + mod))
            rk = int(torch.linalg.matrix_rank(mod.reshape(mod.shape[0], -1), atol=1e-10))
            rank_ok &= rk <= 2
            changed &= bool(mod.abs().max() > 0)
        ref = ref_net(x)
        pm.merge_adapter()
        merged = pm(x)
        pm.unmerge_adapter()
        unmerge_restores = max(float((_weight(m) - w0[n]).abs().max()) for n, m in _layers(pm).items())
        reprs = all(repr(m).startswith("hira.") for m in _layers(pm).values())
        pm.merge_adapter()
        with pm.disable_adapter():
            disabled_merged = pm(x)
        if any(m.merged for m in _layers(pm).values()):  # where disabling left it merged
            pm.unmerge_adapter()
        out_unloaded = pm.merge_and_unload()(x)
    return {"init_out": init_out, "base": base, "n_trainable": n_tr, "shape_ok": shape_ok, "rank_ok": rank_ok,
            "reprs": reprs, "disabled_merged": disabled_merged,
            "changed": changed, "out": out, "ref": ref, "merged": merged, "unmerge_restores": _f(unmerge_restores),
            "out_unloaded": out_unloaded}


@case(rtol=1e-9, atol=1e-11)
def hira_conv1d_gpt2():
    """transformers Conv1D (weight stored in_features x out_features): the update is W0 * (B A) of the linear map
    (paper 1.2), i.e. transposed in the stored layout; training with given A = the float64 reference; merge."""
    x, target = _x((5, 6), 11), _x((5, 4), 12)
    pm = get_peft_model(GPT2Like().double(), HiraConfig(r=2, target_modules=["c_fc", "c_proj"],
                                                       fan_in_fan_out=True))
    g = torch.Generator().manual_seed(51)
    given = {}
    for n, m in _layers(pm).items():
        din, dout = m.get_base_layer().weight.shape
        a = torch.randn(2, din, generator=g, dtype=torch.float64) / din ** 0.5
        _set_factor(m, "hira_A", a)
        given[n] = (a, torch.zeros(dout, 2, dtype=torch.float64))
    losses = _train(pm, x, target, steps=3, lr=0.5, opt="sgd")
    # reference in the linear-map orientation
    ref = GPT2Like().double()
    for q in ref.parameters():
        q.requires_grad_(False)
    params = {n: (a.clone().requires_grad_(True), b.clone().requires_grad_(True)) for n, (a, b) in given.items()}
    optim = torch.optim.SGD([t for ab in params.values() for t in ab], lr=0.5)

    def ref_fwd(inp):
        h = inp
        for i, n in enumerate(["c_fc", "c_proj"]):
            layer = getattr(ref, n)
            w = layer.weight.T  # out x in
            a, b = params[n]
            h = F.linear(h, w * (1 + b @ a), layer.bias)
            if i == 0:
                h = torch.tanh(h)
        return h

    ref_losses = []
    for _ in range(3):
        optim.zero_grad()
        loss = ((ref_fwd(x) - target) ** 2).mean()
        loss.backward()
        optim.step()
        ref_losses.append(loss.detach())
    with torch.no_grad():
        out = pm(x)
        out_ref = ref_fwd(x)
        pm.merge_adapter()
        merged = pm(x)
    return {"losses": losses, "losses_ref": torch.stack(ref_losses), "out": out, "out_ref": out_ref,
            "merged": merged}


@case(params=[False, True], ids=["frozen", "trainable"], rtol=1e-12, atol=1e-12,
      outputs={"n_saved": {"compare": "none"}})
def hira_save_load(trainable):
    """save_pretrained / from_pretrained: the reloaded adapter gives the trained outputs (whatever the global random
    state); is_trainable decides whether the factors train; the checkpoint holds r (d_in + d_out) numbers per
    layer."""
    x, target = _x((5, 6), 13), _x((5, 4), 14)
    pm = _hira(MLP(), r=2)
    _give(pm, 2, seed=61)
    _train(pm, x, target, steps=2, lr=0.5, opt="sgd")
    with torch.no_grad():
        out = pm(x)
    with tempfile.TemporaryDirectory() as d:
        pm.save_pretrained(d)
        from safetensors.torch import load_file

        sd = load_file(os.path.join(d, "adapter_model.safetensors"))
        n_saved = sum(v.numel() for v in sd.values())
        torch.manual_seed(999)
        loaded = PeftModel.from_pretrained(MLP().double(), d, is_trainable=trainable)
    with torch.no_grad():
        out_loaded = loaded(x)
    return {"out": out, "out_loaded": out_loaded, "n_saved": n_saved, "n_trainable": _n_trainable(loaded)}


@case(rtol=0, atol=0)
def hira_config_validation():
    """Refusals (any exception, anywhere up to a first step and a merge) and accepted settings; the gaussian init
    (A ~ N(0, 1/r^2) as LoRA's 'gaussian', B = 0) and init_weights=False (not a no-op)."""
    x = _x((2, 6))
    errors = {
        "r0": _refused(lambda: HiraConfig(r=0, target_modules=HALL), MLP(), x),
        "r_neg": _refused(lambda: HiraConfig(r=-1, target_modules=HALL), MLP(), x),
        "layernorm": _refused(lambda: HiraConfig(r=2, target_modules=["norm"]), WithNorm(), _x((2, 4))),
    }
    torch.manual_seed(3)
    big = nn.Sequential(nn.Linear(64, 48)).double()
    pm = get_peft_model(big, HiraConfig(r=4, target_modules=["0"], init_weights="gaussian"))
    m = _layers(pm)["0"]
    a = _factor(m, "hira_A").detach()
    std = float(a.std())
    gauss = {"b_zero": bool(_factor(m, "hira_B").detach().abs().max() == 0),
             "std_is_1_over_r": abs(std - 0.25) < 0.05, "mean_small": abs(float(a.mean())) < 0.05}
    pm2 = _hira(MLP(), r=2, init_weights=False)
    with torch.no_grad():
        not_noop = bool((pm2(x) - MLP().double()(x)).abs().max() > 1e-6)
    return {"errors": errors, "gaussian": gauss, "init_false_not_noop": not_noop,
            "peft_type": str(HiraConfig(target_modules=HALL).peft_type.value)}


# ================================================================ OSF


OALL = ["lin1", "lin2", "lin3"]


def _osf(model, adapter_name="default", **kw):
    kw.setdefault("target_modules", OALL)
    return get_peft_model(model.double(), OSFConfig(**kw), adapter_name=adapter_name)


def _split(w, k):
    """paper 2.2 in float64: U_high, S_high, V_high^T and the low triplets."""
    u, s, vt = torch.linalg.svd(w, full_matrices=False)
    return u[:, :k], s[:k], vt[:k], u[:, k:], s[k:], vt[k:]


def _ref_osf_fwd(model, x, params, names=OALL):
    h = x
    for i, n in enumerate(names):
        lin = getattr(model, n)
        w = lin.weight
        if n in params:
            uh, sh, vh, ul, sl, vl = params[n]
            w = uh @ torch.diag(sh) @ vh + ul @ torch.diag(sl) @ vl
        h = F.linear(h, w, lin.bias)
        if i < len(names) - 1:
            h = torch.tanh(h)
    return h


def _ref_osf_train(ranks, x, target, steps, lr, opt, params=None, model_cls=OMLP):
    """Float64 reference of OSF (paper 2.2-2.3): U_low, S_low, V_low train with projected gradients."""
    model = model_cls().double()
    for p in model.parameters():
        p.requires_grad_(False)
    if params is None:
        params = {}
        for n, k in ranks.items():
            uh, sh, vh, ul, sl, vl = _split(getattr(model, n).weight.detach(), k)
            params[n] = (uh, sh, vh, ul.clone().requires_grad_(True), sl.clone().requires_grad_(True),
                         vl.clone().requires_grad_(True))
    optim = _optim([t for v in params.values() for t in v[3:]], opt, lr)
    losses = []
    for _ in range(steps):
        optim.zero_grad()
        loss = ((_ref_osf_fwd(model, x, params) - target) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for uh, _, vh, ul, _, vl in params.values():
                ul.grad -= uh @ (uh.T @ ul.grad)
                vl.grad -= (vl.grad @ vh.T) @ vh
        optim.step()
        losses.append(loss.detach())
    return model, params, torch.stack(losses)


def _rel(a, b, scale):
    return _f(float((a - b).abs().max()) / max(float(scale), 1e-300))


OSF_TOL = {"rtol": 1e-4, "atol": 1e-6}


def _ranks_for(kind):
    # p = min(m, n): lin1 12x8 -> 8, lin2 4x12 -> 4, lin3 4x4 -> 4
    return {
        "default": {"lin1": 4, "lin2": 2, "lin3": 2},
        "int3": {"lin1": 3, "lin2": 3, "lin3": 3},
        "frac25": {"lin1": 2, "lin2": 1, "lin3": 1},
        "frac75_pattern": {"lin1": 6, "lin2": 1, "lin3": 3},
    }[kind]


OSF_CONFIGS = {
    "default": {},
    "int3": {"effective_rank": 3},
    "frac25": {"effective_rank": 0.25},
    "frac75_pattern": {"effective_rank": 0.75, "rank_pattern": {"lin2": 1}},
}


@case(params=list(OSF_CONFIGS), ids=list(OSF_CONFIGS), rtol=1e-4, atol=1e-6)
def osf_init(kind):
    """At the start the model is the pretrained one; the trainable numbers are (p - k)(m + n + 1) per matrix with
    k from the config (default half of p, an int, a fraction of p per matrix, a per-layer pattern); the base
    weights and biases are frozen."""
    x = _x((3, 8), 15)
    with torch.no_grad():
        base = OMLP().double()(x)
    pm = _osf(OMLP(), **OSF_CONFIGS[kind])
    pm.eval()
    with torch.no_grad():
        out = pm(x)
    ranks = _ranks_for(kind)
    want = 0
    for n, k in ranks.items():
        m, nn_ = getattr(OMLP(), n).weight.shape
        p = min(m, nn_)
        want += (p - k) * (m + nn_ + 1)
    types = sorted(type(m).__module__ + "." + type(m).__name__ for m in _layers(pm).values())
    reprs = all(repr(m).startswith("osf.") for m in _layers(pm).values())
    return {"out": out, "base": base, "n_trainable": _n_trainable(pm), "n_trainable_paper": want,
            "base_trainable": _base_trainable(pm), "types": types, "reprs": reprs}


OTRAIN = [("sgd", "default", 0.5), ("adam", "int3", 0.02), ("sgd", "frac75_pattern", 0.8), ("adam", "frac25", 0.01)]


@case(params=OTRAIN, ids=[f"{o}_{k}" for o, k, _ in OTRAIN], **OSF_TOL,
      outputs={k: {"compare": "none"} for k in ("out_err", "loss_err", "hi_left_err", "hi_right_err",
                                                 "unloaded_err", "merged_err")})
def osf_train(p):
    """Optimizer steps: losses and outputs = the float64 reference (projected gradients of U_low and V_low,
    S_low unprojected); with SGD the high subspace of every weight is untouched (U_high^T dW = 0, dW V_high = 0);
    the base weights do not move until a merge; disable = base; merge / merge_and_unload = adapted output."""
    opt, kind, lr = p
    x, target = _x((6, 8), 16), _x((6, 4), 17)
    with torch.no_grad():
        base = OMLP().double()(x)
    pm = _osf(OMLP(), **OSF_CONFIGS[kind])
    w0 = {n: _weight(m) for n, m in _layers(pm).items()}
    losses = _train(pm, x, target, steps=4, lr=lr, opt=opt)
    ranks = _ranks_for(kind)
    ref_model, ref_params, ref_losses = _ref_osf_train(ranks, x, target, 4, lr, opt)
    with torch.no_grad():
        out = pm(x)
        out_ref = _ref_osf_fwd(ref_model, x, ref_params)
        scale = (out_ref - base).abs().max()
        frozen = max(float((_weight(m) - w0[n]).abs().max()) for n, m in _layers(pm).items())
        with pm.disable_adapter():
            disabled = pm(x)
        pm.merge_adapter(safe_merge=(opt == "sgd"))  # both merge paths
        merged = pm(x)
        hl, hr = 0.0, 0.0
        for n, m in _layers(pm).items():
            dw = _weight(m) - w0[n]
            uh, _, vh = _split(w0[n], ranks[n])[:3]
            size = float(dw.abs().max())
            hl = max(hl, float((uh.T @ dw).abs().max()) / size)
            hr = max(hr, float((dw @ vh.T).abs().max()) / size)
        unloaded = pm.merge_and_unload()
        out_unloaded = unloaded(x)
        plain = all(type(getattr(unloaded, n)) is nn.Linear for n in OALL)
    res = {"losses": losses, "out": out, "base": base, "disabled": disabled, "frozen": _f(frozen),
           "out_err": _rel(out, out_ref, scale), "loss_err": _rel(losses, ref_losses, ref_losses.abs().max()),
           "merged_err": _rel(merged, out, scale), "unloaded_err": _rel(out_unloaded, out, scale),
           "unloaded_plain": plain}
    res["hi_left_err"] = _f(hl if opt == "sgd" else 0.0)
    res["hi_right_err"] = _f(hr if opt == "sgd" else 0.0)
    return res


@case(params=["frozen", "trainable"], ids=["frozen", "trainable"], **OSF_TOL,
      outputs={k: {"compare": "none"} for k in ("loaded_err", "cont_err")})
def osf_save_load(mode):
    """save_pretrained / from_pretrained: the reloaded adapter gives the trained outputs; with is_trainable the
    training continues with projected gradients (= the reference continued); without it nothing trains."""
    x, target = _x((6, 8), 18), _x((6, 4), 19)
    with torch.no_grad():
        base = OMLP().double()(x)
    pm = _osf(OMLP(), effective_rank=0.5)
    _train(pm, x, target, steps=2, lr=0.5, opt="sgd")
    ranks = _ranks_for("default")
    ref_model, ref_params, _ = _ref_osf_train(ranks, x, target, 2, 0.5, "sgd")
    with torch.no_grad():
        out = pm(x)
    with tempfile.TemporaryDirectory() as d:
        pm.save_pretrained(d)
        torch.manual_seed(999)
        loaded = PeftModel.from_pretrained(OMLP().double(), d, is_trainable=(mode == "trainable"))
    with torch.no_grad():
        out_loaded = loaded(x)
        scale = (out - base).abs().max()
    res = {"out": out, "loaded_err": _rel(out_loaded, out, scale), "n_trainable": _n_trainable(loaded)}
    if mode == "trainable":
        _train(loaded, x, target, steps=2, lr=0.5, opt="sgd")
        _, ref_params, _ = _ref_osf_train(ranks, x, target, 2, 0.5, "sgd", params=ref_params)
        with torch.no_grad():
            cont = loaded(x)
            cont_ref = _ref_osf_fwd(ref_model, x, ref_params)
        res["cont_err"] = _rel(cont, cont_ref, (cont_ref - base).abs().max())
    else:
        res["cont_err"] = _f(0.0)
    return res


@case(**OSF_TOL, outputs={k: {"compare": "none"} for k in ("default_err", "other_err")})
def osf_two_adapters():
    """A second OSF adapter with another retained rank: not trained while the first is; set_adapter switches;
    training it leaves the first adapter's output as it was."""
    x, target = _x((6, 8), 20), _x((6, 4), 21)
    with torch.no_grad():
        base = OMLP().double()(x)
    pm = _osf(OMLP())
    _train(pm, x, target, steps=2, lr=0.5, opt="sgd")
    with torch.no_grad():
        out_default = pm(x)
    pm.add_adapter("other", OSFConfig(target_modules=OALL, effective_rank=1))
    with torch.no_grad():
        out_default_after_add = pm(x)
    pm.set_adapter("other")
    with torch.no_grad():
        other_init = pm(x)
    n_other = _n_trainable(pm)
    _train(pm, x, target, steps=2, lr=0.3, opt="sgd")
    ranks1 = {n: 1 for n in OALL}
    ref_model, ref_params, _ = _ref_osf_train(ranks1, x, target, 2, 0.3, "sgd")
    with torch.no_grad():
        out_other = pm(x)
        ref_other = _ref_osf_fwd(ref_model, x, ref_params)
        pm.set_adapter("default")
        back = pm(x)
    scale = (out_default - base).abs().max()
    return {"out_default": out_default, "after_add": out_default_after_add, "other_init": other_init,
            "base": base, "n_other": n_other, "other_err": _rel(out_other, ref_other, (ref_other - base).abs().max()),
            "default_err": _rel(back, out_default, scale)}


@case(rtol=0, atol=0)
def osf_config_validation():
    """Refusals (any exception, anywhere up to a first step and a merge): a retained rank of zero (config or
    pattern), a LayerNorm target; all-linear accepted; peft_type."""
    x = _x((2, 8))
    errors = {
        "rank0": _refused(lambda: OSFConfig(target_modules=OALL, effective_rank=0), OMLP(), x),
        "pattern0": _refused(lambda: OSFConfig(target_modules=OALL, rank_pattern={"lin1": 0}), OMLP(), x),
        "layernorm": _refused(lambda: OSFConfig(target_modules=["norm"]), WithNorm(), _x((2, 4))),
    }
    ok = {"all_linear": not _refused(lambda: OSFConfig(target_modules="all-linear"), OMLP(), x)}
    pm = _osf(OMLP(), target_modules="all-linear")
    return {"errors": errors, "ok": ok, "n_layers": len(_layers(pm)),
            "peft_type": str(OSFConfig(target_modules=OALL).peft_type.value)}


@case(rtol=0, atol=0)
def safe_merge_nan():
    """merge(safe_merge=True) refuses an adapter that would put NaN into the weights and leaves them as they were
    (the `merge` docstrings); without NaN a safe merge goes through."""
    pm = _hira(MLP(), r=2)
    _give(pm, 2, seed=71, with_b=True)
    m = _layers(pm)["lin1"]
    w0 = {n: _weight(q) for n, q in _layers(pm).items()}
    _set_factor(m, "hira_A", torch.full((2, 6), float("nan"), dtype=torch.float64))
    hira_refused = _raises(lambda: pm.merge_adapter(safe_merge=True))
    hira_w = _weight(m)
    po = _osf(OMLP(), effective_rank=2)
    lo = _layers(po)["lin1"]
    ow0 = _weight(lo)
    with torch.no_grad():
        for q in lo.parameters():
            if q.requires_grad:  # the trainable low factors
                q.fill_(float("nan"))
    osf_refused = _raises(lambda: po.merge_adapter(safe_merge=True))
    osf_w = _weight(lo)
    return {"hira_refused": hira_refused, "hira_w": hira_w, "hira_w0": w0["lin1"], "osf_refused": osf_refused,
            "osf_w": osf_w, "osf_w0": ow0}
