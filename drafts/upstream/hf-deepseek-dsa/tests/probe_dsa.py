"""Probe for hf-deepseek-dsa/1: DeepSeek Sparse Attention in DeepSeek-V3.2, reached through tiny
`DeepseekV32ForCausalLM` models built here (seeded random weights, float64, dense MLP layers; no hub), through the
layer's indexer called directly, and through the indexed cache layers.

Top-k selections are discrete choices made from float scores (the release scores in float32): every model and seed
here was chosen so that the k-th and (k+1)-th index scores of every query that has more than k candidates are well
apart (make_margins.py prints the margins; NOTES.md records them), so the selections, and the outputs, reproduce on
any host. Model outputs are compared with the release at float64-level tolerances, and by meaning (dense
equivalence when k covers the context, cached decoding = one forward, causality, padding, eager = sdpa)."""

from __future__ import annotations

import warnings

import torch
from lmrbench_probe import case
from transformers import DeepseekV32Config, DeepseekV32ForCausalLM, DynamicCache, StaticCache
from transformers.utils import logging

warnings.filterwarnings("ignore")
logging.set_verbosity_error()
torch.set_num_threads(1)

TOL = dict(rtol=1e-6, atol=1e-7, dtype=False)
VOCAB = 40

CONFIGS = {
    # 8 indexer heads of width 12 (4 rotary + 8 plain channels), k = 4
    "k4": dict(index_topk=4, index_n_heads=8, index_head_dim=12, qk_rope_head_dim=4),
    # wider rotary part, one query per layer sees at most 6 tokens, 3 layers
    "k6": dict(index_topk=6, index_n_heads=6, index_head_dim=16, qk_rope_head_dim=8, num_hidden_layers=3,
               qk_nope_head_dim=8, v_head_dim=6),
}


def build(name: str = "k4", seed: int = 0, attn: str | None = None, **over) -> DeepseekV32ForCausalLM:
    kw = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=40, moe_intermediate_size=16,
              num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4, n_routed_experts=4, n_group=1,
              topk_group=1, num_experts_per_tok=2, kv_lora_rank=16, q_lora_rank=24, qk_rope_head_dim=4,
              qk_nope_head_dim=6, v_head_dim=8, first_k_dense_replace=8, max_position_embeddings=256,
              pad_token_id=None, bos_token_id=None, eos_token_id=None, tie_word_embeddings=False)
    kw.update(CONFIGS[name])
    kw.update(over)
    cfg = DeepseekV32Config(**kw)
    if attn is not None:
        cfg._attn_implementation = attn
    torch.manual_seed(seed)
    model = DeepseekV32ForCausalLM(cfg).to(torch.float64).eval()
    g = torch.Generator().manual_seed(seed + 100)
    with torch.no_grad():  # larger weights than the default init, so the indexer's choices matter
        for pname, prm in model.named_parameters():
            noise = torch.randn(prm.shape, generator=g, dtype=torch.float64)
            if "norm" in pname:
                prm.add_(0.3 * noise)
            elif prm.ndim >= 2:
                prm.copy_((0.5 if "indexer" in pname else 0.25) * noise)
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = 0
    return model


def ids(batch: int, length: int, seed: int) -> torch.Tensor:
    return torch.randint(0, VOCAB, (batch, length), generator=torch.Generator().manual_seed(seed))


# ---------------------------------------------------------------- the model forward


@case(params=list(CONFIGS), ids=list(CONFIGS), **TOL)
def forward_logits(name):
    """Sparse attention over the indexer's top-k in every layer (paper Section 2), vs the release."""
    model = build(name)
    x = ids(2, 16, 1)
    with torch.no_grad():
        out = model(x)
    return {"logits": out.logits}


@case(compare="none")
def dense_equivalence():
    """k >= the context: every candidate is selected, so DSA = dense causal attention (paper Section 2.2)."""
    x = ids(2, 9, 2)
    with torch.no_grad():
        at_len = build("k4", seed=3, index_topk=9)(x).logits
        huge = build("k4", seed=3, index_topk=4096)(x).logits
        sparse = build("k4", seed=3, index_topk=3)(x).logits
        # the first 3 positions have at most 3 candidates: sparse = dense there
    return {"at_len": at_len, "huge": huge, "sparse": sparse}


@case(compare="none")
def causality():
    """Changing later tokens changes nothing before them (the indexer scores only preceding tokens)."""
    model = build("k4", seed=4)
    x = ids(2, 14, 5)
    y = x.clone()
    y[:, 8:] = (y[:, 8:] + 7) % VOCAB
    with torch.no_grad():
        a = model(x).logits
        b = model(y).logits
    return {"a": a, "b": b, "cut": 8}


@case(compare="none")
def eager_matches_sdpa():
    x = ids(2, 13, 6)
    with torch.no_grad():
        sdpa = build("k6", seed=5, attn="sdpa")(x).logits
        eager = build("k6", seed=5, attn="eager")(x).logits
    return {"sdpa": sdpa, "eager": eager}


@case(**TOL)
def decode_with_cache():
    """Prefill, then token-by-token decode with the indexer key cache = one full forward."""
    model = build("k4", seed=7)
    x = ids(2, 15, 8)
    with torch.no_grad():
        full = model(x).logits
        out = model(x[:, :9], use_cache=True)
        cache = out.cache
        steps = [out.logits]
        for t in range(9, 15):
            steps.append(model(x[:, t:t + 1], cache=cache, use_cache=True).logits)
        # a multi-token continuation from a cache
        out2 = model(x[:, :6], use_cache=True)
        seg = model(x[:, 6:], cache=out2.cache, use_cache=True).logits
    layer = cache.layers[0]
    return {"full": full, "stepped": torch.cat(steps, 1), "segmented": torch.cat([out2.logits, seg], 1),
            "indexer_keys_shape": list(layer.indexer_keys.shape), "seq_length": int(cache.get_seq_length()),
            "layer_kind": type(layer).__name__}


@case(compare="none")
def left_padding():
    """A left-padded row gives the row's own logits: padding is never a candidate (paper Section 2.2)."""
    model = build("k4", seed=9)
    x = ids(2, 14, 10)
    mask = torch.ones(2, 14, dtype=torch.long)
    mask[0, :5] = 0
    with torch.no_grad():
        batched = model(x, attention_mask=mask).logits
        alone = model(x[:1, 5:]).logits
        other = model(x[1:]).logits
        gen = model.generate(x, attention_mask=mask, max_new_tokens=3, do_sample=False,
                             return_dict_in_generate=True, output_logits=True)
        gen_alone = model.generate(x[:1, 5:], attention_mask=mask[:1, 5:], max_new_tokens=3,
                                   do_sample=False,
                                   return_dict_in_generate=True, output_logits=True)
    return {"padded_real": batched[0, 5:], "alone": alone[0], "other_batched": batched[1], "other": other[0],
            "gen_logits": torch.stack([s[0] for s in gen.logits]).double(),
            "gen_alone_logits": torch.stack([s[0] for s in gen_alone.logits]).double()}


@case(compare="none")
def greedy_generate():
    model = build("k6", seed=11)
    x = ids(2, 8, 12)
    with torch.no_grad():
        gen = model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=6, do_sample=False,
                             return_dict_in_generate=True, output_logits=True)
        seq = gen.sequences
        again = model(seq).logits[:, 7:-1]
    return {"sequences": seq, "gen_logits": torch.stack(gen.logits, 1).double(), "forward_logits": again}


@case(compare="none")
def static_cache_generate():
    """Greedy generation with a static cache (preallocated indexer keys) = with the dynamic cache."""
    model = build("k4", seed=13)
    x = ids(2, 7, 14)
    with torch.no_grad():
        dyn = model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=5, do_sample=False,
                             return_dict_in_generate=True,
                             output_logits=True)
        cache = StaticCache(config=model.config, max_cache_len=20)
        sta = model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=5, do_sample=False,
                             return_dict_in_generate=True,
                             output_logits=True, cache=cache)
    layer = cache.layers[1]
    return {"dyn_seq": dyn.sequences, "sta_seq": sta.sequences,
            "dyn_logits": torch.stack(dyn.logits, 1).double(), "sta_logits": torch.stack(sta.logits, 1).double(),
            "static_keys_shape": list(layer.indexer_keys.shape), "layer_kind": type(layer).__name__}


@case(rtol=1e-6, atol=1e-8, dtype=False)
def loss_and_gradients():
    model = build("k4", seed=15)
    model.train()
    x = ids(2, 12, 16)
    out = model(x, labels=x)
    out.loss.backward()
    attn = model.model.layers[1].self_attn
    idx_grads = [p.grad for p in attn.indexer.parameters()]
    no_idx_grad = all(g is None or float(g.abs().max()) == 0.0 for g in idx_grads)
    return {"loss": out.loss.detach(), "grad_q_b": attn.q_b_proj.weight.grad, "grad_kv_b": attn.kv_b_proj.weight.grad,
            "grad_kv_a": attn.kv_a_proj_with_mqa.weight.grad, "grad_embed": model.model.embed_tokens.weight.grad,
            "indexer_gets_no_lm_grad": no_idx_grad}


# ---------------------------------------------------------------- the indexer called directly


def _selection(out, T: int) -> torch.Tensor:
    """A [B, S, T] 0/1 matrix of the selected tokens, from top-k indices or from an additive 0/-inf mask."""
    if out.is_floating_point() and out.shape[-1] == T and out.ndim == 3:
        return (out == 0).to(torch.int64)
    sel = torch.zeros(*out.shape[:-1], T, dtype=torch.int64)
    return sel.scatter(-1, out.long(), 1)


@case(compare="none")
def indexer_direct():
    """The layer's indexer on its own: selected sets per query, for a causal mask and a padded one."""
    model = build("k4", seed=17)
    attn = model.model.layers[0].self_attn
    g = torch.Generator().manual_seed(18)
    B, T = 2, 12
    h = torch.randn(B, T, 32, generator=g, dtype=torch.float64)
    pos = torch.arange(T).unsqueeze(0)
    cos_sin = model.model.rotary_emb(h, pos)
    with torch.no_grad():
        q_resid = attn.q_a_layernorm(attn.q_a_proj(h))
        causal = torch.ones(T, T, dtype=torch.bool).tril().expand(B, T, T).clone()
        padded = causal.clone()
        padded[1, :, :3] = False  # row 1: its first 3 tokens are padding
        fmask = torch.zeros(B, T, T, dtype=torch.float64).masked_fill(~causal, float("-inf"))
        outs = {}
        for key, m in (("bool", causal), ("padded", padded), ("float", fmask)):
            outs[key] = _selection(attn.indexer(h, q_resid, cos_sin, m, pos, cache=None), T)
    return {"k": 4, **outs, "padded_mask": padded.to(torch.int64)}


# ---------------------------------------------------------------- the indexer key cache


@case(compare="none")
def cache_layer_ops():
    """DynamicIndexedLayer / StaticIndexedLayer: update, crop, reorder, repeat, select, reset, on known keys."""
    from transformers.cache_utils import DynamicIndexedLayer, StaticIndexedLayer

    g = torch.Generator().manual_seed(19)
    k1 = torch.randn(3, 4, 5, generator=g, dtype=torch.float64)
    k2 = torch.randn(3, 2, 5, generator=g, dtype=torch.float64)
    res = {}
    dyn = DynamicIndexedLayer()
    res["dyn_first"] = dyn.update_indexer(k1).clone()
    res["dyn_second"] = dyn.update_indexer(k2).clone()
    dyn.crop(-2)
    res["dyn_crop"] = dyn.indexer_keys.clone()
    dyn.reorder_cache(torch.tensor([2, 0, 1]))
    res["dyn_reorder"] = dyn.indexer_keys.clone()
    dyn.batch_repeat_interleave(2)
    res["dyn_repeat"] = dyn.indexer_keys.clone()
    dyn.batch_select_indices(torch.tensor([0, 3, 5]))
    res["dyn_select"] = dyn.indexer_keys.clone()
    dyn.reset()
    res["dyn_after_reset"] = dyn.update_indexer(k2).clone()

    sta = StaticIndexedLayer(max_cache_len=8)
    kv = torch.randn(3, 1, 6, 2, generator=g, dtype=torch.float64)
    sta.update(kv, kv)  # the main key/value buffers, so that the layer can be cropped
    res["sta_first"] = sta.update_indexer(k1).clone()
    res["sta_second"] = sta.update_indexer(k2).clone()
    sta.crop(-3)
    res["sta_after_crop_update"] = sta.update_indexer(k2[:, :1]).clone()
    sta.reorder_cache(torch.tensor([1, 2, 0]))
    res["sta_reorder"] = sta.indexer_keys.clone()
    sta.reset()
    res["sta_reset"] = sta.indexer_keys.clone()
    res["sta_after_reset"] = sta.update_indexer(k2).clone()
    res["k1"], res["k2"] = k1, k2
    return res


@case(compare="none")
def cache_reorder_crop_in_model():
    """Through the model: reordering the cache = running the reordered batch; crop then re-feed = no crop."""
    model = build("k4", seed=21)
    x = ids(2, 11, 22)
    with torch.no_grad():
        c1 = model(x[:, :9], use_cache=True).cache
        c1.reorder_cache(torch.tensor([1, 0]))
        swapped = model(x.flip(0)[:, 9:], cache=c1, use_cache=True).logits
        ref = model(x.flip(0)).logits[:, 9:]
        c2 = model(x[:, :10], use_cache=True).cache
        c2.crop(-3)  # remove the last 3 tokens (10 -> 7)
        refed = model(x[:, 7:], cache=c2, use_cache=True).logits
        full = model(x).logits[:, 7:]
        c2.reset()
        after_reset = model(x[:, :4], cache=c2, use_cache=True).logits
        fresh = model(x[:, :4]).logits
    return {"swapped": swapped, "ref": ref, "refed": refed, "full": full, "after_reset": after_reset,
            "fresh": fresh, "cropped_len": 7}


@case(compare="exact")
def config_defaults():
    """Derived fields of the configuration (the visible sibling GlmMoeDsaConfig shows the same rules)."""
    a = DeepseekV32Config(num_hidden_layers=5, first_k_dense_replace=2, qk_rope_head_dim=16, qk_nope_head_dim=24)
    b = DeepseekV32Config(num_hidden_layers=2, first_k_dense_replace=3)
    c = DeepseekV32Config(num_hidden_layers=3, layer_types=["indexed_attention"] * 3,
                          mlp_layer_types=["sparse", "dense", "sparse"], num_experts=12)
    return {"a_layer_types": list(a.layer_types), "a_mlp": list(a.mlp_layer_types), "a_head_dim": a.head_dim,
            "a_qk_head_dim": a.qk_head_dim, "b_mlp": list(b.mlp_layer_types), "c_mlp": list(c.mlp_layer_types),
            "c_experts": c.n_routed_experts}


@case(compare="none")
def cache_edge_ops():
    """Edge rules of the indexer key cache: operations on a layer that holds nothing yet, crop(0), the optional
    indexer positions ([position_dims, batch, tokens], declared in the layers' visible __init__), and a layer
    without an indexer cache refusing `Cache.update_indexer`."""
    from transformers.cache_utils import DynamicIndexedLayer, StaticIndexedLayer

    g = torch.Generator().manual_seed(23)
    k1 = torch.randn(3, 4, 5, generator=g, dtype=torch.float64)
    res = {"k1": k1}
    fresh = DynamicIndexedLayer()
    fresh_ok = True
    try:
        fresh.crop(-1)
        fresh.batch_repeat_interleave(2)
        fresh.batch_select_indices(torch.tensor([0]))
        fresh.reorder_cache(torch.tensor([0]))
    except Exception:
        fresh_ok = False
    res["fresh_ops_ok"] = fresh_ok
    res["fresh_then_update"] = fresh.update_indexer(k1).clone()
    fresh.crop(0)
    res["crop0"] = fresh.indexer_keys.clone()

    pos = torch.arange(12, dtype=torch.float64).reshape(1, 3, 4) + 100
    dyn = DynamicIndexedLayer()
    dyn.update_indexer(k1)
    dyn.indexer_position_ids = pos.clone()
    dyn.crop(-1)
    res["pos_crop"] = dyn.indexer_position_ids.clone()
    dyn.reorder_cache(torch.tensor([2, 0, 1]))
    res["pos_reorder"] = dyn.indexer_position_ids.clone()
    dyn.batch_repeat_interleave(2)
    res["pos_repeat"] = dyn.indexer_position_ids.clone()
    dyn.batch_select_indices(torch.tensor([1, 4]))
    res["pos_select"] = dyn.indexer_position_ids.clone()
    dyn.reset()
    res["pos_reset_none"] = dyn.indexer_position_ids is None

    sta = StaticIndexedLayer(max_cache_len=6)
    sta.update_indexer(k1)
    sta.indexer_position_ids = pos.clone()
    sta.reorder_cache(torch.tensor([1, 2, 0]))
    res["sta_pos_reorder"] = sta.indexer_position_ids.clone()
    sta.reset()
    res["sta_pos_reset_none"] = sta.indexer_position_ids is None

    cache = DynamicCache(config=DeepseekV32Config(num_hidden_layers=1, layer_types=["full_attention"]))
    try:
        cache.update_indexer(k1, 0)
        res["refusal"] = "none"
    except Exception as exc:
        res["refusal"] = type(exc).__name__
    return res


@case(compare="none")
def static_cache_reorder():
    """Through the model with a static cache: reorder_cache then decode = the reordered batch."""
    model = build("k4", seed=25)
    x = ids(2, 11, 26)
    with torch.no_grad():
        cache = StaticCache(config=model.config, max_cache_len=16)
        model(x[:, :8], cache=cache, use_cache=True)
        cache.reorder_cache(torch.tensor([1, 0]))
        swapped = model(x.flip(0)[:, 8:], cache=cache, use_cache=True).logits
        ref = model(x.flip(0)).logits[:, 8:]
    return {"swapped": swapped, "ref": ref}


@case(compare="none")
def dropout_only_in_training():
    """attention_dropout > 0 changes nothing in eval mode."""
    x = ids(2, 10, 27)
    with torch.no_grad():
        drop = build("k4", seed=28, attention_dropout=0.5)(x).logits
        plain = build("k4", seed=28)(x).logits
    return {"drop": drop, "plain": plain}
