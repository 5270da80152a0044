"""Probe for peft-tinylora/1: the TinyLoRA tuner reached through peft's public entry points (get_peft_model,
forward, merge/unmerge, get_delta_weight, save_pretrained/from_pretrained, add/set/delete_adapter) on tiny
models built here with seeded float64 weights. Outputs that depend on the random projections P or on the signs
of singular vectors are emitted with compare="none" and judged by check_tinylora.py against the model's own
frozen factors; everything the paper or the package decides is compared with the release's outputs."""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path

import torch
from lmrbench_probe import case
from peft import PeftModel, TinyLoraConfig, get_peft_model
from peft.tuners.tuners_utils import BaseTunerLayer
from torch import nn
from transformers.pytorch_utils import Conv1D

warnings.filterwarnings("ignore")

IDS = torch.tensor([[1, 4, 7, 12], [0, 3, 3, 9], [11, 2, 5, 6]])


class Net(nn.Module):
    """Embedding (13 x 6) -> Linear 6->8 -> ReLU -> Linear 8->5 -> ReLU -> Linear 5->3."""

    def __init__(self, seed: int = 0):
        super().__init__()
        torch.manual_seed(seed)
        self.emb = nn.Embedding(13, 6)
        self.lin1 = nn.Linear(6, 8)
        self.lin2 = nn.Linear(8, 5)
        self.head = nn.Linear(5, 3)

    def forward(self, ids):
        return self.head(torch.relu(self.lin2(torch.relu(self.lin1(self.emb(ids))))))


class ConvNet(nn.Module):
    """Two GPT-2 style Conv1D layers (weights stored as (in, out)): 6 -> 7 -> 5."""

    def __init__(self, seed: int = 0):
        super().__init__()
        torch.manual_seed(seed)
        self.c1 = Conv1D(7, 6)
        self.c2 = Conv1D(5, 7)
        with torch.no_grad():
            self.c1.weight.normal_(0.0, 0.5)
            self.c2.weight.normal_(0.0, 0.5)
            self.c1.bias.normal_(0.0, 0.1)

    def forward(self, x):
        return self.c2(torch.tanh(self.c1(x)))


class Block(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.lin = nn.Linear(width, width)
        self.gate = nn.Linear(width, width)

    def forward(self, x):
        return x + torch.tanh(self.lin(x)) * torch.sigmoid(self.gate(x))


class Stack(nn.Module):
    """Four residual blocks in a `layers` ModuleList, width 6, then a 6 -> 2 head."""

    def __init__(self, seed: int = 0, depth: int = 4):
        super().__init__()
        torch.manual_seed(seed)
        self.layers = nn.ModuleList([Block(6) for _ in range(depth)])
        self.out = nn.Linear(6, 2)

    def forward(self, x):
        for block in self.layers:
            x = block(x)
        return self.out(x)


class WithConv2d(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(2, 3, 3)
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.conv(x)


def _peft(model, **kw):
    kw.setdefault("r", 2)
    kw.setdefault("u", 3)
    return get_peft_model(model.double(), TinyLoraConfig(**kw))


def _x(shape, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64)


def _tl_layers(model):
    return [(n, m) for n, m in model.named_modules() if isinstance(m, BaseTunerLayer) and hasattr(m, "tinylora_A")]


def _trainable(model):
    return [p for p in model.parameters() if p.requires_grad]


def _set_vs(model, scale=0.4):
    """Give every trainable vector distinct, non-zero values (in the order the model lists its parameters)."""
    ps = _trainable(model)
    with torch.no_grad():
        for k, p in enumerate(ps):
            n = p.numel()
            vals = torch.linspace(-1.0, 1.0, n, dtype=torch.float64) * scale * (k + 1) + 0.1 * (k + 1)
            p.copy_(vals.to(p.dtype))
    return [p.detach().double().clone() for p in ps]


def _factors(layer, adapter="default"):
    A = layer.tinylora_A[adapter].detach().double().clone()
    B = layer.tinylora_B[adapter].detach().double().clone()
    P = layer.tinylora_P[adapter].detach().double().clone()
    return {"A": A, "B": B, "P": P}


def _layer_input(layer, seed):
    base = layer.get_base_layer()
    if isinstance(base, nn.Embedding):
        return IDS.clone()
    n_in = base.weight.shape[0] if isinstance(base, Conv1D) else base.weight.shape[1]
    return _x((3, 2, n_in), seed)


def _layer_entry(name, layer, adapter, seed):
    x = _layer_input(layer, seed)
    with torch.no_grad():
        delta = layer(x) - layer.get_base_layer()(x)
    weight = layer.get_base_layer().weight.detach().double().clone()
    entry = {"name": name, "x": x, "delta": delta.double(), "W": weight,
             "kind": type(layer.get_base_layer()).__name__}
    entry.update(_factors(layer, adapter))
    return entry


def _layer_report(model, adapter="default"):
    """For every TinyLoRA layer holding `adapter`: an input, the layer's output minus its base layer's, the base
    weight and the frozen factors."""
    return [_layer_entry(name, layer, adapter, 10 + i) for i, (name, layer) in enumerate(_tl_layers(model))
            if adapter in layer.tinylora_A]


# ---------------------------------------------------------------- zero initialisation and parameter counts


@case(params=[(0.0, 3), (1.0, 3), (1.0, 13), (0.0, 1)], ids=["untied_u3", "tied_u3", "tied_u13", "untied_u1"],
      rtol=1e-12, atol=1e-12)
def zero_init_identity(p):
    wt, u = p
    base = Net().double()
    with torch.no_grad():
        ref = base(IDS)
    pm = _peft(Net(), u=u, weight_tying=wt, target_modules=["emb", "lin1", "lin2", "head"])
    pm.eval()
    with torch.no_grad():
        out = pm(IDS)
    vs = _trainable(pm)
    return {"out": out, "base": ref, "n_trainable": sum(p.numel() for p in vs), "n_vectors": len(vs),
            "v_all_zero": all(bool((p == 0).all()) for p in vs), "n_layers": len(_tl_layers(pm)),
            "base_frozen": all(not p.requires_grad for n, p in pm.named_parameters() if "base_layer" in n)}


# ---------------------------------------------------------------- the update of each layer (Eq. 1)


FORWARD_CONFIGS = {
    "r2_u3_untied": dict(r=2, u=3, weight_tying=0.0),
    "r1_u4_untied": dict(r=1, u=4, weight_tying=0.0),
    "r3_u2_tied": dict(r=3, u=2, weight_tying=1.0),
    "r2_u5_tied": dict(r=2, u=5, weight_tying=1.0),
}


@case(params=list(FORWARD_CONFIGS), ids=list(FORWARD_CONFIGS), compare="none")
def layer_updates(key):
    pm = _peft(Net(), target_modules=["emb", "lin1", "lin2"], **FORWARD_CONFIGS[key])
    pm.eval()
    vs = _set_vs(pm)
    return {"layers": _layer_report(pm), "vs": vs, "cfg": FORWARD_CONFIGS[key]}


@case(params=[0.5, 0.25], ids=["half", "quarter"], compare="none")
def partial_tying(wt):
    pm = _peft(Stack(), u=2, weight_tying=wt, target_modules=["lin"])
    pm.eval()
    vs = _set_vs(pm)
    return {"layers": _layer_report(pm), "vs": vs, "n_layers": len(_tl_layers(pm))}


@case(compare="none")
def conv1d_layers():
    pm = _peft(ConvNet(), u=4, target_modules=["c1", "c2"])
    pm.eval()
    vs = _set_vs(pm)
    rep = _layer_report(pm)
    deltas = [layer.get_delta_weight("default").detach().double() for _, layer in _tl_layers(pm)]
    x = _x((2, 3, 6), 5)
    with torch.no_grad():
        y0 = pm(x)
        pm.merge_adapter()
        y1 = pm(x)
    return {"layers": rep, "vs": vs, "delta_weight": deltas, "merged_minus_unmerged": (y1 - y0).abs().max()}


@case(compare="none")
def gradient_reaches_v():
    model = nn.Sequential(nn.Linear(6, 4))
    torch.manual_seed(3)
    pm = _peft(model, u=3, target_modules=["0"])
    pm.train()
    vs = _set_vs(pm)
    x = _x((5, 6), 7)
    pm(x).sum().backward()
    (_, layer), = _tl_layers(pm)
    grads = [p.grad.detach().clone() for p in _trainable(pm)]
    base_grad = layer.get_base_layer().weight.grad
    return {"x": x, "grads": grads, "vs": vs, "base_grad_is_none": base_grad is None, **_factors(layer)}


@case(compare="none")
def hand_rank1():
    """W = diag(3, 1) (bias-free), r = 1, u = 1, v = 0.5: the rank-1 update is 0.5 * P * 3 e1 e1^T."""
    model = nn.Sequential(nn.Linear(2, 2, bias=False))
    with torch.no_grad():
        model[0].weight.copy_(torch.tensor([[3.0, 0.0], [0.0, 1.0]]))
    pm = _peft(model, r=1, u=1, target_modules=["0"])
    pm.eval()
    with torch.no_grad():
        _trainable(pm)[0].fill_(0.5)
        y = pm(torch.tensor([[1.0, 1.0]], dtype=torch.float64))
    (_, layer), = _tl_layers(pm)
    return {"y": y, "P": layer.tinylora_P["default"].detach().double(),
            "delta_weight": layer.get_delta_weight("default").detach().double()}


# ---------------------------------------------------------------- merging


@case(params=[0.0, 1.0], ids=["untied", "tied"], rtol=1e-9, atol=1e-10,
      outputs={"delta_weight*": {"compare": "none"}, "layers*": {"compare": "none"}, "vs*": {"compare": "none"}})
def merge_unmerge(wt):
    pm = _peft(Net(), u=3, weight_tying=wt, target_modules=["emb", "lin1", "lin2"])
    pm.eval()
    vs = _set_vs(pm)
    report = _layer_report(pm)
    orig = {n: layer.get_base_layer().weight.detach().clone() for n, layer in _tl_layers(pm)}
    deltas = {n: layer.get_delta_weight("default").detach().double() for n, layer in _tl_layers(pm)}
    with torch.no_grad():
        y0 = pm(IDS)
        with pm.disable_adapter():
            y_off = pm(IDS)
        pm.merge_adapter()
        merged_ok = all(layer.merged for _, layer in _tl_layers(pm))
        y_merged = pm(IDS)
        with pm.disable_adapter():
            y_off_merged = pm(IDS)
        pm.merge_adapter()
        moved = max(float((layer.get_base_layer().weight - orig[n] - deltas[n]).abs().max())
                    for n, layer in _tl_layers(pm))
        pm.unmerge_adapter()
        restored = max(float((layer.get_base_layer().weight - orig[n]).abs().max()) for n, layer in _tl_layers(pm))
        y_unmerged = pm(IDS)
        for _, layer in _tl_layers(pm):
            layer.merge(safe_merge=True)
        y_safe = pm(IDS)
        for _, layer in _tl_layers(pm):
            layer.unmerge()
        plain = pm.merge_and_unload()
        y_plain = plain(IDS)
    base = Net().double()
    with torch.no_grad():
        y_base = base(IDS)
    return {"layers": report, "vs": vs, "delta_weight": list(deltas.values()),
            "merged_flag": merged_ok, "merged_diff": (y_merged - y0).abs().max(), "weight_moved_by_delta": moved,
            "restored": restored, "unmerged_diff": (y_unmerged - y0).abs().max(),
            "safe_merge_diff": (y_safe - y0).abs().max(), "plain_diff": (y_plain - y0).abs().max(),
            "disabled_minus_base": (y_off - y_base).abs().max(),
            "disabled_while_merged_minus_base": (y_off_merged - y_base).abs().max(),
            "adapter_changes_output": bool((y0 - y_base).abs().max() > 1e-6),
            "plain_has_tuner_layers": any(isinstance(m, BaseTunerLayer) for m in plain.modules())}


class Wide(nn.Module):
    """Linear 8 -> 8 -> ReLU -> Linear 8 -> 4 (sizes that GraLoRA's and C3A's block structures divide)."""

    def __init__(self, seed: int = 0):
        super().__init__()
        torch.manual_seed(seed)
        self.lin1 = nn.Linear(8, 8)
        self.lin2 = nn.Linear(8, 4)

    def forward(self, x):
        return self.lin2(torch.relu(self.lin1(x)))


def _merge_cycle(pm, x, layers, merge_fn):
    """Outputs before/after merging each layer with `merge_fn(layer, safe)`, after unmerging, and the weights."""
    pm.eval()
    orig = [layer.get_base_layer().weight.detach().clone() for layer in layers]
    deltas = [layer.get_delta_weight(layer.active_adapters[0]).detach().clone() for layer in layers]
    out = {}
    with torch.no_grad():
        y0 = pm(x)
        for safe in (False, True):
            for layer in layers:
                merge_fn(layer, safe)
            out[f"merged_{safe}"] = (pm(x) - y0).abs().max()
            out[f"moved_{safe}"] = max(float((layer.get_base_layer().weight - w - d).abs().max())
                                       for layer, w, d in zip(layers, orig, deltas, strict=True))
            out[f"flag_{safe}"] = [list(layer.merged_adapters) for layer in layers]
            for layer in layers:
                layer.unmerge()
            out[f"restored_{safe}"] = max(float((layer.get_base_layer().weight - w).abs().max())
                                          for layer, w in zip(layers, orig, strict=True))
        out["y0"] = y0
        out["merge_nothing"] = _merge_nothing(layers[0], merge_fn)
    return out


def _merge_nothing(layer, merge_fn):
    before = layer.get_base_layer().weight.detach().clone()
    merge_fn(layer, False, [])
    return {"weight_change": float((layer.get_base_layer().weight - before).abs().max()),
            "merged_adapters": list(layer.merged_adapters)}


def _nan_merge(pm, layer, merge_fn):
    with torch.no_grad():
        for p in layer.parameters():
            if p.requires_grad:
                p.fill_(float("nan"))
    before = layer.get_base_layer().weight.detach().clone()
    raised = _raises(lambda: merge_fn(layer, True))
    return {"raised": raised, "weight_change": (layer.get_base_layer().weight - before).abs().max()}


@case(params=["gralora", "c3a", "lora_parallel"], ids=["gralora", "c3a", "lora_parallel"], rtol=1e-9, atol=1e-10,
      outputs={"merged_*": {"rtol": 0, "atol": 1e-6}, "moved_*": {"rtol": 0, "atol": 1e-9},
               "restored_*": {"rtol": 0, "atol": 1e-9}})
def sibling_merges(kind):
    """The merge/unmerge of other tuners that share TinyLoRA's merge code (masked with it)."""
    from peft import C3AConfig, GraloraConfig, LoraConfig
    from peft.tuners.lora.tp_layer import LoraParallelLinear

    torch.manual_seed(0)
    if kind == "gralora":
        cfg = GraloraConfig(r=4, gralora_k=2, alpha=8, target_modules=["lin1", "lin2"], init_weights=False)
    elif kind == "c3a":
        cfg = C3AConfig(block_size=4, target_modules=["lin1", "lin2"], init_weights="xavier_uniform")
    else:
        cfg = LoraConfig(r=2, lora_alpha=4, target_modules=["lin1", "lin2"], init_lora_weights=False)
    pm = get_peft_model(Wide().double(), cfg)
    layers = [m for _, m in pm.named_modules() if isinstance(m, BaseTunerLayer)]
    if kind == "lora_parallel":
        # the tensor-parallel LoRA layer's merge, applied to an ordinary LoRA layer (same adapter attributes)
        def merge_fn(layer, safe, names=None):
            return LoraParallelLinear.merge(layer, safe_merge=safe, adapter_names=names)
    else:
        def merge_fn(layer, safe, names=None):
            return layer.merge(safe_merge=safe, adapter_names=names)
    out = _merge_cycle(pm, _x((3, 8), 21), layers, merge_fn)
    out["nan"] = _nan_merge(pm, layers[0], merge_fn)
    return out


@case(rtol=0, atol=0)
def safe_merge_rejects_nan():
    pm = _peft(Net(), u=3, target_modules=["lin1"])
    ps = _trainable(pm)
    with torch.no_grad():
        ps[0].fill_(float("nan"))
    (_, layer), = _tl_layers(pm)
    before = layer.get_base_layer().weight.detach().clone()
    raised = False
    try:
        layer.merge(safe_merge=True)
    except Exception:
        raised = True
    after = layer.get_base_layer().weight.detach()
    return {"raised": raised, "weight_change": (after - before).abs().max()}


# ---------------------------------------------------------------- saving and loading


@case(params=[(True, 0.0), (False, 0.0), (True, 1.0), (False, 1.0)],
      ids=["save_P_untied", "seed_P_untied", "save_P_tied", "seed_P_tied"], rtol=1e-9, atol=1e-10,
      outputs={"vs*": {"compare": "none"}, "loaded_vs*": {"compare": "none"}})
def save_and_load(p):
    save_projection, wt = p
    pm = _peft(Net(), u=4, weight_tying=wt, save_projection=save_projection, projection_seed=11,
               target_modules=["emb", "lin1", "lin2"])
    pm.eval()
    vs = _set_vs(pm)
    with torch.no_grad():
        y0 = pm(IDS)
    with tempfile.TemporaryDirectory() as d:
        pm.save_pretrained(d)
        from safetensors.torch import load_file

        saved = load_file(str(Path(d) / "adapter_model.safetensors"))
        cfg = json.loads((Path(d) / "adapter_config.json").read_text())
        torch.manual_seed(1234)
        torch.rand(1000)  # the global generator is in another state at load time
        loaded = PeftModel.from_pretrained(Net().double(), d)
        loaded.eval()
        with torch.no_grad():
            y1 = loaded(IDS)
        n_frozen = sum(p.numel() for p in _trainable(loaded))
        trainable = PeftModel.from_pretrained(Net().double(), d, is_trainable=True)
        loaded_vs = [p.detach().double() for p in _trainable(trainable)]
    return {"diff": (y1 - y0).abs().max(), "has_P": any("tinylora_P" in k for k in saved),
            "has_base_weights": any("base_layer" in k for k in saved),
            "peft_type": cfg["peft_type"], "cfg_r": cfg["r"], "cfg_u": cfg["u"],
            "cfg_weight_tying": cfg["weight_tying"], "cfg_save_projection": cfg["save_projection"],
            "trainable_after_plain_load": n_frozen, "trainable_after_trainable_load": sum(p.numel() for p in loaded_vs),
            "vs": vs, "loaded_vs": loaded_vs}


# ---------------------------------------------------------------- several adapters


@case(rtol=1e-9, atol=1e-10, outputs={"second_layers*": {"compare": "none"}, "second_vs*": {"compare": "none"}})
def several_adapters():
    pm = _peft(Net(), u=3, weight_tying=0.0, target_modules=["lin1", "lin2"])
    pm.eval()
    _set_vs(pm)
    with torch.no_grad():
        y_a = pm(IDS)
    pm.add_adapter("second", TinyLoraConfig(r=2, u=2, weight_tying=1.0, target_modules=["emb", "lin2"],
                                            init_weights="uniform", projection_seed=5))
    pm.eval()
    with torch.no_grad():
        y_a2 = pm(IDS)
    n_default = sum(p.numel() for p in _trainable(pm))
    pm.set_adapter("second")
    pm.eval()
    n_second = sum(p.numel() for p in _trainable(pm))
    second_vs = _set_vs(pm, scale=0.3)
    report = _layer_report(pm, "second")
    lin1 = dict(_tl_layers(pm))["base_model.model.lin1"]
    x1 = _x((2, 6), 31)
    with torch.no_grad():
        lin1_untouched = (lin1(x1) - lin1.get_base_layer()(x1)).abs().max()
    pm.set_adapter("default")
    pm.delete_adapter("second")
    pm.eval()
    with torch.no_grad():
        y_a3 = pm(IDS)
    left = sorted({k for _, layer in _tl_layers(pm) for k in layer.tinylora_A})
    return {"add_keeps_active": (y_a2 - y_a).abs().max(), "n_default": n_default, "n_second": n_second,
            "second_layers": report, "second_vs": second_vs, "lin1_untouched_by_second": lin1_untouched,
            "after_delete_diff": (y_a3 - y_a).abs().max(), "adapters_left": left,
            "n_after_delete": sum(p.numel() for p in _trainable(pm)),
            "second_state_gone": not any("second" in k for k in pm.state_dict()),
            "second_modules_gone": not any("second" in n for n, _ in pm.named_modules())}


@case(rtol=1e-9, atol=1e-10)
def delete_active_adapter():
    """Two adapters on the same layers; the active one is deleted: the other becomes active on every layer."""
    pm = _peft(Net(), u=3, weight_tying=0.0, target_modules=["lin1", "lin2"])
    pm.eval()
    _set_vs(pm)
    with torch.no_grad():
        y_default = pm(IDS)
    pm.add_adapter("second", TinyLoraConfig(r=2, u=2, target_modules=["lin1", "lin2"], init_weights="uniform"))
    pm.set_adapter("second")
    pm.eval()
    with torch.no_grad():
        y_second = pm(IDS)
    pm.delete_adapter("second")
    pm.eval()
    with torch.no_grad():
        y_after = pm(IDS)
    return {"second_differs": bool((y_second - y_default).abs().max() > 1e-9),
            "after_minus_default": (y_after - y_default).abs().max(),
            "active": list(pm.active_adapters) if isinstance(pm.active_adapters, list) else [pm.active_adapters],
            "layer_active": sorted({a for _, layer in _tl_layers(pm) for a in layer.active_adapters}),
            "second_gone": not any("second" in n for n, _ in pm.named_modules())
            and not any("second" in k for k in pm.state_dict())}


# ---------------------------------------------------------------- options


@case(compare="exact")
def adapter_dtype():
    out = {}
    for autocast in (True, False):
        net = Net().to(torch.bfloat16)
        pm = get_peft_model(net, TinyLoraConfig(r=2, u=3, target_modules=["lin1", "lin2"], init_weights="uniform"),
                            autocast_adapter_dtype=autocast)
        with torch.no_grad():
            y = pm(IDS)
        out[f"autocast_{autocast}"] = {"v_dtypes": sorted({str(p.dtype) for p in _trainable(pm)}),
                                       "out_dtype": str(y.dtype)}
    return out


@case(params=[True, False], ids=["autocast", "no_autocast"], compare="exact",
      outputs={"unmerged": {"compare": "none"}, "merged": {"compare": "none"}})
def bf16_merge(autocast):
    """A bfloat16 base model: merging gives the unmerged outputs at bf16 precision."""
    pm = get_peft_model(Net().to(torch.bfloat16), TinyLoraConfig(r=2, u=3, target_modules=["emb", "lin1", "lin2"]),
                        autocast_adapter_dtype=autocast)
    pm.eval()
    _set_vs(pm)
    with torch.no_grad():
        y0 = pm(IDS).float()
        plain = pm.merge_and_unload()
        y1 = plain(IDS).float()
    return {"unmerged": y0, "merged": y1, "weight_dtype": str(plain.lin1.weight.dtype)}


@case(compare="none")
def dropout_train_eval():
    pm = _peft(Net(), u=3, target_modules=["lin1", "lin2"], tinylora_dropout=0.5)
    _set_vs(pm, scale=2.0)
    pm.eval()
    with torch.no_grad():
        y_eval = pm(IDS)
        y_eval2 = pm(IDS)
    pm.train()
    torch.manual_seed(0)
    with torch.no_grad():
        y_train = pm(IDS)
    nodrop = _peft(Net(), u=3, target_modules=["lin1", "lin2"], tinylora_dropout=0.0)
    nodrop.train()
    _set_vs(nodrop, scale=2.0)
    with torch.no_grad():
        y_nodrop = nodrop(IDS)
    return {"eval_repeat_diff": (y_eval - y_eval2).abs().max(), "eval_minus_nodrop": (y_eval - y_nodrop).abs().max(),
            "train_differs": bool((y_train - y_eval).abs().max() > 1e-9)}


@case(compare="none")
def initialisation():
    pm_u = _peft(Net(), u=64, target_modules=["lin1", "lin2", "head"], init_weights="uniform", init_v_bound=0.05)
    uni = torch.cat([p.detach().flatten() for p in _trainable(pm_u)])
    pm_z = _peft(Net(), u=64, target_modules=["lin1", "lin2", "head"])
    zero = torch.cat([p.detach().flatten() for p in _trainable(pm_z)])
    cfg = TinyLoraConfig(r=2, u=64, target_modules=["lin1", "lin2", "head"], init_v_bound=0.2)
    pm_z.base_model._init_tinylora_v(cfg, "default")
    reinit = torch.cat([p.detach().flatten() for p in _trainable(pm_z)])
    return {"uniform": uni, "zeros": zero, "reinit": reinit}


@case(compare="exact", outputs={"other_seed_P_diffs*": {"compare": "none"}})
def projection_seed():
    def ps(seed):
        pm = _peft(Net(), u=3, projection_seed=seed, target_modules=["emb", "lin1", "lin2"])
        return [layer.tinylora_P["default"].detach().clone() for _, layer in _tl_layers(pm)]

    a = ps(3)
    torch.manual_seed(77)
    torch.rand(500)
    b = ps(3)
    c = ps(4)
    return {"same_seed_P_diff": max(float((x - y).abs().max()) for x, y in zip(a, b, strict=True)),
            "other_seed_P_diffs": [float((x - y).abs().max()) for x, y in zip(a, c, strict=True)],
            "P_shapes": [list(x.shape) for x in a]}


@case(compare="exact")
def layer_selection():
    pm = _peft(Stack(), u=2, target_modules=["lin"], layers_to_transform=[0, 2], layers_pattern="layers")
    names = [n for n, _ in _tl_layers(pm)]
    pm2 = _peft(Stack(), u=2, target_modules=r".*layers\.(1|3)\.(lin|gate)", weight_tying=1.0)
    return {"wrapped": names, "n_trainable": sum(p.numel() for p in _trainable(pm)),
            "wrapped_excl": [n for n, _ in _tl_layers(pm2)],
            "n_trainable_excl": sum(p.numel() for p in _trainable(pm2))}


# ---------------------------------------------------------------- config checks and unsupported layers


def _raises(fn):
    try:
        fn()
    except Exception:
        return True
    return False


@case(compare="exact")
def config_validation():
    return {
        "r0": _raises(lambda: TinyLoraConfig(r=0, target_modules=["lin1"])),
        "u0": _raises(lambda: TinyLoraConfig(u=0, target_modules=["lin1"])),
        "u_neg": _raises(lambda: TinyLoraConfig(u=-2, target_modules=["lin1"])),
        "tying_above_1": _raises(lambda: TinyLoraConfig(weight_tying=1.5, target_modules=["lin1"])),
        "tying_below_0": _raises(lambda: TinyLoraConfig(weight_tying=-0.1, target_modules=["lin1"])),
        "pattern_without_layers": _raises(lambda: TinyLoraConfig(target_modules=["lin"], layers_pattern="layers")),
        "ok_edges": not _raises(lambda: [TinyLoraConfig(weight_tying=w, r=1, u=1, target_modules=["lin1"])
                                         for w in (0.0, 1.0)]),
        "peft_type": str(TinyLoraConfig(target_modules=["lin1"]).peft_type.value),
        "target_modules_type": type(TinyLoraConfig(target_modules=["lin1", "lin2"]).target_modules).__name__,
        "unsupported_layer": _raises(lambda: _peft(WithConv2d(), target_modules=["conv"])),
    }


@case(compare="exact", outputs={"vblora_prefix": {"compare": "none"}, "re_vblora.0": {"compare": "none"}})
def registration():
    from peft import LoKrConfig, LoKrModel, TinyLoraModel, VBLoRAConfig, VBLoRAModel
    from peft.mapping import (
        PEFT_TYPE_TO_CONFIG_MAPPING,
        PEFT_TYPE_TO_MIXED_MODEL_MAPPING,
        PEFT_TYPE_TO_PREFIX_MAPPING,
        PEFT_TYPE_TO_TUNER_MAPPING,
    )
    from peft.utils import PeftType, register_peft_method

    t = PeftType.TINYLORA
    out = {"config": PEFT_TYPE_TO_CONFIG_MAPPING[t].__name__, "tuner": PEFT_TYPE_TO_TUNER_MAPPING[t].__name__,
           "prefix": PEFT_TYPE_TO_PREFIX_MAPPING[t], "mixed": t in PEFT_TYPE_TO_MIXED_MODEL_MAPPING,
           "vblora_prefix": PEFT_TYPE_TO_PREFIX_MAPPING[PeftType.VBLORA],
           "lokr_mixed": PEFT_TYPE_TO_MIXED_MODEL_MAPPING.get(PeftType.LOKR) is LoKrModel}
    reg = dict(config_cls=TinyLoraConfig, model_cls=TinyLoraModel)
    out["again"] = _raises(lambda: register_peft_method(name="tinylora", prefix="tinylora_", **reg))
    out["underscore"] = _raises(lambda: register_peft_method(name="tinylora_", **reg))
    out["upper"] = _raises(lambda: register_peft_method(name="TinyLora", **reg))
    out["unknown"] = _raises(lambda: register_peft_method(name="notamethod", **reg))
    saved = [(m, dict(m)) for m in (PEFT_TYPE_TO_CONFIG_MAPPING, PEFT_TYPE_TO_TUNER_MAPPING,
                                    PEFT_TYPE_TO_PREFIX_MAPPING, PEFT_TYPE_TO_MIXED_MODEL_MAPPING)]
    try:
        for m, _ in saved:
            m.pop(PeftType.LOKR, None)
            m.pop(PeftType.VBLORA, None)
        register_peft_method(name="vblora", config_cls=VBLoRAConfig, model_cls=VBLoRAModel)
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
