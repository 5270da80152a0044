"""Probe for hf-kimi-linear/1: Kimi Delta Attention reached through tiny hybrid `KimiLinearForCausalLM` models built
here (seeded random weights, float64 unless a case says otherwise; no hub), and through the KDA ops, the forget gate,
the causal-conv helpers and the norms called directly with seeded inputs.

Values that the paper decides (the KDA recurrence, L2 normalisation, the forget gate, the convolution, the gated
norm) are recomputed from the case's own inputs in check_kda.py; model-level outputs are compared with the release at
float32-level tolerances (the release's KDA ops compute in float32), and by meaning (chunked prefill vs token-by-token
decode, padding, greedy generation, cache reorder/reset/crop)."""

from __future__ import annotations

import warnings

import torch
from lmrbench_probe import case
from transformers import DynamicCache, KimiLinearConfig, KimiLinearForCausalLM
from transformers.models.kimi_linear import modeling_kimi_linear as mk
from transformers.utils import logging

warnings.filterwarnings("ignore")
logging.set_verbosity_error()
torch.set_num_threads(1)

# the release runs KDA in float32, and its forget gate takes softplus as log(1 + exp(x)) in float32, which loses
# digits against torch's softplus (log1p): a float32 reading with F.softplus sits 1.2e-4 beyond rtol from the
# release on these logits, a float64 one 0.8e-4; every wrong variant that moves them moves them by >= 9e-2
TOL = dict(rtol=1e-4, atol=3e-4, dtype=False)

LIN, FULL = "linear_attention", "full_attention"
CONFIGS = {
    # two KDA heads of 6 channels, kernel 4, KDA/KDA/MLA/KDA, MLA without query low rank
    "heads2": dict(layer_types=[LIN, LIN, FULL, LIN], linear_num_heads=2, linear_head_dim=6,
                   linear_conv_kernel_dim=4),
    # three KDA heads of 4 channels, kernel 3, KDA/MLA/KDA, MLA with a query low rank
    "heads3": dict(num_hidden_layers=3, layer_types=[LIN, FULL, LIN], linear_num_heads=3, linear_head_dim=4,
                   linear_conv_kernel_dim=3, q_lora_rank=6),
}


def build(name: str, seed: int = 0, dtype=torch.float64, **over) -> KimiLinearForCausalLM:
    kw = dict(vocab_size=40, hidden_size=24, intermediate_size=32, moe_intermediate_size=8, num_hidden_layers=4,
              num_attention_heads=2, num_key_value_heads=2, kv_lora_rank=8, q_lora_rank=None, qk_rope_head_dim=4,
              qk_nope_head_dim=6, v_head_dim=5, num_local_experts=4, num_experts_per_tok=2, n_group=1, topk_group=1,
              max_position_embeddings=512, pad_token_id=None, bos_token_id=None, eos_token_id=None,
              tie_word_embeddings=False)
    kw.update(CONFIGS[name])
    kw["mlp_layer_types"] = ["dense"] * kw["num_hidden_layers"]
    kw.update(over)
    torch.manual_seed(seed)
    model = KimiLinearForCausalLM(KimiLinearConfig(**kw)).to(dtype).eval()
    g = torch.Generator().manual_seed(seed + 100)
    with torch.no_grad():  # larger weights than the default init, so every part of the layer matters
        for name_, prm in model.named_parameters():
            if name_.endswith("A_log"):
                prm.copy_(torch.linspace(-1.5, 0.5, prm.numel(), dtype=prm.dtype).view(prm.shape))
            elif name_.endswith("dt_bias"):
                prm.copy_(torch.linspace(-1.0, 1.0, prm.numel(), dtype=prm.dtype).view(prm.shape))
            elif "norm" in name_:
                prm.add_(0.3 * torch.randn(prm.shape, generator=g, dtype=torch.float64).to(prm.dtype))
            elif prm.ndim >= 2:
                std = 0.35 if "self_attn" in name_ else 0.15
                prm.copy_(std * torch.randn(prm.shape, generator=g, dtype=torch.float64).to(prm.dtype))
    model.generation_config.eos_token_id = None
    return model


def ids(batch: int, length: int, seed: int, vocab: int = 40) -> torch.Tensor:
    return torch.randint(0, vocab, (batch, length), generator=torch.Generator().manual_seed(seed))


def linear_layers(model):
    return [i for i, t in enumerate(model.config.layer_types) if t == LIN]


# ---------------------------------------------------------------- the ops, called directly


OPS = {
    "short_l2": dict(T=5, h=2, dk=4, dv=3, l2=True, init=False, chunk=64),
    "two_chunks_l2_init": dict(T=70, h=2, dk=4, dv=5, l2=True, init=True, chunk=64),
    "chunk8_noinit": dict(T=21, h=3, dk=5, dv=2, l2=True, init=False, chunk=8),
    "exact_chunks_no_l2": dict(T=32, h=2, dk=3, dv=3, l2=False, init=True, chunk=16),
    "single_token": dict(T=1, h=2, dk=4, dv=3, l2=True, init=True, chunk=64),
}


@case(params=list(OPS), ids=list(OPS), compare="none")
def kda_ops(key):
    """Both KDA ops on the same inputs; the check recomputes the channel-wise gated delta recurrence (Sec. 3.1)."""
    s = OPS[key]
    g = torch.Generator().manual_seed(len(key))
    B, T, H = 2, s["T"], s["h"]
    q = torch.randn(B, T, H, s["dk"], generator=g, dtype=torch.float64)
    k = torch.randn(B, T, H, s["dk"], generator=g, dtype=torch.float64)
    if not s["l2"]:  # unit keys and queries given directly
        q, k = q / q.norm(dim=-1, keepdim=True), k / k.norm(dim=-1, keepdim=True)
    v = torch.randn(B, T, H, s["dv"], generator=g, dtype=torch.float64)
    decay = -torch.rand(B, T, H, s["dk"], generator=g, dtype=torch.float64) * 0.8  # log alpha per channel
    beta = torch.rand(B, T, H, generator=g, dtype=torch.float64)
    S0 = torch.randn(B, H, s["dk"], s["dv"], generator=g, dtype=torch.float64) if s["init"] else None
    kw = dict(initial_state=S0, output_final_state=True, use_qk_l2norm_in_kernel=s["l2"])
    o_c, S_c = mk.chunk_kimi_delta_attention(q, k, v, g=decay, beta=beta, chunk_size=s["chunk"], **kw)
    o_r, S_r = mk.recurrent_kimi_delta_attention(q, k, v, g=decay, beta=beta, **kw)
    o_n, S_n = mk.chunk_kimi_delta_attention(q, k, v, g=decay, beta=beta, chunk_size=s["chunk"],
                                             initial_state=S0, output_final_state=False,
                                             use_qk_l2norm_in_kernel=s["l2"])
    return {"l2": s["l2"], "q": q, "k": k, "v": v, "g": decay, "beta": beta,
            "S0": S0 if S0 is not None else torch.zeros(B, H, s["dk"], s["dv"], dtype=torch.float64),
            "chunk_out": o_c.double(), "chunk_state": S_c.double(), "rec_out": o_r.double(),
            "rec_state": S_r.double(), "no_state_is_none": S_n is None, "no_state_out": o_n.double()}


@case(compare="none")
def norms_and_gate():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(5, 6, generator=g, dtype=torch.float64) * 3
    z = torch.randn(5, 6, generator=g, dtype=torch.float64) * 2
    norm = mk.KimiLinearRMSNormGated(6, eps=1e-6).double()
    with torch.no_grad():
        norm.weight.copy_(torch.linspace(0.5, 2.0, 6, dtype=torch.float64))
    y = mk.l2norm(x, dim=-1, eps=1e-6)
    y0 = mk.l2norm(x, dim=0, eps=1e-6)
    # the forget gate of a 3-head, 4-channel layer on hidden size 10, with pre-activations up to ~30 (softplus tail)
    cfg = KimiLinearConfig(hidden_size=10, linear_num_heads=3, linear_head_dim=4, num_hidden_layers=1,
                           mlp_layer_types=["dense"], layer_types=[LIN], pad_token_id=None, bos_token_id=None,
                           eos_token_id=None)
    gate = mk.KimiLinearForgetGate(cfg).double()
    with torch.no_grad():
        gate.f_a_proj.weight.copy_(torch.randn(4, 10, generator=g, dtype=torch.float64))
        gate.f_b_proj.weight.copy_(torch.randn(12, 4, generator=g, dtype=torch.float64) * 2)
        gate.dt_bias.copy_(torch.linspace(-2.0, 3.0, 12, dtype=torch.float64).view(gate.dt_bias.shape))
        gate.A_log.copy_(torch.tensor([-1.0, 0.2, 1.1], dtype=torch.float64).view(gate.A_log.shape))
    h = torch.randn(2, 5, 10, generator=g, dtype=torch.float64)
    log_alpha = gate(h)
    return {"x": x, "z": z, "w": norm.weight.detach(), "gated": norm(x, z).detach(), "l2": y, "l2_dim0": y0,
            "h": h, "f_a": gate.f_a_proj.weight.detach(), "f_b": gate.f_b_proj.weight.detach(),
            "dt_bias": gate.dt_bias.detach().double().reshape(-1), "A_log": gate.A_log.detach().double().reshape(-1),
            "log_alpha": log_alpha.detach().double()}


@case(compare="none")
def causal_conv_helpers():
    g = torch.Generator().manual_seed(4)
    B, C, T, K = 2, 5, 7, 4
    x = torch.randn(B, C, T, generator=g, dtype=torch.float64)
    w = torch.randn(C, K, generator=g, dtype=torch.float64)
    bias = torch.randn(C, generator=g, dtype=torch.float64)
    full = mk.causal_conv1d_fn(x, w, bias, activation="silu")
    nobias = mk.causal_conv1d_fn(x, w, None, activation=None)
    state = torch.randn(B, C, K, generator=g, dtype=torch.float64)
    state_before = state.clone()
    x1 = torch.randn(B, C, 1, generator=g, dtype=torch.float64)
    step = mk.causal_conv1d_update(x1, state, w, bias, activation="silu")
    h = torch.randn(2, 4, 3, generator=g, dtype=torch.float64)
    m = torch.tensor([[0, 1, 1, 1], [1, 1, 1, 1]])
    return {"x": x, "w": w, "bias": bias, "full": full, "nobias": nobias, "state_before": state_before,
            "x1": x1, "step": step, "state_after": state, "h": h, "mask": m,
            "masked": mk.apply_mask_to_padding_states(h, m), "unmasked": mk.apply_mask_to_padding_states(h, None)}


# ---------------------------------------------------------------- the model


@case(params=list(CONFIGS), ids=list(CONFIGS), **TOL)
def forward_logits(name):
    model = build(name)
    x = ids(2, 70, 1)  # 70 > 64: the chunked path crosses a chunk boundary
    with torch.no_grad():
        logits = model(x).logits
        short = model(x[:, :2]).logits  # shorter than the convolution kernel
        one = model(x[:, :1]).logits  # one token, no cache
    return {"logits": logits, "short": short, "one": one}


@case(params=list(CONFIGS), ids=list(CONFIGS), **TOL)
def prefill_then_decode(name):
    """Chunkwise prefill, then token-by-token decode with the cache; the check compares with a full forward."""
    model = build(name, seed=1)
    x = ids(2, 75, 2)
    with torch.no_grad():
        full = model(x).logits
        out = model(x[:, :67], use_cache=True)
        cache = out.cache
        steps = [out.logits]
        for t in range(67, 75):
            o = model(x[:, t:t + 1], cache=cache, use_cache=True)
            steps.append(o.logits)
        # a second multi-token segment continuing from the cache (chunked path with an initial state)
        out2 = model(x[:, :60], use_cache=True)
        cache2 = out2.cache
        seg = model(x[:, 60:75], cache=cache2, use_cache=True).logits
    lin = linear_layers(model)
    states = [cache.get_recurrent_state(i) for i in lin]
    return {"full": full, "stepped": torch.cat(steps, 1), "segmented": torch.cat([out2.logits, seg], 1),
            "rec_states": [s.double() for s in states], "seq_length": int(cache.get_seq_length()),
            "conv_width": [int(cache.get_conv_state(i).shape[-1]) for i in lin],
            "kernel": int(model.config.linear_conv_kernel_dim),
            "no_state_before": fresh_cache_is_empty(model)}


def fresh_cache_is_empty(model) -> bool:
    cache = DynamicCache(config=model.config)
    i = linear_layers(model)[0]
    return cache.get_conv_state(i) is None and cache.get_recurrent_state(i) is None


@case(compare="none")
def left_padding():
    """Left-padded row in a batch: its real positions must give the unpadded row's logits (paper Section 3.3)."""
    model = build("heads2", seed=2)
    x = ids(2, 12, 3)
    mask = torch.ones(2, 12, dtype=torch.long)
    mask[0, :4] = 0
    with torch.no_grad():
        batched = model(x, attention_mask=mask).logits
        alone = model(x[:1, 4:]).logits
        other = model(x[1:]).logits
        gen = model.generate(x, attention_mask=mask, max_new_tokens=3, do_sample=False,
                             return_dict_in_generate=True, output_logits=True)
        gen_alone = model.generate(x[:1, 4:], max_new_tokens=3, do_sample=False,
                                   return_dict_in_generate=True, output_logits=True)
    return {"padded_real": batched[0, 4:], "alone": alone[0], "other_batched": batched[1], "other": other[0],
            "gen_logits": torch.stack([s[0] for s in gen.logits]).double(),
            "gen_alone_logits": torch.stack([s[0] for s in gen_alone.logits]).double()}


@case(compare="none")
def greedy_generate():
    model = build("heads3", seed=3)
    x = ids(2, 9, 4)
    with torch.no_grad():
        gen = model.generate(x, max_new_tokens=6, do_sample=False, return_dict_in_generate=True,
                             output_logits=True)
        seq = gen.sequences
        again = model(seq).logits[:, 8:-1]
    return {"sequences": seq, "gen_logits": torch.stack(gen.logits, 1).double(), "forward_logits": again}


@case(compare="none")
def cache_reorder_reset_crop():
    model = build("heads3", seed=5)
    x = ids(2, 10, 5)
    nxt = ids(2, 1, 6)
    nxt2 = ids(2, 1, 7)
    with torch.no_grad():
        # reorder: swapping the batch rows of the cache = running the swapped batch
        out = model(x, use_cache=True)
        cache = out.cache
        cache.reorder_cache(torch.tensor([1, 0]))
        swapped_step = model(nxt.flip(0), cache=cache, use_cache=True).logits
        ref_out = model(x.flip(0), use_cache=True)
        ref_step = model(nxt.flip(0), cache=ref_out.cache, use_cache=True).logits
        # reset: a reset cache behaves like a fresh one (a one-token first step, then a prefill)
        cache.reset()
        reset_one = model(x[:, :1], cache=cache, use_cache=True).logits
        fresh_one = model(x[:, :1]).logits
        cache.reset()
        after_reset = model(x, cache=cache, use_cache=True).logits
        fresh = model(x).logits
        # crop: record the past, feed 3 tokens, remove the last 2, feed another token; then again
        out = model(x[:, :7], use_cache=True)
        cache = out.cache
        cache.activate_past_recording(recurrent_states_to_keep=3)
        model(x[:, 7:10], cache=cache, use_cache=True)
        cache.crop(-2)
        cropped_len = int(cache.get_seq_length())
        after_crop = model(nxt, cache=cache, use_cache=True).logits
        direct = model(torch.cat([x[:, :8], nxt], 1)).logits[:, -1:]
        model(x[:, 2:4], cache=cache, use_cache=True)
        cache.crop(-1)
        after_crop2 = model(nxt2, cache=cache, use_cache=True).logits
        direct2 = model(torch.cat([x[:, :8], nxt, x[:, 2:3], nxt2], 1)).logits[:, -1:]
        lin = linear_layers(model)[0]
        full = model.config.layer_types.index(FULL)
        to_keep = [cache.get_recurrent_states_to_keep(None), cache.get_recurrent_states_to_keep(lin),
                   cache.get_recurrent_states_to_keep(full)]
    return {"swapped_step": swapped_step, "ref_step": ref_step, "after_reset": after_reset, "fresh": fresh,
            "reset_one": reset_one, "fresh_one": fresh_one, "after_crop": after_crop, "direct": direct,
            "after_crop2": after_crop2, "direct2": direct2, "cropped_len": cropped_len,
            "to_keep": [int(t) for t in to_keep]}


@case(rtol=1e-4, atol=3e-4, dtype=False)  # the softplus rounding above moves gradients by <= 7e-5
def gradients():
    model = build("heads2", seed=6)
    model.train()
    x = ids(2, 20, 7)
    out = model(x, labels=x)
    out.loss.backward()
    la = model.model.layers[0].self_attn
    fg = la.forget_gate
    # per-head parameters flattened: their storage shape is not decided by anything a solver sees (blind solves)
    return {"loss": out.loss.detach(), "grad_A_log": fg.A_log.grad.flatten(), "grad_dt_bias": fg.dt_bias.grad.flatten(),
            "grad_f_a": fg.f_a_proj.weight.grad, "grad_f_b": fg.f_b_proj.weight.grad,
            "grad_conv": la.conv1d.weight.grad, "grad_q": la.q_proj.weight.grad, "grad_k": la.k_proj.weight.grad,
            "grad_v": la.v_proj.weight.grad, "grad_b": la.b_proj.weight.grad, "grad_g_a": la.g_a_proj.weight.grad,
            "grad_g_b": la.g_b_proj.weight.grad, "grad_norm": la.o_norm.weight.grad,
            "grad_out": la.o_proj.weight.grad, "grad_embed": model.model.embed_tokens.weight.grad}


@case(compare="none")
def config_layer_types():
    base = dict(pad_token_id=None, bos_token_id=None, eos_token_id=None)
    a = KimiLinearConfig(num_hidden_layers=9, **base)
    c = KimiLinearConfig(num_hidden_layers=3, layer_types=[FULL, LIN, FULL], mlp_layer_types=["sparse"] * 3, **base)
    d = KimiLinearConfig(num_hidden_layers=5, first_k_dense_replace=2, **base,
                         linear_attn_config={"head_dim": 16, "num_heads": 3, "short_conv_kernel_size": 2,
                                             "full_attn_layers": [2, 5], "kda_layers": [1, 3, 4]})
    e = KimiLinearConfig(num_hidden_layers=2, num_key_value_heads=None, num_attention_heads=6,
                         qk_nope_head_dim=7, qk_rope_head_dim=3, **base)
    return {"default": list(a.layer_types), "default_mlp": list(a.mlp_layer_types), "explicit": list(c.layer_types),
            "explicit_mlp": list(c.mlp_layer_types), "ckpt": list(d.layer_types), "ckpt_mlp": list(d.mlp_layer_types),
            "ckpt_dims": [d.linear_head_dim, d.linear_num_heads, d.linear_conv_kernel_dim],
            "kv_heads": e.num_key_value_heads,
            # -1: no such attribute (its one caller, generation/utils.py:2156, reads it with a default)
            "qk_head_dim": -1 if getattr(e, "qk_head_dim", None) is None else e.qk_head_dim}


@case(compare="none")
def layer_dispatch():
    """Which mixer and which FFN each decoder layer holds, and a float32 model with MoE layers runs the KDA path."""
    model = build("heads2", seed=8, dtype=torch.float32, mlp_layer_types=["dense", "sparse", "sparse", "dense"])
    kinds = [(type(layer.self_attn).__name__, type(layer.mlp).__name__) for layer in model.model.layers]
    x = ids(2, 6, 9)
    with torch.no_grad():
        out = model(x, use_cache=True)
        nxt = model(x[:, :1], cache=out.cache, use_cache=True).logits
    cache_kinds = [type(layer).__name__ for layer in out.cache.layers]
    return {"kinds": kinds, "cache_kinds": cache_kinds, "finite": bool(torch.isfinite(nxt).all()),
            "hidden": model.model(x, output_hidden_states=True).hidden_states[-1].shape[-1] == 24}


@case(compare="none")
def init_weights():
    torch.manual_seed(0)
    cfg = KimiLinearConfig(vocab_size=40, hidden_size=24, intermediate_size=32, moe_intermediate_size=8,
                           num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2, kv_lora_rank=8,
                           qk_rope_head_dim=4, qk_nope_head_dim=6, v_head_dim=5, linear_num_heads=64,
                           linear_head_dim=8, num_local_experts=4, num_experts_per_tok=2, layer_types=[LIN, FULL],
                           mlp_layer_types=["sparse", "dense"], initializer_range=0.05, pad_token_id=None,
                           bos_token_id=None, eos_token_id=None)
    model = KimiLinearForCausalLM(cfg)
    la = model.model.layers[0].self_attn
    moe = model.model.layers[0].mlp
    return {"dt_bias": la.forget_gate.dt_bias.detach().double(), "A_log": la.forget_gate.A_log.detach().double(),
            "gated_norm_w": la.o_norm.weight.detach().double(),
            "experts_std": float(moe.experts.gate_up_proj.detach().double().std()),
            "router_std": float(moe.gate.weight.detach().double().std()),
            "q_std": float(la.q_proj.weight.detach().double().std())}
