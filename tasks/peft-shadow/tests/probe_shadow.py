"""Probe for peft-shadow/1: the ShadowPEFT tuner reached through peft's public entry points (get_peft_model,
forward with and without labels, backward and optimizer steps, disable_adapter, merge refusals, unload,
unload_shadow, add/set/delete_adapter, save_pretrained/PeftModel.from_pretrained, incremental decoding with a
cache) on tiny transformers decoders built here in float64 with seeded random weights.

The shadow modules' initial random values are a convention nothing decides (creation order), so every case that
compares values first writes seeded values into every shadow parameter *by role* (the per-block W_down, W_up,
candidate MLP T, gate MLP G found through the layer's declared `adapter_layer_names`; the shadow backbone found as
the one extra instance of the base backbone's class; the projection as the one extra bias-free Linear from the
shadow width to the base width). Each forward is then also recomputed here by an independent reference: a fresh
copy of the base model whose decoder blocks get hooks that apply Eq. 2-7 with the same values, seeded with
s^(0) = P(B(E x)) computed from the shadow backbone (Eq. 1)."""

from __future__ import annotations

import tempfile
import warnings

import torch
import torch.nn.functional as F
from lmrbench_probe import case
from peft import PeftModel, ShadowConfig, get_peft_model
from peft.tuners.tuners_utils import BaseTunerLayer
from torch import nn
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, LlamaForSequenceClassification

warnings.filterwarnings("ignore")
torch.set_default_dtype(torch.float64)

D, V = 16, 40


def _cfg(layers=3, **kw):
    base = dict(vocab_size=V, hidden_size=D, intermediate_size=24, num_hidden_layers=layers, num_attention_heads=2,
                num_key_value_heads=2, max_position_embeddings=32, tie_word_embeddings=False, pad_token_id=0)
    base.update(kw)
    cfg = LlamaConfig(**base)
    cfg._attn_implementation = "eager"
    return cfg


def _base(layers=3, seed=0, cls=LlamaForCausalLM, **kw):
    torch.manual_seed(seed)
    return cls(_cfg(layers, **kw)).eval()


def _ids(shape=(2, 6), seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(1, V, shape, generator=g)


def _vals(shape, g, scale=0.3):
    return torch.randn(*shape, generator=g) * scale


def _shadow_layers(pm):
    return [m for _, m in pm.named_modules() if isinstance(m, BaseTunerLayer)]


def _linears(module):
    return [m for m in module.modules() if isinstance(m, nn.Linear)]


def _find_backbone(pm, base_inner):
    found = [m for m in pm.modules() if type(m) is type(base_inner) and m is not base_inner]
    if not found:
        raise RuntimeError("no shadow backbone of the base backbone's class")
    return found


def _inner(pm):
    model = pm.get_base_model()
    return model.transformer if hasattr(model, "transformer") else model.model


def _projection(pm, backbone, sh):
    """The bias-free Linear sh -> D that is neither in the base model, nor in a backbone, nor in a shadow layer."""
    taken = set()
    for m in list(pm.get_base_model().modules()) + list(backbone.modules()):
        taken.add(id(m))
    cands = [m for m in pm.modules() if isinstance(m, nn.Linear) and id(m) not in taken
             and m.in_features == sh and m.out_features == D and m.bias is None]
    return cands


def _block_parts(layer, adapter):
    """(W_down, W_up, T linears, G linears) of one shadow layer, by the declared adapter layer names."""
    down = layer.shadow_down[adapter]
    up = layer.shadow_up[adapter]
    t = _linears(layer.shadow_update_transform[adapter])
    g = _linears(layer.shadow_update_gate[adapter])
    return down, up, t, g


@torch.no_grad()
def _assign(pm, adapter="default", seed=5, sh=D):
    """Write seeded values into every shadow parameter by role; return them for the reference."""
    g = torch.Generator().manual_seed(seed)
    blocks = []
    for layer in _shadow_layers(pm):
        if adapter not in layer.shadow_down:
            blocks.append(None)
            continue
        down, up, t, gate = _block_parts(layer, adapter)
        vals = {"down": _vals(down.weight.shape, g), "up": _vals(up.weight.shape, g)}
        down.weight.copy_(vals["down"])
        up.weight.copy_(vals["up"])
        for key, lins in (("t", t), ("g", gate)):
            vals[key] = []
            for lin in lins:
                w, b = _vals(lin.weight.shape, g), _vals(lin.bias.shape, g, 0.1)
                lin.weight.copy_(w)
                lin.bias.copy_(b)
                vals[key].append((w, b))
        blocks.append(vals)
    return blocks, g


@torch.no_grad()
def _assign_backbone(backbone, g):
    # embedding tables last: whether a shared-width mirror keeps an unused table of its own (BLOOM's
    # `word_embeddings`, GPT-2's `wte`) is not decided, and it must not shift the values of the other parameters
    embeds = {id(m.weight) for m in backbone.modules() if isinstance(m, nn.Embedding)}
    named = sorted(backbone.named_parameters())
    for _, p in [x for x in named if id(x[1]) not in embeds] + [x for x in named if id(x[1]) in embeds]:
        if p.dim() == 1:
            p.copy_(1.0 + _vals(p.shape, g, 0.1))
        else:
            p.copy_(_vals(p.shape, g, 0.3))


def _gelu_mlp(lins, x):
    (w1, b1), (w2, b2) = lins
    return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)


def _reference_logits(ref_model, blocks, s0, ids, alpha, attention_mask=None, which=None):
    """Base model copy with hooks applying Eq. 2-7 on the adapted blocks (given by `which`, contiguous)."""
    layers = ref_model.transformer.h if hasattr(ref_model, "transformer") else ref_model.model.layers
    which = list(range(len(layers))) if which is None else which
    state = {"s": s0}
    handles = []
    for idx, vals in zip(which, [b for b in blocks if b is not None], strict=True):
        layer = layers[idx]

        def pre(mod, args, kwargs, vals=vals):
            h = args[0] if args else kwargs["hidden_states"]
            delta = h - state["s"]
            h2 = h + alpha * F.linear(F.linear(delta, vals["down"]), vals["up"])
            if args:
                return (h2, *args[1:]), kwargs
            return args, {**kwargs, "hidden_states": h2}

        def post(mod, args, kwargs, out, vals=vals):
            h = out[0] if isinstance(out, tuple) else out
            t = _gelu_mlp(vals["t"], h)
            gate = torch.sigmoid(_gelu_mlp(vals["g"], h))
            state["s"] = (1 - gate) * state["s"] + gate * t
            return out

        handles.append(layer.register_forward_pre_hook(pre, with_kwargs=True))
        handles.append(layer.register_forward_hook(post, with_kwargs=True))
    try:
        with torch.no_grad():
            out = ref_model(input_ids=ids, attention_mask=attention_mask, use_cache=False)
    finally:
        for h in handles:
            h.remove()
    return out.logits


def _s0(pm, backbone, proj, ids, attention_mask=None, shared=True):
    with torch.no_grad():
        if shared:
            emb = pm.get_base_model().get_input_embeddings()(ids)
            out = backbone(inputs_embeds=emb, attention_mask=attention_mask, use_cache=False)
        else:
            out = backbone(input_ids=ids, attention_mask=attention_mask, use_cache=False)
        h = out.last_hidden_state
        return h if proj is None else proj(h)


def _token_diff(a, b):
    """Largest token difference of two generated batches (-1 when their shapes differ)."""
    return int((a - b).abs().max()) if a.shape == b.shape else -1


def _n_trainable(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def _shadow(**kw):
    kw.setdefault("shadow_dropout", 0.0)
    kw.setdefault("task_type", "CAUSAL_LM")
    return ShadowConfig(**kw)


# ================================================================ cases

# The narrow mirror's per-head width is not decided (keep the base config's `head_dim`, or re-derive it as
# width / heads): the narrow cases use a base whose head_dim (4) is already width / heads of the narrow mirror
# (8 / 2), so both readings build the same backbone.
NARROW_BASE = dict(head_dim=4)
NARROW = dict(shadow_hidden_size=8, shadow_num_attention_heads=2, shadow_intermediate_size=12)

INIT = [dict(r=4), dict(r=2, shadow_alpha=0.5), dict(r=3, shadow_num_hidden_layers=2),
        dict(r=4, **NARROW, base_kw=NARROW_BASE),
        dict(r=2, update_hidden_size=6)]


@case(params=INIT, ids=["r4", "r2_a05", "two_layer_backbone", "narrow_backbone", "update_hidden6"],
      rtol=1e-10, atol=1e-12)
def zero_init(kw):
    """W_up = 0: the adapted model is the base model; every base parameter frozen; trainable count; backbone
    architecture (a mirror of the base decoder, reduced as asked); shared embeddings only at equal width."""
    ids = _ids()
    kw = dict(kw)
    base_kw = kw.pop("base_kw", {})
    base = _base(**base_kw)
    with torch.no_grad():
        ref = base(input_ids=ids).logits
    pm = get_peft_model(_base(**base_kw), _shadow(**kw))
    pm.eval()
    with torch.no_grad():
        out = pm(input_ids=ids).logits
    base_trainable = sum(p.numel() for n, p in pm.get_base_model().named_parameters()
                         if p.requires_grad and "shadow" not in n)
    layers = _shadow_layers(pm)
    up_norm = torch.stack([sl.shadow_up["default"].weight.abs().max() for sl in layers]).max()
    backbones = _find_backbone(pm, _inner(pm))
    bb = backbones[0]
    cfg = bb.config
    has_embed = any(isinstance(m, nn.Embedding) for m in bb.modules())
    return {"out": out, "base": ref, "n_trainable": _n_trainable(pm), "base_trainable": base_trainable,
            "n_shadow_layers": len(layers), "up_absmax": up_norm, "n_backbones": len(backbones),
            "bb_layers": int(cfg.num_hidden_layers), "bb_hidden": int(cfg.hidden_size),
            "bb_heads": int(cfg.num_attention_heads), "bb_inter": int(cfg.intermediate_size),
            "bb_has_embedding": has_embed}


EQ = [dict(r=4, shadow_alpha=0.1), dict(r=3, shadow_alpha=0.7), dict(r=2, shadow_alpha=0.4, update_hidden_size=5),
      dict(r=4, shadow_alpha=0.3, **NARROW, base_kw=NARROW_BASE),
      dict(r=2, shadow_alpha=0.5, shadow_num_hidden_layers=2)]


def _setup(kw, layers=3, seed=5, base_kw=None, adapter="default", pm=None):
    base_kw = base_kw or {}
    if pm is None:
        pm = get_peft_model(_base(layers, **base_kw), _shadow(**kw), adapter_name=adapter)
    pm.eval()
    blocks, g = _assign(pm, adapter, seed)
    sh = kw.get("shadow_hidden_size") or D
    backbones = _find_backbone(pm, _inner(pm))
    bb = backbones[-1]
    _assign_backbone(bb, g)
    proj = None
    if sh != D:
        cands = _projection(pm, bb, sh)
        if len(cands) != 1:
            raise RuntimeError(f"{len(cands)} projection candidates")
        proj = cands[0]
        with torch.no_grad():
            proj.weight.copy_(_vals(proj.weight.shape, g))
    return pm, blocks, bb, proj


@case(params=EQ, ids=["r4", "r3_a07", "r2_m5", "narrow_backbone", "two_layer_backbone"], rtol=1e-9, atol=1e-11)
def equations(kw):
    """Forward with seeded shadow values: logits = the hook reference (Eq. 1-7), with and without a padding mask."""
    ids = _ids((2, 6), 2)
    mask = torch.ones_like(ids)
    mask[1, 4:] = 0
    kw = dict(kw)
    base_kw = kw.pop("base_kw", {})
    pm, blocks, bb, proj = _setup(kw, base_kw=base_kw)
    sh = kw.get("shadow_hidden_size") or D
    with torch.no_grad():
        out = pm(input_ids=ids).logits
        out_mask = pm(input_ids=ids, attention_mask=mask).logits
    s0 = _s0(pm, bb, proj, ids, shared=(sh == D))
    s0_mask = _s0(pm, bb, proj, ids, mask, shared=(sh == D))
    ref = _reference_logits(_base(**base_kw), blocks, s0, ids, kw["shadow_alpha"])
    ref_mask = _reference_logits(_base(**base_kw), blocks, s0_mask, ids, kw["shadow_alpha"], attention_mask=mask)
    with torch.no_grad():
        base = _base(**base_kw)(input_ids=ids).logits
    return {"out": out, "ref": ref, "out_mask": out_mask, "ref_mask": ref_mask,
            "moved": (out - base).abs().max()}


@case(rtol=1e-9, atol=1e-11)
def subset_blocks():
    """Only blocks 1-2 of 4 adapted (layers_to_transform): s^(0) enters at block 1, leaves after block 2."""
    ids = _ids((2, 5), 3)
    kw = dict(r=3, shadow_alpha=0.6, target_modules=["model.layers.1", "model.layers.2"])
    pm, blocks, bb, proj = _setup(kw, layers=4)
    with torch.no_grad():
        out = pm(input_ids=ids).logits
    s0 = _s0(pm, bb, proj, ids)
    ref = _reference_logits(_base(4), blocks, s0, ids, 0.6, which=[1, 2])
    return {"out": out, "ref": ref, "n_shadow_layers": len(_shadow_layers(pm))}


LOSS = [0.05, 0.3, 0.0]


# the loss dtype is not decided (the release adds a float64 shadow CE to transformers' float32 task loss; an
# implementation may upcast the shadow CE to float32 as transformers does): values compared, dtype not
@case(params=LOSS, ids=["l005", "l03", "l0"], rtol=1e-9, atol=1e-11,
      outputs={"*loss": {"rtol": 2e-6, "atol": 1e-8, "dtype": False}})
def aux_loss(lam):
    """Eq. 8-9: loss = task CE + lambda * shifted CE of lm_head(s^(0)); labels -100 ignored."""
    ids = _ids((2, 6), 4)
    labels = ids.clone()
    labels[0, 3] = -100
    kw = dict(r=3, shadow_alpha=0.4, auxiliary_loss_weight=lam)
    pm, blocks, bb, proj = _setup(kw)
    with torch.no_grad():
        out = pm(input_ids=ids, labels=labels)
    s0 = _s0(pm, bb, proj, ids)
    ref_logits = _reference_logits(_base(), blocks, s0, ids, 0.4)
    head = pm.get_base_model().lm_head
    def shifted(logits):
        return F.cross_entropy(logits[:, :-1].reshape(-1, V), labels[:, 1:].reshape(-1), ignore_index=-100)
    with torch.no_grad():
        task = shifted(ref_logits)
        shadow = shifted(head(s0))
    return {"loss": out.loss, "ref_loss": task + lam * shadow, "logits": out.logits}


# atol 2e-7: a shadow CE computed in float32 (transformers' convention) instead of the release's float64 moves the
# trained logits by up to ~5e-8 after 3 steps; the loss dtype is not decided
@case(rtol=1e-6, atol=2e-7, outputs={"losses": {"dtype": False}})
def train_steps():
    """SGD steps on the total loss (with the auxiliary term): losses, trained logits against the hook reference
    recomputed from the trained values, base parameters unchanged, grads reach every shadow part."""
    ids = _ids((2, 6), 6)
    kw = dict(r=3, shadow_alpha=0.5, auxiliary_loss_weight=0.2)
    pm, _blocks, bb, proj = _setup(kw)
    base_before = {n: p.detach().clone() for n, p in pm.get_base_model().named_parameters() if "shadow" not in n}
    pm.train()
    params = [p for p in pm.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=0.2)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = pm(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    pm.eval()
    # paper 4: the state after the last adapted block is discarded, so that block's T and G get no gradient
    n_grad_nonzero = sum(p.grad is not None and float(p.grad.abs().max()) > 0 for p in params)
    frozen = max(float((p.detach() - base_before[n]).abs().max())
                 for n, p in pm.get_base_model().named_parameters() if "shadow" not in n)
    # re-read trained values by role for the reference
    blocks2 = []
    for layer in _shadow_layers(pm):
        down, up, t, g = _block_parts(layer, "default")
        blocks2.append({"down": down.weight.detach(), "up": up.weight.detach(),
                        "t": [(lin.weight.detach(), lin.bias.detach()) for lin in t],
                        "g": [(lin.weight.detach(), lin.bias.detach()) for lin in g]})
    with torch.no_grad():
        out = pm(input_ids=ids).logits
    s0 = _s0(pm, bb, proj, ids)
    ref = _reference_logits(_base(), blocks2, s0, ids, 0.5)
    return {"losses": torch.stack(losses), "out": out, "ref": ref, "frozen": frozen,
            "n_params": len(params), "n_grad_nonzero": n_grad_nonzero}


@case(rtol=1e-9, atol=1e-11)
def disable_and_refusals():
    """disable_adapter gives the base model; merging is refused; unload gives the plain base model back."""
    ids = _ids((2, 5), 7)
    pm, _blocks, _bb, _proj = _setup(dict(r=3, shadow_alpha=0.5))
    with torch.no_grad():
        base = _base()(input_ids=ids).logits
        out = pm(input_ids=ids).logits
        with pm.disable_adapter():
            disabled = pm(input_ids=ids).logits
        again = pm(input_ids=ids).logits

    def raises(fn):
        try:
            fn()
        except Exception:
            return True
        return False

    merge_refused = raises(lambda: pm.merge_adapter())
    mau_refused = raises(lambda: pm.merge_and_unload())
    plain = pm.unload()
    with torch.no_grad():
        unloaded = plain(input_ids=ids).logits
    left = sum(isinstance(m, BaseTunerLayer) for m in plain.modules())
    return {"out": out, "again": again, "disabled": disabled, "base": base, "merge_refused": merge_refused,
            "merge_and_unload_refused": mau_refused, "unloaded": unloaded, "tuner_layers_left": left}


def _bad_r():
    get_peft_model(_base(), _shadow(r=0))


def _two_active():
    pm = get_peft_model(_base(), _shadow(r=2))
    pm.add_adapter("other", _shadow(r=2))
    pm.base_model.set_adapter(["default", "other"])


@case(compare="exact")
def refusals():
    """r must be positive (paper 3); only one adapter may be active (paper 6)."""
    out = {}
    for name, fn in (("r0", _bad_r), ("two_active", _two_active)):
        try:
            fn()
            out[name] = False
        except Exception:
            out[name] = True
    return out


@case(rtol=1e-9, atol=1e-11, outputs={"loss*": {"rtol": 2e-6, "atol": 1e-8, "dtype": False}})
def save_load():
    """save_pretrained / PeftModel.from_pretrained on a fresh base gives the same logits (and the same loss)."""
    ids = _ids((2, 6), 8)
    kw = dict(r=3, shadow_alpha=0.4, **NARROW)
    pm, _blocks, _bb, _proj = _setup(kw, base_kw=NARROW_BASE)
    with torch.no_grad():
        out = pm(input_ids=ids, labels=ids)
    with tempfile.TemporaryDirectory() as tmp:
        pm.save_pretrained(tmp)
        loaded = PeftModel.from_pretrained(_base(seed=0, **NARROW_BASE), tmp)
        loaded.eval()
        with torch.no_grad():
            out2 = loaded(input_ids=ids, labels=ids)
    return {"logits": out.logits, "logits_loaded": out2.logits, "loss": out.loss, "loss_loaded": out2.loss}


@case(rtol=1e-9, atol=1e-11)
def two_adapters():
    """A second adapter with its own values; set_adapter switches both the blocks and the backbone; delete."""
    ids = _ids((2, 5), 9)
    pm, blocks_a, bb_a, _ = _setup(dict(r=3, shadow_alpha=0.5))
    pm.add_adapter("other", _shadow(r=2, shadow_alpha=0.3))
    pm.set_adapter("other")
    blocks_b, g = _assign(pm, "other", seed=11)
    backbones = _find_backbone(pm, _inner(pm))
    bb_b = [b for b in backbones if b is not bb_a]
    if len(bb_b) != 1:
        raise RuntimeError(f"{len(bb_b)} backbones for the second adapter")
    _assign_backbone(bb_b[0], g)
    with torch.no_grad():
        out_b = pm(input_ids=ids).logits
    trainable_other = _n_trainable(pm)
    ref_b = _reference_logits(_base(), blocks_b, _s0(pm, bb_b[0], None, ids), ids, 0.3)
    pm.set_adapter("default")
    with torch.no_grad():
        out_a = pm(input_ids=ids).logits
    ref_a = _reference_logits(_base(), blocks_a, _s0(pm, bb_a, None, ids), ids, 0.5)
    a_bb_trainable = any(p.requires_grad for p in bb_a.parameters())
    b_bb_trainable = any(p.requires_grad for p in bb_b[0].parameters())
    pm.delete_adapter("other")
    with torch.no_grad():
        out_after = pm(input_ids=ids).logits
    return {"out_a": out_a, "ref_a": ref_a, "out_b": out_b, "ref_b": ref_b, "out_after_delete": out_after,
            "a_backbone_trainable": a_bb_trainable, "b_backbone_trainable": b_bb_trainable,
            "trainable_other": trainable_other}


@case(rtol=1e-9, atol=1e-11)
def cached_decoding():
    """Incremental decoding: prefix with use_cache, then two given tokens with the returned cache = the logits of
    the full sequence at those positions (both the base and the shadow backbone advance from their own past)."""
    ids = _ids((2, 7), 10)
    pm, _blocks, _bb, _proj = _setup(dict(r=3, shadow_alpha=0.6))
    with torch.no_grad():
        full = pm(input_ids=ids, use_cache=False).logits
        step = pm(input_ids=ids[:, :5], use_cache=True)
        step2 = pm(input_ids=ids[:, 5:6], cache=step.cache, use_cache=True)
        step3 = pm(input_ids=ids[:, 6:7], cache=step2.cache, use_cache=True)
    inc = torch.cat([step.logits, step2.logits, step3.logits], dim=1)
    return {"full": full, "incremental": inc}


@case(rtol=1e-9, atol=1e-11)
def detached_shadow():
    """unload_shadow: a standalone model computing lm_head(P(B(x))); copy=True is independent and complete."""
    ids = _ids((2, 6), 12)
    kw = dict(r=3, shadow_alpha=0.5)
    pm, _blocks, bb, proj = _setup(kw)
    s0 = _s0(pm, bb, proj, ids)
    with torch.no_grad():
        ref = pm.get_base_model().lm_head(s0)
        det = pm.unload_shadow()
        out = det(input_ids=ids).logits
        det_copy = pm.unload_shadow(copy=True)
        out_copy = det_copy(input_ids=ids).logits
        for p in det_copy.parameters():
            p.add_(1.0)
        still = pm.unload_shadow()(input_ids=ids).logits
    kw2 = dict(r=3, shadow_alpha=0.5, **NARROW)
    pm2, _, bb2, proj2 = _setup(kw2, seed=13, base_kw=NARROW_BASE)
    s0n = _s0(pm2, bb2, proj2, ids, shared=False)
    with torch.no_grad():
        ref_n = pm2.get_base_model().lm_head(s0n)
        out_n = pm2.unload_shadow()(input_ids=ids).logits
    return {"out": out, "ref": ref, "out_copy": out_copy, "unchanged_after_copy_edit": still,
            "narrow_out": out_n, "narrow_ref": ref_n}


@case(rtol=1e-9, atol=1e-11, outputs={"*loss": {"rtol": 2e-6, "atol": 1e-8}})
def seq_cls_aux_loss():
    """Sequence classification: the auxiliary loss uses a trainable copy of the classifier on s^(0) of the last
    non-padding token (right padding), with cross-entropy for integer labels."""
    ids = _ids((3, 6), 14)
    mask = torch.ones_like(ids)
    mask[1, 4:] = 0
    mask[2, 5:] = 0
    ids = ids.masked_fill(mask == 0, 0)
    labels = torch.tensor([0, 2, 1])
    base_kw = dict(num_labels=3)
    pm = get_peft_model(_base(3, cls=LlamaForSequenceClassification, **base_kw),
                        ShadowConfig(r=3, shadow_alpha=0.5, shadow_dropout=0.0, task_type="SEQ_CLS",
                                     auxiliary_loss_weight=0.25))
    pm.eval()
    _blocks, g = _assign(pm, "default", 15)
    bb = _find_backbone(pm, pm.get_base_model().model)[-1]
    _assign_backbone(bb, g)
    with torch.no_grad():
        out = pm(input_ids=ids, attention_mask=mask, labels=labels)
        no_aux = pm(input_ids=ids, attention_mask=mask)
    s0 = _s0(pm, bb, None, ids, mask)
    last = mask.sum(-1) - 1
    pooled = s0[torch.arange(3), last]
    score = pm.get_base_model().score
    w = score.original_module.weight if hasattr(score, "original_module") else score.weight
    with torch.no_grad():
        shadow_loss = F.cross_entropy(F.linear(pooled, w), labels)
        task_logits = out.logits
        task_loss = F.cross_entropy(task_logits, labels)
    return {"loss": out.loss, "ref_loss": task_loss + 0.25 * shadow_loss, "logits": out.logits,
            "logits_no_labels": no_aux.logits}


def _gpt2(seed=0):
    torch.manual_seed(seed)
    cfg = GPT2Config(vocab_size=V, n_embd=D, n_layer=3, n_head=2, n_positions=32, resid_pdrop=0.0, embd_pdrop=0.0,
                     attn_pdrop=0.0, tie_word_embeddings=False, bos_token_id=1, eos_token_id=2)
    cfg._attn_implementation = "eager"
    return GPT2LMHeadModel(cfg).eval()


@case(rtol=1e-9, atol=1e-11)
def gpt2_equations():
    """A GPT-2 decoder (blocks in `transformer.h`, widths in `n_embd`/`n_layer`): every block adapted by default,
    a one-layer GPT-2 mirror backbone fed with the base token embeddings; logits = the hook reference."""
    ids = _ids((2, 6), 16)
    pm = get_peft_model(_gpt2(), _shadow(r=3, shadow_alpha=0.5))
    pm.eval()
    with torch.no_grad():
        zero = pm(input_ids=ids).logits
        base = _gpt2()(input_ids=ids).logits
    blocks, g = _assign(pm, "default", 17)
    bb = _find_backbone(pm, _inner(pm))[-1]
    _assign_backbone(bb, g)
    with torch.no_grad():
        out = pm(input_ids=ids).logits
        emb = pm.get_base_model().transformer.wte(ids)
        s0 = bb(inputs_embeds=emb, use_cache=False).last_hidden_state
    ref = _reference_logits(_gpt2(), blocks, s0, ids, 0.5)
    return {"zero": zero, "base": base, "out": out, "ref": ref, "n_shadow_layers": len(_shadow_layers(pm)),
            "bb_layers": int(bb.config.n_layer)}


@case(compare="none")
def generate_cache():
    """generate() with and without the cache gives the same tokens and scores, for the adapted model and for the
    detached shadow model (paper 6-7); the first detached score = lm_head(P(B(x))) at the last prompt position."""
    ids = _ids((2, 4), 18)
    pm, _blocks, bb, proj = _setup(dict(r=3, shadow_alpha=0.6))
    kw = dict(max_new_tokens=4, do_sample=False, output_scores=True, return_dict_in_generate=True, pad_token_id=0)
    with torch.no_grad():
        a = pm.generate(input_ids=ids, use_cache=True, **kw)
        b = pm.generate(input_ids=ids, use_cache=False, **kw)
        det = pm.unload_shadow(copy=True)
        c = det.generate(input_ids=ids, use_cache=True, **kw)
        d = det.generate(input_ids=ids, use_cache=False, **kw)
        s0 = _s0(pm, bb, proj, ids)
        first = pm.get_base_model().lm_head(s0)[:, -1]
    return {"token_diff": _token_diff(a.sequences, b.sequences),
            "score_diff": max(float((x - y).abs().max()) for x, y in zip(a.scores, b.scores, strict=True)),
            "det_token_diff": _token_diff(c.sequences, d.sequences),
            "det_score_diff": max(float((x - y).abs().max()) for x, y in zip(c.scores, d.scores, strict=True)),
            "det_first_diff": float((c.scores[0].double() - first).abs().max())}


@case(rtol=1e-9, atol=1e-11)
def api_paths():
    """Positional input_ids; a second adapter stays frozen until activated; beam search with and without the
    cache; the detached model's input embeddings are the base model's (shared at equal width)."""
    ids = _ids((2, 5), 19)
    pm, _blocks, _bb, _proj = _setup(dict(r=3, shadow_alpha=0.6))
    with torch.no_grad():
        kw_out = pm(input_ids=ids).logits
        pos_out = pm(ids).logits
    n_before = _n_trainable(pm)
    pm.add_adapter("other", _shadow(r=2))
    n_after_add = _n_trainable(pm)
    pm.delete_adapter("other")
    kw = dict(max_new_tokens=3, do_sample=False, num_beams=2, output_scores=True, return_dict_in_generate=True,
              pad_token_id=0)
    with torch.no_grad():
        a = pm.generate(input_ids=ids, use_cache=True, **kw)
        b = pm.generate(input_ids=ids, use_cache=False, **kw)
    det = pm.unload_shadow()
    base_emb = pm.get_base_model().get_input_embeddings()
    emb_same = det.get_input_embeddings().weight.data_ptr() == base_emb.weight.data_ptr()
    return {"kw_out": kw_out, "pos_out": pos_out, "n_before": n_before, "n_after_add": n_after_add,
            "beam_token_diff": _token_diff(a.sequences, b.sequences),
            "beam_score_diff": max(float((x - y).abs().max()) for x, y in zip(a.scores, b.scores, strict=True)),
            "detached_embeddings_shared": emb_same}


CLS = [("regression", 1), ("multilabel", 3), ("single_nomask", 3)]


@case(params=CLS, ids=[c[0] for c in CLS], rtol=1e-9, atol=1e-11, outputs={"*loss": {"rtol": 2e-6, "atol": 1e-8}})
def seq_cls_kinds(p):
    """Classification auxiliary loss for one label (MSE), float multi-label targets (BCE with logits) and integer
    labels without an attention mask (last position); the detached classifier pools the same token."""
    kind, n = p
    ids = _ids((3, 6), 20)
    pm = get_peft_model(_base(3, cls=LlamaForSequenceClassification, num_labels=n),
                        ShadowConfig(r=3, shadow_alpha=0.5, shadow_dropout=0.0, task_type="SEQ_CLS",
                                     auxiliary_loss_weight=0.5))
    pm.eval()
    _blocks, g = _assign(pm, "default", 21)
    bb = _find_backbone(pm, pm.get_base_model().model)[-1]
    _assign_backbone(bb, g)
    gl = torch.Generator().manual_seed(22)
    if kind == "regression":
        labels = torch.randn(3, generator=gl)
    elif kind == "multilabel":
        labels = (torch.rand(3, n, generator=gl) > 0.5).double()
    else:
        labels = torch.tensor([2, 0, 1])
    with torch.no_grad():
        out = pm(input_ids=ids, labels=labels)
        s0 = _s0(pm, bb, None, ids)
        score = pm.get_base_model().score
        w = score.original_module.weight if hasattr(score, "original_module") else score.weight
        logits_s = F.linear(s0[:, -1], w)
        if kind == "regression":
            shadow = F.mse_loss(logits_s.squeeze(-1), labels)
            task = F.mse_loss(out.logits.squeeze(-1), labels)
        elif kind == "multilabel":
            shadow = F.binary_cross_entropy_with_logits(logits_s, labels)
            task = F.binary_cross_entropy_with_logits(out.logits, labels)
        else:
            shadow = F.cross_entropy(logits_s, labels)
            task = F.cross_entropy(out.logits, labels)
        det = pm.unload_shadow(copy=True)
        det_logits = det(input_ids=ids).logits
    return {"loss": out.loss, "ref_loss": task + 0.5 * shadow, "det_logits": det_logits, "det_ref": logits_s}


# ================================================================ cases added in the sixth session


def _prefix_cache(pm, ids, n):
    with torch.no_grad():
        return pm(input_ids=ids[:, :n], use_cache=True).cache


@case(rtol=1e-9, atol=1e-11)
def cache_api():
    """The returned paired cache through transformers' Cache API: metadata equals the base model's own cache after
    the same prefix (delegation, ShadowCache docstring); crop / batch_select_indices / batch_repeat_interleave /
    reorder_cache act on both halves, so the next teacher-forced step equals the full forward (paper 7)."""
    ids = _ids((2, 7), 23)
    pm, _blocks, _bb, _proj = _setup(dict(r=3, shadow_alpha=0.6))
    with torch.no_grad():
        full = pm(input_ids=ids, use_cache=False).logits
        bc = _base()(input_ids=ids[:, :5], use_cache=True).cache
    c = _prefix_cache(pm, ids, 5)
    meta = {"seq_len": c.get_seq_length(), "base_seq_len": bc.get_seq_length(),
            "initialized": c.is_initialized, "base_initialized": bc.is_initialized,
            "max_length": c.get_max_length(), "base_max_length": bc.get_max_length(),
            "mask_sizes": list(c.get_mask_sizes(1, 0)), "base_mask_sizes": list(bc.get_mask_sizes(1, 0))}
    with torch.no_grad():
        c.crop(-2)  # transformers 5 crops by a negative count: 3 positions are kept
        cropped = pm(input_ids=ids[:, 3:4], cache=c, use_cache=True).logits
        c = _prefix_cache(pm, ids, 5)
        c.batch_select_indices(torch.tensor([1]))
        selected = pm(input_ids=ids[1:2, 5:6], cache=c, use_cache=True).logits
        c = _prefix_cache(pm, ids, 5)
        c.batch_repeat_interleave(2)
        repeated = pm(input_ids=ids.repeat_interleave(2, 0)[:, 5:6], cache=c, use_cache=True).logits
        c = _prefix_cache(pm, ids, 5)
        c.reorder_cache(torch.tensor([1, 0]))
        reordered = pm(input_ids=ids.flip(0)[:, 5:6], cache=c, use_cache=True).logits
    return {**meta, "cropped": cropped, "cropped_ref": full[:, 3:4], "selected": selected,
            "selected_ref": full[1:2, 5:6], "repeated": repeated,
            "repeated_ref": full.repeat_interleave(2, 0)[:, 5:6], "reordered": reordered,
            "reordered_ref": full.flip(0)[:, 5:6]}


PRE = [D, 8]


@case(params=PRE, ids=["same_width", "narrow"], rtol=1e-9, atol=1e-11)
def pretrained_backbone(width):
    """A pretrained shadow backbone from a local folder (`shadow_model=<path>`): its own embedding table
    (sharing switched off explicitly at equal width, impossible when narrower), kept frozen (paper 2;
    `_freeze_backbone_embeddings` docstring), the rest trainable; a projection P only when its width differs
    from the base; logits = the hook reference with s^(0) = P(B(x))."""
    from transformers import LlamaModel
    ids = _ids((2, 6), 24)
    torch.manual_seed(25)
    small = LlamaModel(_cfg(1, hidden_size=width, intermediate_size=12))
    with tempfile.TemporaryDirectory() as tmp:
        small.save_pretrained(tmp)
        pm = get_peft_model(_base(), _shadow(r=3, shadow_alpha=0.5, shadow_model=tmp, share_embeddings=False))
    pm.eval()
    blocks, g = _assign(pm, "default", 26)
    bb = _find_backbone(pm, _inner(pm))[-1]
    emb = bb.get_input_embeddings()
    emb_trainable = bool(emb.weight.requires_grad)
    others_trainable = all(p.requires_grad for n, p in bb.named_parameters() if "embed" not in n)
    with torch.no_grad():
        loaded_diff = (emb.weight - small.get_input_embeddings().weight).abs().max()
    _assign_backbone(bb, g)
    proj = None
    cands = _projection(pm, bb, width) if width != D else []
    if width != D:
        if len(cands) != 1:
            raise RuntimeError(f"{len(cands)} projection candidates")
        proj = cands[0]
        with torch.no_grad():
            proj.weight.copy_(_vals(proj.weight.shape, g))
    with torch.no_grad():
        out = pm(input_ids=ids).logits
    s0 = _s0(pm, bb, proj, ids, shared=False)
    ref = _reference_logits(_base(), blocks, s0, ids, 0.5)
    return {"out": out, "ref": ref, "embedding_trainable": emb_trainable, "others_trainable": others_trainable,
            "loaded_diff": loaded_diff, "n_projections": len(cands)}


@case(rtol=1e-9, atol=1e-11)
def block_ranges():
    """Two adapters over different block ranges (blocks 0-1 and 2-3 of 4): adding the second creates new wrapped
    blocks that stay frozen (peft's add_adapter contract, as api_paths); the active first adapter still moves the
    output away from the base model (paper 4), and the positional call of the tuned transformers model itself gives
    the keyword call's logits. (The exact logits are not compared: how the release treats the second adapter's
    wrapped blocks while the first is active is not decided.)"""
    ids = _ids((2, 5), 27)
    kw = dict(r=3, shadow_alpha=0.6, target_modules=["model.layers.0", "model.layers.1"])
    pm = get_peft_model(_base(4), _shadow(**kw))
    n_before = _n_trainable(pm)
    pm.add_adapter("other", _shadow(r=2, target_modules=["model.layers.2", "model.layers.3"]))
    n_after = _n_trainable(pm)
    pm, _blocks, _bb, _proj = _setup(kw, layers=4, pm=pm)
    with torch.no_grad():
        out = pm(input_ids=ids).logits
        positional = pm.get_base_model()(ids).logits
        base = _base(4)(input_ids=ids).logits
    return {"adapted": bool((out - base).abs().max() > 1e-3),
            "positional_diff": (positional - out).abs().max(),
            "n_before": n_before, "n_after_add": n_after}


def _qwen2(seed=0):
    from transformers import Qwen2Config, Qwen2ForCausalLM
    torch.manual_seed(seed)
    cfg = Qwen2Config(vocab_size=V, hidden_size=D, intermediate_size=24, num_hidden_layers=3, num_attention_heads=2,
                      num_key_value_heads=2, max_position_embeddings=32, tie_word_embeddings=False,
                      use_sliding_window=True, sliding_window=4, max_window_layers=3,
                      layer_types=["full_attention", "sliding_attention", "full_attention"])
    cfg._attn_implementation = "eager"
    return Qwen2ForCausalLM(cfg).eval()


@case(rtol=1e-9, atol=1e-11)
def qwen2_layer_types():
    """A Qwen2 decoder whose config carries per-layer `layer_types` and `max_window_layers`: the one-layer mirror
    backbone is built (paper 2) and the logits equal the hook reference (paper 1-4)."""
    ids = _ids((2, 6), 28)
    pm = get_peft_model(_qwen2(), _shadow(r=3, shadow_alpha=0.5))
    pm.eval()
    blocks, g = _assign(pm, "default", 29)
    bb = _find_backbone(pm, _inner(pm))[-1]
    _assign_backbone(bb, g)
    with torch.no_grad():
        out = pm(input_ids=ids).logits
    s0 = _s0(pm, bb, None, ids)
    ref = _reference_logits(_qwen2(), blocks, s0, ids, 0.5)
    return {"out": out, "ref": ref, "bb_layers": int(bb.config.num_hidden_layers)}


def _bloom(seed=0):
    from transformers import BloomConfig, BloomForCausalLM
    torch.manual_seed(seed)
    cfg = BloomConfig(vocab_size=V, hidden_size=D, n_layer=3, n_head=2, hidden_dropout=0.0, attention_dropout=0.0,
                      tie_word_embeddings=False, pad_token_id=0)
    cfg._attn_implementation = "eager"
    return BloomForCausalLM(cfg).eval()


@case(rtol=1e-9, atol=1e-11)
def tuple_blocks():
    """A BLOOM decoder, whose blocks return a tuple (hidden states first): the update reads the block's hidden
    states (paper 4, h_out) and the logits equal the hook reference (paper 1-4)."""
    ids = _ids((2, 6), 30)
    pm = get_peft_model(_bloom(), _shadow(r=3, shadow_alpha=0.5))
    pm.eval()
    blocks, g = _assign(pm, "default", 31)
    bb = _find_backbone(pm, _inner(pm))[-1]
    _assign_backbone(bb, g)
    with torch.no_grad():
        out = pm(input_ids=ids).logits
        emb = pm.get_base_model().get_input_embeddings()(ids)
        s0 = bb(inputs_embeds=emb, use_cache=False).last_hidden_state
    ref = _reference_logits(_bloom(), blocks, s0, ids, 0.5)
    return {"out": out, "ref": ref}


@case(rtol=1e-9, atol=1e-11)
def detached_embeddings():
    """The detached model (shared base embeddings at equal width) follows transformers' set/get_input_embeddings
    contract: after `set_input_embeddings(E2)` it reads E2 and computes lm_head(B(E2 x)) (paper 6)."""
    ids = _ids((2, 6), 32)
    pm, _blocks, bb, _proj = _setup(dict(r=3, shadow_alpha=0.5))
    det = pm.unload_shadow(copy=True)
    torch.manual_seed(33)
    e2 = nn.Embedding(V, D)
    det.set_input_embeddings(e2)
    same = det.get_input_embeddings() is e2
    with torch.no_grad():
        out = det(input_ids=ids).logits
        ref = pm.get_base_model().lm_head(bb(inputs_embeds=e2(ids), use_cache=False).last_hidden_state)
    return {"out": out, "ref": ref, "reads_new_table": same}
