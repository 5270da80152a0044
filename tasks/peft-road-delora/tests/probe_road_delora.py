"""Probe for peft-road-delora/1: the RoAd and DeLoRA tuners reached through peft's public entry points
(get_peft_model, forward in train/eval, training steps, merge/unmerge, merge_and_unload, disable_adapter,
mixed-adapter batches, save_pretrained/from_pretrained, add/set/delete_adapter, register_peft_method) on tiny
models built here with seeded float64 weights.

RoAd's parameters are only ever set by the method itself (identity initialisation, then optimizer steps), so the
outputs do not depend on how a layer lays out its angles and scales; DeLoRA's factors are set by name
(`delora_A`, `delora_B`, `delora_lambda`: the layer's `adapter_layer_names`) with the shapes the paper gives."""

from __future__ import annotations

import tempfile
import warnings

import torch
from lmrbench_probe import case
from peft import DeloraConfig, PeftModel, RoadConfig, get_peft_model
from peft.tuners.tuners_utils import BaseTunerLayer
from torch import nn

warnings.filterwarnings("ignore")


class MLP(nn.Module):
    """Linear 6->8 -> tanh -> Linear 8->8 -> tanh -> Linear 8->4 (all with bias)."""

    def __init__(self, seed: int = 0, bias: bool = True):
        super().__init__()
        torch.manual_seed(seed)
        self.lin1 = nn.Linear(6, 8, bias=bias)
        self.lin2 = nn.Linear(8, 8, bias=bias)
        self.head = nn.Linear(8, 4, bias=bias)

    def forward(self, x):
        return self.head(torch.tanh(self.lin2(torch.tanh(self.lin1(x)))))


class Wide(nn.Module):
    """Linear 5->12 -> tanh -> Linear 12->12, for group sizes 4, 6 and 12."""

    def __init__(self, seed: int = 0):
        super().__init__()
        torch.manual_seed(seed)
        self.a = nn.Linear(5, 12)
        self.b = nn.Linear(12, 12)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x)))


class Block(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.lin = nn.Linear(width, width)

    def forward(self, x):
        return x + torch.tanh(self.lin(x))


class Stack(nn.Module):
    """Three residual blocks in a `layers` ModuleList (width 4) and a 4 -> 4 output layer."""

    def __init__(self, seed: int = 0):
        super().__init__()
        torch.manual_seed(seed)
        self.layers = nn.ModuleList([Block(4) for _ in range(3)])
        self.out = nn.Linear(4, 4)

    def forward(self, x):
        for block in self.layers:
            x = block(x)
        return self.out(x)


class WithNorm(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.lin = nn.Linear(4, 4)
        self.norm = nn.LayerNorm(4)

    def forward(self, x):
        return self.norm(self.lin(x))


ALL = ["lin1", "lin2", "head"]


def _x(shape, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64)


def _raises(fn):
    try:
        fn()
    except Exception:
        return True
    return False


def _tuner_layers(model):
    return [(n, m) for n, m in model.named_modules() if isinstance(m, BaseTunerLayer)]


def _trainable(model):
    return [p for p in model.parameters() if p.requires_grad]


def _n_trainable(model):
    return sum(p.numel() for p in _trainable(model))


def _road(model, adapter_name="default", **kw):
    kw.setdefault("group_size", 4)
    kw.setdefault("target_modules", ALL if kw["group_size"] <= 4 else ["lin1", "lin2"])
    return get_peft_model(model.double(), RoadConfig(**kw), adapter_name=adapter_name)


def _train(pm, x, target, steps=4, lr=0.05, opt="adam"):
    """A few optimizer steps on a mean squared error; returns the losses."""
    pm.train()
    params = _trainable(pm)
    optim = torch.optim.Adam(params, lr=lr) if opt == "adam" else torch.optim.SGD(params, lr=lr)
    losses = []
    for _ in range(steps):
        optim.zero_grad()
        loss = ((pm(x) - target) ** 2).mean()
        loss.backward()
        optim.step()
        losses.append(loss.detach())
    pm.eval()
    return torch.stack(losses)


def _weights(pm):
    return {n: (m.get_base_layer().weight.detach().clone(),
                None if m.get_base_layer().bias is None else m.get_base_layer().bias.detach().clone())
            for n, m in _tuner_layers(pm)}


def _max_weight_diff(pm, before):
    """Largest change of any adapted layer's weight or bias; inf where a value became NaN (Python's max drops NaN)."""
    diff = 0.0
    for n, m in _tuner_layers(pm):
        w0, b0 = before[n]
        pairs = [(m.get_base_layer().weight, w0)] + ([(m.get_base_layer().bias, b0)] if b0 is not None else [])
        for now, then in pairs:
            d = (now - then).abs().max()
            diff = max(diff, float(d) if bool(torch.isfinite(d)) else float("inf"))
    return torch.tensor(diff, dtype=torch.float64)


# ================================================================ RoAd


ROAD_INIT = [("road_1", 4), ("road_2", 4), ("road_4", 4), ("road_1", 8), ("road_2", 2), ("road_4", 8)]


@case(params=ROAD_INIT, ids=[f"{v}_g{g}" for v, g in ROAD_INIT], rtol=1e-12, atol=1e-12)
def road_identity_init(p):
    """At initialisation R = I: the adapted model equals the base model; trainable numbers per variant."""
    variant, g = p
    x = _x((3, 6))
    with torch.no_grad():
        ref = MLP().double()(x)
    pm = _road(MLP(), variant=variant, group_size=g)
    pm.eval()
    with torch.no_grad():
        out = pm(x)
    return {"out": out, "base": ref, "n_trainable": _n_trainable(pm), "n_layers": len(_tuner_layers(pm)),
            "base_frozen": all(not p.requires_grad for n, p in pm.named_parameters() if "base_layer" in n),
            "layer_types": sorted({type(m).__module__ + "." + type(m).__name__ for _, m in _tuner_layers(pm)})}


ROAD_TRAIN = [("road_1", 4, "adam"), ("road_2", 4, "adam"), ("road_4", 4, "adam"), ("road_1", 8, "sgd"),
              ("road_2", 2, "sgd"), ("road_4", 8, "sgd")]


# RoAd's merge (R W, R b) and unmerge (R^-1) may be taken in float32 (the release inverts R in float32; neither
# paper.md 1.5 nor any visible text fixes the precision of the merge): merged outputs compared at 1e-5.
@case(params=ROAD_TRAIN, ids=[f"{v}_g{g}_{o}" for v, g, o in ROAD_TRAIN], rtol=1e-8, atol=1e-10,
      outputs={"unmerge_restores": {"rtol": 0, "atol": 1e-5}, "unmerged": {"rtol": 1e-5, "atol": 1e-6},
               "merged": {"rtol": 1e-5, "atol": 1e-6},
               "disabled": {"rtol": 1e-5, "atol": 1e-6}, "unloaded": {"rtol": 1e-5, "atol": 1e-6},
               "disabled_merged": {"rtol": 1e-5, "atol": 1e-6}, "after_disable": {"rtol": 1e-5, "atol": 1e-6}})
def road_train_merge(p):
    """Optimizer steps from the identity; merged = unmerged; unmerge restores W and b; merge_and_unload."""
    variant, g, opt = p
    x = _x((10, 6), 2)
    target = _x((10, 4), 3)
    pm = _road(MLP(), variant=variant, group_size=g)
    losses = _train(pm, x, target, steps=4, lr=0.05 if opt == "adam" else 0.5, opt=opt)
    xe = _x((5, 6), 4)
    before = _weights(pm)
    with torch.no_grad():
        y = pm(xe)
        pm.merge_adapter()
        y_merged = pm(xe)
        pm.unmerge_adapter()
        y_unmerged = pm(xe)
        restored = _max_weight_diff(pm, before)
        with pm.disable_adapter():
            y_disabled = pm(xe)
        pm.merge_adapter()
        with pm.disable_adapter():
            y_disabled_merged = pm(xe)
        y_after_disable = pm(xe)
        merged_model = pm.merge_and_unload(safe_merge=True)
        y_unloaded = merged_model(xe)
    return {"losses": losses, "out": y, "merged": y_merged, "unmerged": y_unmerged, "disabled": y_disabled,
            "disabled_merged": y_disabled_merged, "after_disable": y_after_disable,
            "unloaded": y_unloaded, "unmerge_restores": restored,
            "unloaded_has_tuner": len(_tuner_layers(merged_model)) > 0}


@case(params=["road_1", "road_2", "road_4"], rtol=1e-8, atol=1e-10,
      outputs={k: {"rtol": 1e-5, "atol": 1e-6} for k in ("merged_w0", "merged_w2", "merged_b2")})
def road_bias_free_and_layer(variant):
    """One bias-free layer trained with SGD: its output after training, its merged weight, and the layer
    output as a function of the base layer's output (R acts on W x + b, element pairs inside each group)."""
    lin = nn.Sequential(nn.Linear(6, 8, bias=False), nn.Tanh(), nn.Linear(8, 8))
    torch.manual_seed(5)
    pm = get_peft_model(lin.double(), RoadConfig(variant=variant, group_size=8, target_modules=["0", "2"]))
    x = _x((7, 6), 5)
    _train(pm, x, _x((7, 8), 6), steps=3, lr=0.3, opt="sgd")
    with torch.no_grad():
        out = pm(x)
        layers = dict(_tuner_layers(pm))
        layer = layers["base_model.model.2"]
        h = torch.tanh(layers["base_model.model.0"](x))
        z = layer.get_base_layer()(h)
        y = layer(h)
        pm.merge_adapter()
        w0 = layers["base_model.model.0"].get_base_layer().weight.detach().clone()
        w2 = layer.get_base_layer().weight.detach().clone()
        b2 = layer.get_base_layer().bias.detach().clone()
    return {"out": out, "z": z, "y": y, "merged_w0": w0, "merged_w2": w2, "merged_b2": b2}


@case(rtol=1e-8, atol=1e-10)
def road_group_sizes():
    """Group sizes 4, 6 and 12 on 12-wide layers after Adam steps (the group size changes the pairing only)."""
    out = {}
    x = _x((6, 5), 7)
    target = _x((6, 12), 8)
    for g in (4, 6, 12):
        pm = get_peft_model(Wide().double(), RoadConfig(variant="road_2", group_size=g, target_modules=["a", "b"]))
        losses = _train(pm, x, target, steps=3, lr=0.1)
        with torch.no_grad():
            out[f"g{g}"] = pm(x)
        out[f"losses_g{g}"] = losses
    return out


@case(params=["road_1", "road_4"], rtol=1e-8, atol=1e-10)
def road_mixed_batch(variant):
    """Two adapters trained differently; one batch mixes them and the base model (efficient batching)."""
    x = _x((8, 6), 9)
    pm = _road(MLP(), variant=variant, adapter_name="a")
    pm.add_adapter("b", RoadConfig(variant=variant, group_size=4, target_modules=ALL))
    n_after_add = _n_trainable(pm)
    _train(pm, x, _x((8, 4), 10), steps=3, lr=0.1)
    pm.set_adapter("b")
    n_b = _n_trainable(pm)
    _train(pm, x, _x((8, 4), 11), steps=3, lr=0.1)
    xe = _x((5, 6), 12)
    names = ["a", "b", "__base__", "b", "a"]
    with torch.no_grad():
        pm.set_adapter("a")
        ya = pm(xe)
        pm.set_adapter("b")
        yb = pm(xe)
        with pm.disable_adapter():
            y0 = pm(xe)
        mixed = pm(xe, adapter_names=names)
        after_mixed = pm(xe)
    errors = {}
    pm.train()
    errors["training_mode"] = _raises(lambda: pm(xe, adapter_names=names))
    pm.eval()
    errors["unknown_adapter"] = _raises(lambda: pm(xe, adapter_names=["a", "zz", "b", "a", "a"]))
    with torch.no_grad():
        again = pm(xe)
    return {"a": ya, "b": yb, "base": y0, "mixed": mixed, "after_mixed": after_mixed, "after_errors": again,
            "errors": errors,
            "n_trainable_after_add": n_after_add, "n_trainable_b": n_b}


@case(params=["road_2", "road_4"], rtol=1e-10, atol=1e-12)
def road_save_load(variant):
    """Save after training; load onto a fresh base model (global RNG disturbed): same outputs; loads frozen."""
    x = _x((6, 6), 13)
    pm = _road(MLP(), variant=variant)
    _train(pm, x, _x((6, 4), 14), steps=3, lr=0.1)
    xe = _x((4, 6), 15)
    with torch.no_grad():
        y = pm(xe)
    with tempfile.TemporaryDirectory() as d:
        pm.save_pretrained(d)
        torch.manual_seed(1234)
        loaded = PeftModel.from_pretrained(MLP(seed=0).double(), d)
        loaded.eval()
        with torch.no_grad():
            y_loaded = loaded(xe)
        n_frozen = _n_trainable(loaded)
        trainable = PeftModel.from_pretrained(MLP(seed=0).double(), d, is_trainable=True)
        n_train = _n_trainable(trainable)
        cfg = loaded.peft_config["default"]
    return {"out": y, "loaded": y_loaded, "n_trainable_loaded": n_frozen, "n_trainable_is_trainable": n_train,
            "cfg": [cfg.variant, cfg.group_size, str(cfg.peft_type.value)]}


@case(params=["road_1", "road_4"], rtol=1e-2, atol=1e-2)
def road_bf16(variant):
    """A bfloat16 base model at initialisation: adapter kept in float32 by default (autocast_adapter_dtype),
    output in bf16 and equal to the base model's."""
    x = _x((6, 6), 16).to(torch.bfloat16)
    model = MLP().to(torch.bfloat16)
    pm = get_peft_model(model, RoadConfig(variant=variant, group_size=4, target_modules=ALL))
    pm.eval()
    with torch.no_grad():
        ref = MLP().to(torch.bfloat16)(x)
        y = pm(x)
    dtypes = sorted({str(p.dtype) for p in _trainable(pm)})
    return {"dtype": str(y.dtype), "param_dtypes": dtypes, "out": y.double(), "base": ref.double(),
            "finite": bool(torch.isfinite(y).all())}


@case(compare="exact")
def road_config_validation():
    return {
        "bad_variant": _raises(lambda: RoadConfig(variant="road_3", target_modules=ALL)),
        "odd_group": _raises(lambda: RoadConfig(group_size=3, target_modules=ALL)),
        "zero_group": _raises(lambda: RoadConfig(group_size=0, target_modules=ALL)),
        "neg_group": _raises(lambda: RoadConfig(group_size=-4, target_modules=ALL)),
        "ok": not _raises(lambda: [RoadConfig(variant=v, group_size=2, target_modules=ALL)
                                   for v in ("road_1", "road_2", "road_4")]),
        "peft_type": str(RoadConfig(target_modules=ALL).peft_type.value),
        "target_modules_type": type(RoadConfig(target_modules=["lin1", "lin2"]).target_modules).__name__,
        "indivisible_out": _raises(lambda: _road(MLP(), group_size=16)),
        "indivisible_head": _raises(lambda: _road(MLP(), group_size=8, target_modules=ALL)),
        "indivisible_6": _raises(lambda: _road(MLP(), group_size=6, target_modules=["lin2"])),
        "unsupported_layer": _raises(lambda: get_peft_model(WithNorm().double(),
                                                            RoadConfig(group_size=4, target_modules=["norm"]))),
    }


@case(compare="exact")
def road_safe_merge_nan():
    """safe_merge refuses a broken adapter and leaves the weight alone."""
    pm = _road(MLP())
    with torch.no_grad():
        for p in _trainable(pm):
            p.fill_(float("nan"))
    before = _weights(pm)
    raised = _raises(lambda: [m.merge(safe_merge=True) for _, m in _tuner_layers(pm)])
    unchanged = _max_weight_diff(pm, before)
    return {"raised": raised, "unchanged": unchanged}


@case(rtol=1e-8, atol=1e-10)
def road_layers_and_delete():
    """layers_to_transform selection, a second adapter, deleting the active one."""
    pm = get_peft_model(Stack().double(), RoadConfig(variant="road_1", group_size=2,
                                                     target_modules=r".*layers\.[02]\.lin"))
    wrapped = [n for n, _ in _tuner_layers(pm)]
    x = _x((5, 4), 18)
    _train(pm, x, _x((5, 4), 19), steps=3, lr=0.1)
    with torch.no_grad():
        y_default = pm(x)
    pm.add_adapter("other", RoadConfig(variant="road_2", group_size=4, target_modules=["lin", "out"]))
    wrapped2 = [n for n, _ in _tuner_layers(pm)]
    n_after_add = _n_trainable(pm)
    pm.set_adapter("other")
    _train(pm, x, _x((5, 4), 20), steps=2, lr=0.1)
    with torch.no_grad():
        y_other = pm(x)
    pm.delete_adapter("other")
    with torch.no_grad():
        y_after = pm(x)
    keys = [k for k in pm.state_dict() if "other" in k]
    return {"wrapped": wrapped, "wrapped2": wrapped2, "default": y_default, "other": y_other, "after": y_after,
            "active": pm.active_adapters, "other_keys": len(keys), "n_trainable_after_add": n_after_add}


# ================================================================ DeLoRA


def _delora(model, **kw):
    kw.setdefault("target_modules", ALL)
    kw.setdefault("r", 2)
    return get_peft_model(model.double(), DeloraConfig(**kw))


def _set_factors(pm, adapter="default", seed=0, lam=None):
    """Give every DeLoRA layer seeded A (r x in) and B (out x r) and optionally its lambda (by name)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, m in _tuner_layers(pm):
            if adapter not in m.delora_A:
                continue
            A, B = m.delora_A[adapter], m.delora_B[adapter]
            A.copy_(torch.randn(A.shape, generator=g, dtype=torch.float64).to(A.dtype))
            B.copy_(torch.randn(B.shape, generator=g, dtype=torch.float64).to(B.dtype))
            if lam is not None:
                m.delora_lambda[adapter].fill_(lam)


@case(params=[(1, 15), (2, 3), (4, 0.5)], ids=["r1_l15", "r2_l3", "r4_l05"], rtol=1e-12, atol=1e-12)
def delora_identity_init(p):
    """B = 0 at initialisation: the adapted model equals the base model; trainable numbers r(in+out)+1."""
    r, lam = p
    x = _x((3, 6))
    with torch.no_grad():
        ref = MLP().double()(x)
    pm = _delora(MLP(), r=r, delora_lambda=lam)
    pm.eval()
    with torch.no_grad():
        out = pm(x)
    shapes = {n: [list(m.delora_A["default"].shape), list(m.delora_B["default"].shape),
                  float(m.delora_lambda["default"])] for n, m in _tuner_layers(pm)}
    return {"out": out, "base": ref, "n_trainable": _n_trainable(pm), "shapes": shapes,
            "B_zero": all(bool((m.delora_B["default"] == 0).all()) for _, m in _tuner_layers(pm)),
            "A_nonzero": all(bool((m.delora_A["default"] != 0).any()) for _, m in _tuner_layers(pm)),
            "base_frozen": all(not p.requires_grad for n, p in pm.named_parameters() if "base_layer" in n)}


DELORA_FWD = [(1, 15.0), (2, 3.0), (3, 0.7), (4, 2.0)]


# DeLoRA tolerances (rtol/atol 1e-6): paper.md 2.2 defines the fixed column norms of W but not the precision they
# are taken in; norms of the float64 weight taken in float32 (a common upcast idiom) move outputs by ~1e-7.
DELORA_TOL = {"rtol": 1e-6, "atol": 1e-6}


@case(params=DELORA_FWD, ids=[f"r{r}_l{lam}" for r, lam in DELORA_FWD], **DELORA_TOL)
def delora_forward_merge(p):
    """Seeded factors: outputs, delta weights, merged = unmerged, unmerge restores the weight."""
    r, lam = p
    pm = _delora(MLP(), r=r, delora_lambda=lam)
    pm.eval()
    _set_factors(pm, seed=r)
    xe = _x((5, 6), 21)
    before = _weights(pm)
    with torch.no_grad():
        y = pm(xe)
        deltas = {n: m.get_delta_weight("default").detach().double() for n, m in _tuner_layers(pm)}
        pm.merge_adapter()
        y_merged = pm(xe)
        pm.unmerge_adapter()
        restored = _max_weight_diff(pm, before)
        y_unmerged = pm(xe)
        with pm.disable_adapter():
            y_disabled = pm(xe)
        pm.merge_adapter()
        with pm.disable_adapter():
            y_disabled_merged = pm(xe)
        y_after_disable = pm(xe)
        unloaded = pm.merge_and_unload(safe_merge=True)
        y_unloaded = unloaded(xe)
    return {"out": y, "delta": deltas, "merged": y_merged, "unmerged": y_unmerged, "disabled": y_disabled,
            "disabled_merged": y_disabled_merged, "after_disable": y_after_disable,
            "unloaded": y_unloaded, "unmerge_restores": restored}


@case(params=["sgd", "adam"], **DELORA_TOL)
def delora_train(opt):
    """Optimizer steps from seeded factors: A, B and lambda move; the base weight and its norms stay fixed."""
    pm = _delora(MLP(), r=2, delora_lambda=2.0)
    _set_factors(pm, seed=7)
    x = _x((10, 6), 22)
    losses = _train(pm, x, _x((10, 4), 23), steps=4, lr=0.05 if opt == "adam" else 0.2, opt=opt)
    xe = _x((5, 6), 24)
    with torch.no_grad():
        y = pm(xe)
        lams = {n: float(m.delora_lambda["default"]) for n, m in _tuner_layers(pm)}
        pm.merge_adapter()
        y_merged = pm(xe)
    return {"losses": losses, "out": y, "lambdas": lams, "merged": y_merged, "n_trainable": _n_trainable(pm)}


@case(**DELORA_TOL)
def delora_patterns():
    """rank_pattern / lambda_pattern override r and lambda per layer."""
    pm = _delora(MLP(), r=2, delora_lambda=4.0, rank_pattern={"lin2": 3}, lambda_pattern={"head": 0.5})
    pm.eval()
    shapes = {n: [list(m.delora_A["default"].shape), float(m.delora_lambda["default"])]
              for n, m in _tuner_layers(pm)}
    _set_factors(pm, seed=3)
    with torch.no_grad():
        y = pm(_x((4, 6), 25))
    return {"shapes": shapes, "out": y, "n_trainable": _n_trainable(pm)}


@case(**DELORA_TOL)
def delora_save_load():
    pm = _delora(MLP(), r=3, delora_lambda=1.5)
    _set_factors(pm, seed=11)
    x = _x((6, 6), 26)
    _train(pm, x, _x((6, 4), 27), steps=2, lr=0.05)
    xe = _x((4, 6), 28)
    with torch.no_grad():
        y = pm(xe)
    with tempfile.TemporaryDirectory() as d:
        pm.save_pretrained(d)
        torch.manual_seed(999)
        loaded = PeftModel.from_pretrained(MLP().double(), d)
        loaded.eval()
        with torch.no_grad():
            y_loaded = loaded(xe)
        n_frozen = _n_trainable(loaded)
        n_train = _n_trainable(PeftModel.from_pretrained(MLP().double(), d, is_trainable=True))
    return {"out": y, "loaded": y_loaded, "n_trainable_loaded": n_frozen, "n_trainable_is_trainable": n_train}


@case(**DELORA_TOL)
def delora_adapters():
    """A second adapter (not trainable when added), switching, deleting; dropout is inactive in eval mode."""
    pm = _delora(MLP(), r=2, delora_lambda=2.0, module_dropout=0.5, target_modules=["lin2", "head"])
    _set_factors(pm, seed=1)
    pm.add_adapter("two", DeloraConfig(r=1, delora_lambda=5.0, target_modules=["lin1", "lin2"]))
    n_after_add = _n_trainable(pm)
    _set_factors(pm, adapter="two", seed=2)
    xe = _x((5, 6), 29)
    pm.eval()
    with torch.no_grad():
        y1 = pm(xe)
        y1_again = pm(xe)
        pm.train()
        torch.manual_seed(0)
        train_differs = any(bool((pm(xe) - y1).abs().max() > 1e-9) for _ in range(6))
        pm.eval()
        pm.set_adapter("two")
        n_two = _n_trainable(pm)
        y2 = pm(xe)
        pm.set_adapter("default")
        pm.delete_adapter("two")
        y_after = pm(xe)
    keys = [k for k in pm.state_dict() if "two" in k]
    return {"one": y1, "one_again": y1_again, "two": y2, "after_delete": y_after, "active": pm.active_adapters,
            "n_trainable_after_add": n_after_add, "n_trainable_two": n_two, "two_keys": len(keys),
            "dropout_acts_in_training": train_differs}


@case(compare="exact")
def delora_random_init_and_errors():
    x = _x((3, 6))
    with torch.no_grad():
        ref = MLP().double()(x)
    torch.manual_seed(0)
    pm = _delora(MLP(), r=2, init_weights=False)
    pm.eval()
    with torch.no_grad():
        out = pm(x)
    return {"changes_output": bool((out - ref).abs().max() > 1e-6),
            "B_nonzero": all(bool((m.delora_B["default"] != 0).any()) for _, m in _tuner_layers(pm)),
            "unsupported_layer": _raises(lambda: get_peft_model(WithNorm().double(),
                                                                DeloraConfig(r=2, target_modules=["norm"]))),
            "r0_layer": _raises(lambda: _delora(MLP(), r=2, rank_pattern={"lin1": 0})),
            "lora_conversion": all(m.supports_lora_conversion() for _, m in _tuner_layers(pm)),
            "repr": sorted({repr(m).split("(")[0] for _, m in _tuner_layers(pm)})}


@case(compare="exact")
def delora_safe_merge_nan():
    pm = _delora(MLP())
    with torch.no_grad():
        for _, m in _tuner_layers(pm):
            m.delora_lambda["default"].fill_(float("nan"))
    before = _weights(pm)
    raised = _raises(lambda: [m.merge(safe_merge=True) for _, m in _tuner_layers(pm)])
    unchanged = _max_weight_diff(pm, before)
    return {"raised": raised, "unchanged": unchanged}


@case(compare="exact")
def repr_road():
    pm = _road(MLP())
    return {"repr": sorted({repr(m).split("(")[0] for _, m in _tuner_layers(pm)})}


# ================================================================ registration


@case(compare="exact", outputs={"ROAD.2": {"compare": "none"}, "DELORA.2": {"compare": "none"}})
def registration():
    from peft import LoKrConfig, LoKrModel, VBLoRAConfig, VBLoRAModel
    from peft.mapping import (
        PEFT_TYPE_TO_CONFIG_MAPPING,
        PEFT_TYPE_TO_MIXED_MODEL_MAPPING,
        PEFT_TYPE_TO_PREFIX_MAPPING,
        PEFT_TYPE_TO_TUNER_MAPPING,
    )
    from peft.tuners.delora import DeloraModel
    from peft.tuners.road import RoadModel
    from peft.utils import PeftType, register_peft_method

    out = {}
    for t in (PeftType.ROAD, PeftType.DELORA):
        out[t.value] = [PEFT_TYPE_TO_CONFIG_MAPPING[t].__name__, PEFT_TYPE_TO_TUNER_MAPPING[t].__name__,
                        PEFT_TYPE_TO_PREFIX_MAPPING[t], t in PEFT_TYPE_TO_MIXED_MODEL_MAPPING]
    reg = dict(config_cls=RoadConfig, model_cls=RoadModel)
    out["again"] = _raises(lambda: register_peft_method(name="road", **reg))
    out["again_delora"] = _raises(lambda: register_peft_method(name="delora", config_cls=DeloraConfig,
                                                               model_cls=DeloraModel))
    out["underscore"] = _raises(lambda: register_peft_method(name="road_", **reg))
    out["unknown"] = _raises(lambda: register_peft_method(name="notamethod", **reg))
    saved = [(m, dict(m)) for m in (PEFT_TYPE_TO_CONFIG_MAPPING, PEFT_TYPE_TO_TUNER_MAPPING,
                                    PEFT_TYPE_TO_PREFIX_MAPPING, PEFT_TYPE_TO_MIXED_MODEL_MAPPING)]
    try:
        for m, _ in saved:
            m.pop(PeftType.LOKR, None)
            m.pop(PeftType.VBLORA, None)
        register_peft_method(name="vblora", config_cls=VBLoRAConfig, model_cls=VBLoRAModel, prefix="vblora_")
        register_peft_method(name="lokr", config_cls=LoKrConfig, model_cls=LoKrModel, is_mixed_compatible=True)
        out["re_vblora"] = [PEFT_TYPE_TO_PREFIX_MAPPING.get(PeftType.VBLORA),
                            PEFT_TYPE_TO_TUNER_MAPPING.get(PeftType.VBLORA) is VBLoRAModel,
                            PEFT_TYPE_TO_CONFIG_MAPPING.get(PeftType.VBLORA) is VBLoRAConfig,
                            PeftType.VBLORA in PEFT_TYPE_TO_MIXED_MODEL_MAPPING]
        out["re_lokr"] = [PEFT_TYPE_TO_PREFIX_MAPPING.get(PeftType.LOKR),
                          PEFT_TYPE_TO_MIXED_MODEL_MAPPING.get(PeftType.LOKR) is LoKrModel]
    finally:
        for m, content in saved:
            m.clear()
            m.update(content)
    return out


# ================================================================ the pieces GLoRA, HiRA and OSF share


@case(rtol=1e-10, atol=1e-12)
def glora_mixed_batch():
    from peft import GloraConfig

    torch.manual_seed(0)
    pm = get_peft_model(MLP().double(), GloraConfig(r=2, target_modules=["lin1", "head"], init_weights=False),
                        adapter_name="a")
    torch.manual_seed(1)
    pm.add_adapter("b", GloraConfig(r=2, target_modules=["lin1", "head"], init_weights=False))
    pm.eval()
    xe = _x((4, 6), 30)
    with torch.no_grad():
        pm.set_adapter("a")
        ya = pm(xe)
        pm.set_adapter("b")
        yb = pm(xe)
        mixed = pm(xe, adapter_names=["b", "__base__", "a", "b"])
        after_mixed = pm(xe)
        with pm.disable_adapter():
            y0 = pm(xe)
    errors = {"unknown": _raises(lambda: pm(xe, adapter_names=["a", "b", "c", "a"]))}
    pm.train()
    errors["training"] = _raises(lambda: pm(xe, adapter_names=["a", "b", "a", "a"]))
    pm.eval()
    with torch.no_grad():
        after = pm(xe)
    return {"a": ya, "b": yb, "base": y0, "mixed": mixed, "after_mixed": after_mixed, "after": after,
            "errors": errors}


@case(rtol=1e-10, atol=1e-12)
def hira_osf_dispatch():
    from peft import HiraConfig, OSFConfig

    x = _x((3, 6), 31)
    torch.manual_seed(0)
    pm = get_peft_model(MLP().double(), HiraConfig(r=2, target_modules=["lin1", "lin2"], init_weights=False))
    pm.eval()
    with torch.no_grad():
        y_hira = pm(x)
    hira_types = sorted({type(m).__name__ for _, m in _tuner_layers(pm)})
    hira_bad = _raises(lambda: get_peft_model(WithNorm().double(), HiraConfig(r=2, target_modules=["norm"])))
    torch.manual_seed(0)
    po = get_peft_model(MLP().double(), OSFConfig(effective_rank=2, target_modules=["lin1", "head"]))
    po.eval()
    with torch.no_grad():
        y_osf = po(x)
        ref = MLP().double()(x)
    osf_types = sorted({type(m).__module__ + "." + type(m).__name__ for _, m in _tuner_layers(po)})
    osf_bad = _raises(lambda: get_peft_model(WithNorm().double(), OSFConfig(target_modules=["norm"])))
    return {"hira": y_hira, "hira_types": hira_types, "hira_bad": hira_bad, "osf": y_osf, "base": ref,
            "osf_types": osf_types, "osf_bad": osf_bad}
