"""Probe for peft-adalora/1: AdaLoRA reached through peft's public entry points (get_peft_model with an
AdaLoraConfig, forward, merge/unmerge, disable_adapter, the orthogonal penalty in the model's loss,
`update_and_allocate` in a training loop, save_pretrained/from_pretrained with the rank pattern) on tiny models
built here with seeded float64 weights.

The adapters' random initial values are not decided (only "small Gaussian, singular values zero"), so every case
that trains or compares values first overwrites P, Lambda and Q with values drawn here. Outputs whose value
depends on a choice nothing decides (the exact form of the penalty, the pattern chosen at the start of the final
phase) are emitted with compare="none" and judged by check_adalora.py."""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import torch
from lmrbench_probe import case
from peft import AdaLoraConfig, PeftModel, get_peft_model
from peft.tuners.adalora import SVDQuantLinear
from torch import nn
from transformers import GPT2Config, GPT2LMHeadModel

warnings.filterwarnings("ignore")

# the paper fixes the update's scale as alpha / r; these tolerances accept a tiny stabilising constant in its
# denominator (alpha / (r + eps), eps ~ 1e-5: a relative change of about 3e-6), and nothing coarser
DELTA_RTOL = 1e-4
DELTA_ATOL = 1e-5


class Net(nn.Module):
    """Linear 6->8 -> tanh -> Linear 8->7 -> tanh -> Linear 7->3."""

    def __init__(self, seed: int = 0):
        super().__init__()
        torch.manual_seed(seed)
        self.lin1 = nn.Linear(6, 8)
        self.lin2 = nn.Linear(8, 7)
        self.head = nn.Linear(7, 3)

    def forward(self, x):
        return self.head(torch.tanh(self.lin2(torch.tanh(self.lin1(x)))))


class ConvNet(nn.Module):
    """Conv2d 2->3 (3x3, padding 1) -> tanh -> Conv2d 3->2 (2x2) -> flatten -> Linear."""

    def __init__(self, seed: int = 0):
        super().__init__()
        torch.manual_seed(seed)
        self.conv1 = nn.Conv2d(2, 3, 3, padding=1)
        self.conv2 = nn.Conv2d(3, 2, 2)
        self.out = nn.Linear(2 * 4 * 4, 3)

    def forward(self, x):
        return self.out(self.conv2(torch.tanh(self.conv1(x))).flatten(1))


def _gpt2(seed: int = 0, layers: int = 2):
    torch.manual_seed(seed)
    cfg = GPT2Config(vocab_size=16, n_positions=8, n_embd=8, n_layer=layers, n_head=2, resid_pdrop=0.0,
                     embd_pdrop=0.0, attn_pdrop=0.0)
    return GPT2LMHeadModel(cfg).double()


def _x(shape, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64)


def _ids(seed=3):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 16, (3, 6), generator=g)


def _adapted(model, adapter="default"):
    """(name relative to the user's model, layer) for every layer holding an AdaLoRA adapter, sorted by name."""
    out = []
    for n, m in model.named_modules():
        E = getattr(m, "lora_E", None)
        if isinstance(E, nn.ParameterDict) and adapter in E:
            out.append((n.removeprefix("base_model.model."), m))
    return sorted(out, key=lambda t: t[0])


def _AEB(layer, adapter="default"):
    return layer.lora_A[adapter], layer.lora_E[adapter], layer.lora_B[adapter]


def _set_params(model, seed=7, e_scale=0.6, adapter="default"):
    """Overwrite P (lora_B), Lambda (lora_E) and Q (lora_A) of every adapted layer with seeded values."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, layer in _adapted(model, adapter):
            A, E, B = _AEB(layer, adapter)
            A.copy_((torch.randn(A.shape, generator=g, dtype=torch.float64) * 0.4).to(A.dtype))
            B.copy_((torch.randn(B.shape, generator=g, dtype=torch.float64) * 0.4).to(B.dtype))
            e = (torch.rand(E.numel(), generator=g, dtype=torch.float64) + 0.2) * e_scale
            sign = torch.where(torch.rand(E.numel(), generator=g) < 0.3, -1.0, 1.0).double()
            E.copy_((e * sign).reshape(E.shape).to(E.dtype))


def _factors(layer, adapter="default"):
    A, E, B = _AEB(layer, adapter)
    return {"A": A.detach().double().clone(), "E": E.detach().double().reshape(-1).clone(),
            "B": B.detach().double().clone()}


def _rank_of(value):
    """A rank-pattern entry as a rank: a list/tensor of keep flags, or an int."""
    if isinstance(value, torch.Tensor):
        return int((value != 0).sum().item())
    if isinstance(value, (list, tuple)):
        return int(sum(bool(v) for v in value))
    return int(value)


def _pattern_ranks(pattern, names):
    """For each adapted layer name, the rank the rank pattern gives it (-1: no entry)."""
    ranks = []
    for name in names:
        hits = [k for k in (pattern or {}) if f".{name}." in f".{k}." or str(k).endswith(name)]
        ranks.append(_rank_of(pattern[hits[0]]) if len(hits) == 1 else -1)
    return ranks


# ---------------------------------------------------------------------------------------------------- config


def _raises(**kw):
    try:
        AdaLoraConfig(**kw)
    except Exception:  # any exception type is accepted: nothing fixes it
        return True
    return False


def _refuses_orth_reg(gamma):
    """Whether a coefficient is refused anywhere before it weights a loss: by the config, when the model is built,
    or at the first forward that computes a loss. paper.md gives the range (gamma >= 0) but not where a value
    outside it is caught, and the instruction does not list which checks `__post_init__` holds."""
    try:
        cfg = AdaLoraConfig(task_type="CAUSAL_LM", total_step=10, init_r=3, orth_reg_weight=gamma,
                            target_modules=["c_attn"])
        model = get_peft_model(_gpt2(), cfg)
        ids = _ids(5)
        model(input_ids=ids, labels=ids)
    except Exception:  # any exception type is accepted: nothing fixes it
        return True
    return False


@case
def config_checks():
    ok = AdaLoraConfig(total_step=10, init_r=4, target_r=2, target_modules=["lin1", "lin2"])
    return {
        "peft_type": str(ok.peft_type.value if hasattr(ok.peft_type, "value") else ok.peft_type),
        "target_modules": sorted(ok.target_modules),
        "no_total_step": _raises(),
        "zero_total_step": _raises(total_step=0),
        "negative_orth_reg": _refuses_orth_reg(-0.1),
        "zero_orth_reg": _raises(total_step=10, orth_reg_weight=0.0),
        "no_budgeting_phase": _raises(total_step=10, tinit=6, tfinal=4),
        "one_budgeting_step": _raises(total_step=10, tinit=5, tfinal=4),
        "dora": _raises(total_step=10, use_dora=True),
        "pattern_without_layers": _raises(total_step=10, layers_pattern="layers"),
        "pattern_with_layers": _raises(total_step=10, layers_pattern="layers", layers_to_transform=[0]),
        "regex_with_layers": _raises(total_step=10, target_modules=".*lin.*", layers_to_transform=[0]),
    }


# ---------------------------------------------------------------------------------------------------- layers


@case(outputs={"A_*": {"compare": "none"}, "B_*": {"compare": "none"}})
def init_state():
    base = Net()
    x = _x((4, 6))
    with torch.no_grad():
        want = base.double()(x).clone()
    model = get_peft_model(base, AdaLoraConfig(total_step=10, init_r=4, target_r=2, lora_alpha=8,
                                               target_modules=["lin1", "lin2"]))
    layers = _adapted(model)
    with torch.no_grad():
        got = model(x)
    A_all = torch.cat([_factors(m)["A"].reshape(-1) for _, m in layers])
    B_all = torch.cat([_factors(m)["B"].reshape(-1) for _, m in layers])
    frozen = [p.requires_grad for n, p in model.named_parameters() if "base_layer" in n or "head" in n]
    trainable = [_AEB(m)[k].requires_grad for _, m in layers for k in range(3)]
    return {
        "names": [n for n, _ in layers],
        "A_shapes": [list(_AEB(m)[0].shape) for _, m in layers],
        "B_shapes": [list(_AEB(m)[2].shape) for _, m in layers],
        "E_numel": [int(_AEB(m)[1].numel()) for _, m in layers],
        "E_absmax": max(float(_factors(m)["E"].abs().max()) for _, m in layers),
        "out_minus_base": (got - want).abs().max().item(),
        "any_base_trainable": any(frozen),
        "all_adapter_trainable": all(trainable),
        "A_std": float(A_all.std()), "A_mean": float(A_all.mean()), "A_n": int(A_all.numel()),
        "B_std": float(B_all.std()), "B_mean": float(B_all.mean()), "B_n": int(B_all.numel()),
    }


def _build(kind, **kw):
    kw.setdefault("total_step", 10)
    kw.setdefault("init_r", 3)
    kw.setdefault("target_r", 1)
    kw.setdefault("lora_alpha", 6)
    if kind == "linear":
        return Net().double(), _x((5, 6)), get_peft_model(Net().double(), AdaLoraConfig(
            target_modules=["lin1", "lin2", "head"], **kw))
    if kind == "conv1d":
        return _gpt2(), _ids(), get_peft_model(_gpt2(), AdaLoraConfig(
            target_modules=["c_attn", "c_fc", "c_proj"], **kw))
    return ConvNet().double(), _x((2, 2, 5, 5)), get_peft_model(ConvNet().double(), AdaLoraConfig(
        target_modules=["conv1", "conv2"], **kw))


def _logits(model, x):
    out = model(x)
    return out.logits if hasattr(out, "logits") else out


def _layer_inputs(model, x):
    """The input each adapted layer sees in a forward pass of x (captured with hooks)."""
    seen = {}
    def hook(name):
        def record(mod, inp, out):
            seen.setdefault(name, inp[0].detach().clone())
        return record

    hooks = [m.register_forward_hook(hook(n)) for n, m in _adapted(model)]
    with torch.no_grad():
        _logits(model, x)
    for h in hooks:
        h.remove()
    return seen


@case(params=["linear", "conv1d", "conv2d"], compare="close", rtol=DELTA_RTOL, atol=DELTA_ATOL)
def layer_delta(kind):
    """Each adapted layer's output minus its frozen layer's output, with the factors it used."""
    alpha = 1 if kind == "linear" else 5
    _, x, model = _build(kind, lora_alpha=alpha)
    _set_params(model)
    model.eval()
    inputs = _layer_inputs(model, x)
    layers = []
    for n, m in _adapted(model):
        with torch.no_grad():
            delta = m(inputs[n]) - m.get_base_layer()(inputs[n])
        entry = {"x": inputs[n].double(), "delta": delta.double(), "r": int(_AEB(m)[0].shape[0])}
        entry.update(_factors(m))
        if kind == "conv2d":
            base = m.get_base_layer()
            entry.update({"kernel": list(base.weight.shape), "stride": list(base.stride),
                          "padding": list(base.padding)})
        layers.append(entry)
    with torch.no_grad():
        out = _logits(model, x).double()
    return {"layers": layers, "out": out, "alpha": float(alpha), "kind": kind}


@case(params=["linear", "conv1d", "conv2d"], compare="close", rtol=DELTA_RTOL, atol=DELTA_ATOL,
      outputs={"*_gap": {"compare": "none"}})
def merge(kind):
    base, x, model = _build(kind, lora_alpha=4)
    _set_params(model, seed=11)
    model.eval()
    layers = _adapted(model)
    w0 = [m.get_base_layer().weight.detach().clone() for _, m in layers]
    with torch.no_grad():
        plain = _logits(base, x).double()
        unmerged = _logits(model, x).double()
        deltas = [m.get_delta_weight("default").detach().double().clone() for _, m in layers]
        model.base_model.merge_adapter()
        merged = _logits(model, x).double()
        w_merged = [m.get_base_layer().weight.detach().double().clone() for _, m in layers]
        with model.disable_adapter():
            disabled_after_merge = _logits(model, x).double()
        model.base_model.merge_adapter()
        model.base_model.unmerge_adapter()
        restore_gap = max(float((m.get_base_layer().weight - w).abs().max())
                          for (_, m), w in zip(layers, w0, strict=True))
        again = _logits(model, x).double()
        unloaded = model.merge_and_unload()
        left = sum(1 for mod in unloaded.modules() if hasattr(mod, "lora_E"))
        after_unload = _logits(unloaded, x).double()
    return {
        "plain": plain, "unmerged": unmerged, "merged": merged, "after_unload": after_unload, "again": again,
        "disabled_after_merge": disabled_after_merge, "deltas": deltas,
        "merged_minus_base": [w - w_.double() for w, w_ in zip(w_merged, w0, strict=True)],
        "factors": [_factors(m) for _, m in layers], "kinds": [type(m.get_base_layer()).__name__ for _, m in layers],
        "merge_gap": float((merged - unmerged).abs().max()),
        "unload_gap": float((after_unload - unmerged).abs().max()),
        "restore_gap": restore_gap, "tuner_layers_left": left,
    }


@case(compare="close", rtol=DELTA_RTOL, atol=DELTA_ATOL)
def conv_dropout():
    base = ConvNet().double()
    x = _x((2, 2, 5, 5), seed=6)
    with torch.no_grad():
        plain = base(x).clone()
    model = get_peft_model(ConvNet().double(), AdaLoraConfig(total_step=10, init_r=3, lora_alpha=3,
                                                              lora_dropout=1.0, target_modules=["conv1", "conv2"]))
    _set_params(model, seed=8)
    with torch.no_grad():
        model.train()
        train_out = model(x).clone()
        model.eval()
        eval_out = model(x).clone()
    return {"plain": plain, "train_out": train_out, "eval_out": eval_out}


@case(compare="close", rtol=DELTA_RTOL, atol=DELTA_ATOL)
def disable_and_dropout():
    base = Net().double()
    x = _x((5, 6), seed=4)
    with torch.no_grad():
        plain = base(x).clone()
    model = get_peft_model(Net().double(), AdaLoraConfig(total_step=10, init_r=3, lora_alpha=3, lora_dropout=1.0,
                                                          target_modules=["lin1", "lin2"]))
    _set_params(model, seed=5)
    with torch.no_grad():
        model.train()
        train_out = model(x).clone()
        model.eval()
        eval_out = model(x).clone()
        with model.disable_adapter():
            disabled = model(x).clone()
    return {"plain": plain, "train_out": train_out, "eval_out": eval_out, "disabled": disabled}


@case(compare="close", rtol=DELTA_RTOL, atol=DELTA_ATOL)
def quant_linear_layer():
    """SVDQuantLinear around a plain float32 linear layer (the quantised kernel is not needed for the adapter)."""
    torch.manual_seed(0)
    lin = nn.Linear(5, 4)
    layer = SVDQuantLinear(lin, "default", config=AdaLoraConfig(total_step=10, init_r=3), r=3, lora_alpha=6)
    g = torch.Generator().manual_seed(9)
    with torch.no_grad():
        layer.lora_A["default"].copy_(torch.randn(layer.lora_A["default"].shape, generator=g))
        layer.lora_B["default"].copy_(torch.randn(layer.lora_B["default"].shape, generator=g))
        layer.lora_E["default"].copy_(torch.randn(layer.lora_E["default"].shape, generator=g))
    x = torch.randn(2, 5, generator=g)
    layer.eval()
    with torch.no_grad():
        y = layer(x).clone()
        base = lin(x).clone()
        layer.enable_adapters(False)
        y_off = layer(x).clone()
    f = _factors(layer)
    return {"x": x, "y": y, "base": base, "y_off": y_off, "A": f["A"], "B": f["B"], "E": f["E"], "alpha": 6.0,
            "r": 3}


# ---------------------------------------------------------------------------------------------------- penalty


@case(compare="close", rtol=1e-5, atol=1e-6, outputs={"grad*": {"compare": "none"}, "factors*": {"compare": "none"},
                                                       "loss_0.3": {"compare": "none"}, "loss_0.6": {"compare": "none"},
                                                       "orth_loss_0.3": {"compare": "none"},
                                                       "orth_loss_0.6": {"compare": "none"}})
def orth_penalty():
    ids = _ids(5)
    out = {}
    for gamma in (0.0, 0.3, 0.6):
        model = get_peft_model(_gpt2(), AdaLoraConfig(task_type="CAUSAL_LM", total_step=10, init_r=3,
                                                       orth_reg_weight=gamma, target_modules=["c_attn", "c_fc"]))
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        # E is zero at initialisation, so the task loss gives P and Q no gradient: only the penalty does
        out[f"grad_{gamma}"] = sum(float(_AEB(m)[k].grad.abs().sum()) if _AEB(m)[k].grad is not None else 0.0
                                   for _, m in _adapted(model) for k in (0, 2))
        _set_params(model, seed=3)
        with torch.no_grad():
            out[f"loss_{gamma}"] = float(model(input_ids=ids, labels=ids).loss)
            out[f"factors_{gamma}"] = [_factors(m) for _, m in _adapted(model)]
            # P, Q orthonormal: the penalty vanishes
            for _, m in _adapted(model):
                A, _, B = _AEB(m)
                A.copy_(torch.linalg.qr(A.T.double())[0].T.to(A.dtype))
                B.copy_(torch.linalg.qr(B.double())[0].to(B.dtype))
            out[f"orth_loss_{gamma}"] = float(model(input_ids=ids, labels=ids).loss)
        out["names"] = [n for n, _ in _adapted(model)]
    with torch.no_grad():
        out["plain_loss"] = float(_gpt2()(input_ids=ids, labels=ids).loss)
    return out


# ---------------------------------------------------------------------------------------------------- training


SCENARIOS = {
    # 3 layers, init rank 10 -> target 1: budget 30 -> 3; cubic drop over N = 3 steps of (30 - 3) = 27 = 3^3
    "mlp": dict(model="linear", init_r=10, target_r=1, tinit=2, tfinal=2, total_step=7, deltaT=1, lr=0.05),
    # the same, with lin1's adapter 20 times smaller: its triplets matter least and it ends with rank 0
    "mlp_rank0": dict(model="linear", init_r=10, target_r=1, tinit=2, tfinal=2, total_step=7, deltaT=1, lr=0.05,
                      shrink="lin1"),
    # 8 Conv1D layers, init rank 4 -> target 2: budget 32 -> 16; N = 2 steps of (32 - 16) = 16 = 2 * 2^3
    "gpt2": dict(model="conv1d", init_r=4, target_r=2, tinit=1, tfinal=2, total_step=5, deltaT=1, lr=0.2),
    # deltaT = 2: pruning on every other step of the decreasing phase
    "mlp_dt2": dict(model="linear", init_r=6, target_r=2, tinit=2, tfinal=2, total_step=12, deltaT=2, lr=0.05),
}


def _train_setup(sc):
    kw = dict(total_step=sc["total_step"], init_r=sc["init_r"], target_r=sc["target_r"], tinit=sc["tinit"],
              tfinal=sc["tfinal"], deltaT=sc["deltaT"], beta1=0.8, beta2=0.7, orth_reg_weight=0.0, lora_alpha=4)
    if sc["model"] == "linear":
        def make():
            return Net().double()
        model = get_peft_model(make(), AdaLoraConfig(target_modules=["lin1", "lin2", "head"], **kw))
        def loss_fn(m, step):  # a fresh mini-batch at every step
            X, Y = _x((8, 6), seed=100 + step), _x((8, 3), seed=200 + step)
            return ((m(X) - Y) ** 2).mean()
        probe_x = _x((4, 6), seed=23)
    else:
        def make():
            return _gpt2()
        model = get_peft_model(make(), AdaLoraConfig(task_type="CAUSAL_LM",
                                                      target_modules=["c_attn", "c_proj", "c_fc"], **kw))
        def loss_fn(m, step):  # next-token cross-entropy in float64 (the model's own loss is float32)
            ids = _ids(300 + step)
            logits = m(input_ids=ids).logits
            return nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        probe_x = _ids(32)
    return make, model, loss_fn, probe_x


def _train(name):
    sc = SCENARIOS[name]
    make, model, loss_fn, probe_x = _train_setup(sc)
    _set_params(model, seed=13, e_scale=0.5)
    model.train()
    layers = _adapted(model)
    with torch.no_grad():
        for n, m in layers:
            if n == sc.get("shrink"):
                for p in _AEB(m):
                    p.mul_(0.05)
    params = [p for _, m in layers for p in _AEB(m)]
    opt = torch.optim.SGD(params, lr=sc["lr"])
    keep, losses = [], []
    for step in range(1, sc["total_step"] + 1):
        loss = loss_fn(model, step)
        loss.backward()
        opt.step()
        model.base_model.update_and_allocate(step)
        opt.zero_grad()
        losses.append(float(loss))
        keep.append([(_AEB(m)[1].detach().reshape(-1) != 0) for _, m in layers])
    return sc, make, model, probe_x, layers, keep, losses


def _split(sc, keep):
    """Steps before the final phase (exact) and from its first step on (judged by the checks)."""
    first_final = sc["total_step"] - sc["tfinal"]
    early = {f"step{t}": keep[t - 1] for t in range(1, first_final)}
    late = {f"step{t}": keep[t - 1] for t in range(first_final, sc["total_step"] + 1)}
    return early, late


@case(params=["mlp", "gpt2", "mlp_rank0"], compare="exact", outputs={"late*": {"compare": "none"},
                                                         "loaded*": {"compare": "none"},
                                                         "trained_out": {"compare": "none"},
                                                         "final*": {"compare": "none"},
                                                         "losses_early*": {"compare": "close", "rtol": 1e-5},
                                                         "losses_late*": {"compare": "none"}})
def budget_allocation(name):
    sc, make, model, probe_x, layers, keep, losses = _train(name)
    early, late = _split(sc, keep)
    names = [n for n, _ in layers]
    cfg = model.peft_config["default"]
    final_ranks = _pattern_ranks(cfg.rank_pattern, names)
    model.eval()
    with torch.no_grad():
        trained_out = _logits(model, probe_x).double()
    with tempfile.TemporaryDirectory() as d:
        model.save_pretrained(d)
        from safetensors.torch import load_file

        files = list(Path(d).glob("*.safetensors"))
        saved = load_file(str(files[0])) if files else {}
        saved_ranks = []
        for n in names:
            ks = [k for k in saved if f".{n}.lora_A" in f".{k}" or f".{n}.lora_A" in k]
            saved_ranks.append(int(saved[ks[0]].shape[0]) if len(ks) == 1 else -1)
        torch.manual_seed(1234)  # the reload must not depend on the global RNG
        loaded = PeftModel.from_pretrained(make(), d)
        loaded.eval()
        with torch.no_grad():
            loaded_out = _logits(loaded, probe_x).double()
        loaded_layers = _adapted(loaded)
        loaded_ranks = [int(_AEB(m)[0].shape[0]) for _, m in loaded_layers]
        loaded_trainable = any(p.requires_grad for n, p in loaded.named_parameters() if "lora_" in n)
        loaded_pattern = _pattern_ranks(loaded.peft_config["default"].rank_pattern, names)
    return {
        "names": names, "init_ranks": [int(_AEB(m)[0].shape[0]) for _, m in layers],
        "early": early, "late": late,
        "losses_early": losses[: sc["total_step"] - sc["tfinal"]],
        "losses_late": losses[sc["total_step"] - sc["tfinal"]:],
        "final_pattern_ranks": final_ranks, "final_saved_ranks": saved_ranks,
        "trained_out": trained_out, "loaded_out": loaded_out, "loaded_ranks": loaded_ranks,
        "loaded_names": [n for n, _ in loaded_layers], "loaded_trainable": loaded_trainable,
        "loaded_pattern_ranks": loaded_pattern,
        "schedule": [sc["init_r"], sc["target_r"], sc["tinit"], sc["tfinal"], sc["total_step"], sc["deltaT"]],
    }


@case(compare="none")
def pruning_interval():
    sc, _, _, _, layers, keep, _ = _train("mlp_dt2")
    return {"kept": [int(sum(int(k.sum()) for k in step)) for step in keep], "n_layers": len(layers),
            "schedule": [sc["init_r"], sc["target_r"], sc["tinit"], sc["tfinal"], sc["total_step"], sc["deltaT"]]}


@case
def unsupported_weighted_adapter():
    model = get_peft_model(Net().double(), AdaLoraConfig(total_step=10, target_modules=["lin1"]))
    try:
        model.base_model.add_weighted_adapter(["default"], [1.0], "mix")
    except Exception:  # any exception type is accepted
        return {"raised": True}
    return {"raised": False}


@case
def negative_rank_rejected():
    def attempt(make, targets):
        try:
            get_peft_model(make(), AdaLoraConfig(total_step=10, init_r=-1, target_modules=targets))
        except Exception:
            return True
        return False

    return {"linear": attempt(lambda: Net().double(), ["lin1"]),
            "conv2d": attempt(lambda: ConvNet().double(), ["conv1"])}


@case
def inference_adapter():
    """A second adapter added in inference mode sits beside the trainable one, frozen."""
    model = get_peft_model(Net().double(), AdaLoraConfig(total_step=10, init_r=3, target_modules=["lin1", "lin2"]))
    model.add_adapter("other", AdaLoraConfig(total_step=10, init_r=2, inference_mode=True,
                                             target_modules=["lin1", "lin2"]))
    out = {}
    for adapter in ("default", "other"):
        layers = _adapted(model, adapter)
        out[f"{adapter}_names"] = [n for n, _ in layers]
        out[f"{adapter}_A_shapes"] = [list(_AEB(m, adapter)[0].shape) for _, m in layers]
        out[f"{adapter}_trainable"] = [bool(_AEB(m, adapter)[k].requires_grad) for _, m in layers for k in range(3)]
        out[f"{adapter}_E_absmax"] = max(float(_AEB(m, adapter)[1].detach().abs().max()) for _, m in layers)
    return out
