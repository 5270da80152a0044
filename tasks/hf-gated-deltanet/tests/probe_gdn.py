"""Probe for hf-gated-deltanet/1: the Gated DeltaNet layer of Qwen3-Next reached through tiny hybrid
`Qwen3NextForCausalLM` models built here (seeded random weights, float64 unless a case says otherwise; no hub), and
through the delta-rule ops, the causal-conv helpers and the norms called directly with seeded inputs.

Values that the paper decides (the gated delta recurrence, L2 normalisation, the convolution, the gated norm) are
recomputed from the case's own inputs in check_gdn.py; model-level outputs are compared with the release at
float32-level tolerances (the release's delta-rule ops compute in float32), and by meaning (chunked prefill vs
token-by-token decode, padding, greedy generation, cache reorder/reset/crop)."""

from __future__ import annotations

import warnings

import torch
from lmrbench_probe import case
from transformers import DynamicCache, Qwen3NextConfig, Qwen3NextForCausalLM
from transformers.models.qwen3_next import modeling_qwen3_next as mq
from transformers.utils import logging

warnings.filterwarnings("ignore")
logging.set_verbosity_error()
torch.set_num_threads(1)

TOL = dict(rtol=1e-4, atol=1e-4, dtype=False)  # the release runs the delta rule in float32

CONFIGS = {
    # grouped heads (2 key heads serve 4 value heads), kernel 4, linear/full/linear/full
    "grouped": dict(layer_types=["linear_attention", "full_attention", "linear_attention", "full_attention"],
                    linear_num_key_heads=2, linear_num_value_heads=4, linear_conv_kernel_dim=4),
    # equal heads, kernel 3, two linear layers in a row, default layer_types from full_attention_interval
    "interval3": dict(num_hidden_layers=3, full_attention_interval=3, linear_num_key_heads=2,
                      linear_num_value_heads=2, linear_conv_kernel_dim=3, linear_key_head_dim=4,
                      linear_value_head_dim=8),
}


def build(name: str, seed: int = 0, dtype=torch.float64, **over) -> Qwen3NextForCausalLM:
    kw = dict(vocab_size=40, hidden_size=24, intermediate_size=32, num_hidden_layers=4, num_attention_heads=2,
              num_key_value_heads=1, head_dim=8, linear_key_head_dim=8, linear_value_head_dim=6,
              num_experts=0, max_position_embeddings=512, pad_token_id=None, bos_token_id=None,
              eos_token_id=None, tie_word_embeddings=False)
    kw.update(CONFIGS[name])
    kw.update(over)
    torch.manual_seed(seed)
    model = Qwen3NextForCausalLM(Qwen3NextConfig(**kw)).to(dtype).eval()
    g = torch.Generator().manual_seed(seed + 100)
    with torch.no_grad():  # larger weights than the default init, so every part of the layer matters
        for name_, prm in model.named_parameters():
            if name_.endswith("A_log"):
                prm.copy_(torch.linspace(-1.5, 0.5, prm.numel(), dtype=prm.dtype))
            elif name_.endswith("dt_bias"):
                prm.copy_(torch.linspace(-1.0, 1.0, prm.numel(), dtype=prm.dtype))
            elif "norm" in name_:
                prm.add_(0.3 * torch.randn(prm.shape, generator=g, dtype=torch.float64).to(prm.dtype))
            elif prm.ndim >= 2:
                std = 0.35 if "linear_attn" in name_ else 0.15
                prm.copy_(std * torch.randn(prm.shape, generator=g, dtype=torch.float64).to(prm.dtype))
    model.generation_config.eos_token_id = None
    return model


def ids(batch: int, length: int, seed: int, vocab: int = 40) -> torch.Tensor:
    return torch.randint(0, vocab, (batch, length), generator=torch.Generator().manual_seed(seed))


def linear_layers(model):
    return [i for i, t in enumerate(model.config.layer_types) if t == "linear_attention"]


# ---------------------------------------------------------------- the ops, called directly


OPS = {
    "short_l2": dict(T=5, hk=2, hv=4, dk=4, dv=3, l2=True, init=False, chunk=64),
    "two_chunks_l2_init": dict(T=70, hk=2, hv=2, dk=4, dv=5, l2=True, init=True, chunk=64),
    "chunk8_noinit": dict(T=21, hk=1, hv=3, dk=5, dv=2, l2=True, init=False, chunk=8),
    "exact_chunks_no_l2": dict(T=32, hk=2, hv=2, dk=3, dv=3, l2=False, init=True, chunk=16),
    "single_token": dict(T=1, hk=2, hv=4, dk=4, dv=3, l2=True, init=True, chunk=64),
}


@case(params=list(OPS), ids=list(OPS), compare="none")
def delta_rule_ops(key):
    """Both ops on the same inputs; the check recomputes the gated delta recurrence (paper Section 2)."""
    s = OPS[key]
    g = torch.Generator().manual_seed(len(key))
    B, T = 2, s["T"]
    q = torch.randn(B, T, s["hk"], s["dk"], generator=g, dtype=torch.float64)
    k = torch.randn(B, T, s["hk"], s["dk"], generator=g, dtype=torch.float64)
    if not s["l2"]:  # unit keys and queries of norm 1 given directly
        q, k = q / q.norm(dim=-1, keepdim=True), k / k.norm(dim=-1, keepdim=True)
    v = torch.randn(B, T, s["hv"], s["dv"], generator=g, dtype=torch.float64)
    decay = -torch.rand(B, T, s["hv"], generator=g, dtype=torch.float64) * 0.8
    beta = torch.rand(B, T, s["hv"], generator=g, dtype=torch.float64)
    S0 = torch.randn(B, s["hv"], s["dk"], s["dv"], generator=g, dtype=torch.float64) if s["init"] else None
    kw = dict(initial_state=S0, output_final_state=True, use_qk_l2norm_in_kernel=s["l2"])
    o_c, S_c = mq.torch_chunk_gated_delta_rule(q, k, v, g=decay, beta=beta, chunk_size=s["chunk"], **kw)
    o_r, S_r = mq.torch_recurrent_gated_delta_rule(q, k, v, g=decay, beta=beta, **kw)
    o_n, S_n = mq.torch_chunk_gated_delta_rule(q, k, v, g=decay, beta=beta, chunk_size=s["chunk"],
                                               initial_state=S0, output_final_state=False,
                                               use_qk_l2norm_in_kernel=s["l2"])
    return {"l2": s["l2"], "q": q, "k": k, "v": v, "g": decay, "beta": beta,
            "S0": S0 if S0 is not None else torch.zeros(B, s["hv"], s["dk"], s["dv"], dtype=torch.float64),
            "chunk_out": o_c.double(), "chunk_state": S_c.double(), "rec_out": o_r.double(),
            "rec_state": S_r.double(), "no_state_is_none": S_n is None, "no_state_out": o_n.double()}


@case(compare="none")
def norms_and_l2():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(5, 6, generator=g, dtype=torch.float64) * 3
    z = torch.randn(5, 6, generator=g, dtype=torch.float64) * 2
    norm = mq.Qwen3NextRMSNormGated(6, eps=1e-6).double()
    with torch.no_grad():
        norm.weight.copy_(torch.linspace(0.5, 2.0, 6, dtype=torch.float64))
    y = mq.l2norm(x, dim=-1, eps=1e-6)
    y0 = mq.l2norm(x, dim=0, eps=1e-6)
    return {"x": x, "z": z, "w": norm.weight.detach(), "gated": norm(x, z).detach(), "l2": y, "l2_dim0": y0}


@case(compare="none")
def causal_conv_helpers():
    g = torch.Generator().manual_seed(4)
    B, C, T, K = 2, 5, 7, 4
    x = torch.randn(B, C, T, generator=g, dtype=torch.float64)
    w = torch.randn(C, K, generator=g, dtype=torch.float64)
    bias = torch.randn(C, generator=g, dtype=torch.float64)
    full = mq.causal_conv1d_fn(x, w, bias, activation="silu")
    nobias = mq.causal_conv1d_fn(x, w, None, activation=None)
    state = torch.randn(B, C, K, generator=g, dtype=torch.float64)
    state_before = state.clone()
    x1 = torch.randn(B, C, 1, generator=g, dtype=torch.float64)
    step = mq.causal_conv1d_update(x1, state, w, bias, activation="silu")
    return {"x": x, "w": w, "bias": bias, "full": full, "nobias": nobias, "state_before": state_before,
            "x1": x1, "step": step, "state_after": state}


# ---------------------------------------------------------------- the model


@case(params=list(CONFIGS), ids=list(CONFIGS), **TOL)
def forward_logits(name):
    model = build(name)
    x = ids(2, 70, 1)  # 70 > 64: the chunked path crosses a chunk boundary
    with torch.no_grad():
        logits = model(x).logits
        short = model(x[:, :2]).logits  # shorter than the convolution kernel
    return {"logits": logits, "short": short, "layer_types": list(model.config.layer_types)}


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
            "no_state_before": fresh_cache_is_empty(model)}


def fresh_cache_is_empty(model) -> bool:
    cache = DynamicCache(config=model.config)
    i = linear_layers(model)[0]
    return cache.get_conv_state(i) is None and cache.get_recurrent_state(i) is None


@case(compare="none")
def left_padding():
    """Left-padded row in a batch: its real positions must give the unpadded row's logits (paper Section 5)."""
    model = build("grouped", seed=2)
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
    model = build("grouped", seed=3)
    x = ids(2, 9, 4)
    with torch.no_grad():
        gen = model.generate(x, max_new_tokens=6, do_sample=False, return_dict_in_generate=True,
                             output_logits=True)
        seq = gen.sequences
        again = model(seq).logits[:, 8:-1]
    return {"sequences": seq, "gen_logits": torch.stack(gen.logits, 1).double(), "forward_logits": again}


@case(compare="none")
def cache_reorder_reset_crop():
    model = build("interval3", seed=5)
    x = ids(2, 10, 5)
    nxt = ids(2, 1, 6)
    with torch.no_grad():
        # reorder: swapping the batch rows of the cache = running the swapped batch
        out = model(x, use_cache=True)
        cache = out.cache
        cache.reorder_cache(torch.tensor([1, 0]))
        swapped_step = model(nxt.flip(0), cache=cache, use_cache=True).logits
        ref_out = model(x.flip(0), use_cache=True)
        ref_step = model(nxt.flip(0), cache=ref_out.cache, use_cache=True).logits
        # reset: a reset cache behaves like a fresh one
        cache.reset()
        after_reset = model(x, cache=cache, use_cache=True).logits
        fresh = model(x).logits
        # crop: record the past, feed 3 tokens, remove the last 2, feed another token
        out = model(x[:, :7], use_cache=True)
        cache = out.cache
        cache.activate_past_recording(recurrent_states_to_keep=3)
        model(x[:, 7:10], cache=cache, use_cache=True)
        cache.crop(-2)
        cropped_len = int(cache.get_seq_length())
        after_crop = model(nxt, cache=cache, use_cache=True).logits
        direct = model(torch.cat([x[:, :8], nxt], 1)).logits[:, -1:]
    return {"swapped_step": swapped_step, "ref_step": ref_step, "after_reset": after_reset, "fresh": fresh,
            "after_crop": after_crop, "direct": direct, "cropped_len": cropped_len}


@case(rtol=1e-4, atol=1e-4, dtype=False)
def gradients():
    model = build("grouped", seed=6)
    model.train()
    x = ids(2, 20, 7)
    out = model(x, labels=x)
    out.loss.backward()
    la = model.model.layers[0].linear_attn
    return {"loss": out.loss.detach(), "grad_A_log": la.A_log.grad, "grad_dt_bias": la.dt_bias.grad,
            "grad_conv": la.conv1d.weight.grad, "grad_qkvz": la.in_proj_qkvz.weight.grad,
            "grad_ba": la.in_proj_ba.weight.grad, "grad_norm": la.norm.weight.grad,
            "grad_out": la.out_proj.weight.grad, "grad_embed": model.model.embed_tokens.weight.grad}


@case(rtol=1e-4, atol=1e-5, dtype=False)
def moe_float32():
    """A float32 model with a tiny sparse MoE in every second layer (decoder_sparse_step 2) and one MLP-only layer."""
    model = build("grouped", seed=7, dtype=torch.float32, num_experts=4, num_experts_per_tok=2,
                  moe_intermediate_size=8, shared_expert_intermediate_size=8, decoder_sparse_step=1,
                  mlp_only_layers=[2])
    x = ids(2, 16, 8)
    with torch.no_grad():
        logits = model(x).logits
    kinds = [type(layer.mlp).__name__ for layer in model.model.layers]
    return {"logits": logits.double(), "mlp_kinds": kinds}


@case(compare="exact")
def config_layer_types():
    a = Qwen3NextConfig(num_hidden_layers=8)
    b = Qwen3NextConfig(num_hidden_layers=5, full_attention_interval=2)
    c = Qwen3NextConfig(num_hidden_layers=3, layer_types=["full_attention", "linear_attention", "full_attention"])
    return {"default": list(a.layer_types), "interval2": list(b.layer_types), "explicit": list(c.layer_types),
            "mlp_only": list(a.mlp_only_layers)}


@case(compare="none")
def init_weights():
    torch.manual_seed(0)
    cfg = Qwen3NextConfig(vocab_size=40, hidden_size=24, intermediate_size=32, num_hidden_layers=2,
                          num_attention_heads=2, num_key_value_heads=1, head_dim=8, linear_key_head_dim=8,
                          linear_value_head_dim=6, linear_num_key_heads=2, linear_num_value_heads=64,
                          num_experts=8, num_experts_per_tok=2, moe_intermediate_size=64,
                          shared_expert_intermediate_size=8, layer_types=["linear_attention", "full_attention"],
                          initializer_range=0.05)
    model = Qwen3NextForCausalLM(cfg)
    la = model.model.layers[0].linear_attn
    moe = model.model.layers[0].mlp
    return {"dt_bias": la.dt_bias.detach().double(), "A": la.A_log.detach().double().exp(),
            "gated_norm_w": la.norm.weight.detach().double(),
            "rms_norm_w": model.model.layers[0].input_layernorm.weight.detach().double(),
            "final_norm_w": model.model.norm.weight.detach().double(),
            "experts_std": float(moe.experts.gate_up_proj.detach().double().std()),
            "experts_down_std": float(moe.experts.down_proj.detach().double().std()),
            "router_std": float(moe.gate.weight.detach().double().std())}
