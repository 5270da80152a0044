"""Probe for hf-synthid/1: SynthID-Text watermarking reached through transformers' public entry points.

`generate(..., watermarking_config=SynthIDTextWatermarkingConfig(...))` on a tiny Llama built here, the logits
processor called step by step, its g-values and masks, the Bayesian detector and the text detector. How the
context is hashed into g-values is the implementation's own choice (paper.md), so every output that depends on
the exact g-values is recorded together with the candidate's own g-values (`compute_g_values` on the same
n-grams) and judged in check_synthid.py by the paper's rules; only outputs the rules decide are compared with
the reference."""

from __future__ import annotations

import tempfile
import warnings
from types import SimpleNamespace

import torch
from lmrbench_probe import case
from transformers import (
    BayesianDetectorConfig,
    BayesianDetectorModel,
    GenerationConfig,
    LlamaConfig,
    LlamaForCausalLM,
    SynthIDTextWatermarkDetector,
    SynthIDTextWatermarkingConfig,
    SynthIDTextWatermarkLogitsProcessor,
)
from transformers.generation.watermarking import BayesianDetectorWatermarkedLikelihood
from transformers.utils import logging

warnings.filterwarnings("ignore")
logging.set_verbosity_error()
torch.set_num_threads(1)

V = 20
PROMPT = [[1, 2, 3], [4, 2, 3]]
GEN = [[5, 6, 7, 5, 6, 8, 9, 5, 6, 10], [9, 9, 9, 9, 11, 12, 9, 9, 13, 14]]

PROCESSOR_CFGS = {
    "n3": dict(ngram_len=3, keys=[11, 22, 33], context_history_size=16),
    "n3_hist2": dict(ngram_len=3, keys=[11, 22, 33], context_history_size=2),
    "n3_skip": dict(ngram_len=3, keys=[11, 22, 33], context_history_size=16, skip_first_ngram_calls=True),
    "n3_debug": dict(ngram_len=3, keys=[11, 22, 33], context_history_size=16, debug_mode=True),
    "n2_depth4": dict(ngram_len=2, keys=[7, 1001, 52, 9], context_history_size=16),
    "from_config": dict(ngram_len=3, keys=[11, 22, 33], context_history_size=2, skip_first_ngram_calls=True,
                        debug_mode=True),
}


def processor(**kw) -> SynthIDTextWatermarkLogitsProcessor:
    args = dict(sampling_table_size=2**12, sampling_table_seed=3, device="cpu")
    args.update(kw)
    return SynthIDTextWatermarkLogitsProcessor(**args)


def g_of_contexts(proc, contexts: torch.Tensor, vocab: int) -> torch.Tensor:
    """The processor's own g-values of every continuation v of each context row: (B, vocab, depth)."""
    b, h = contexts.shape
    nxt = torch.arange(vocab)[None, :, None].expand(b, vocab, 1)
    ngrams = torch.cat([contexts[:, None, :].expand(b, vocab, h), nxt], dim=2).reshape(b * vocab, h + 1)
    g = proc.compute_g_values(ngrams)  # (b * vocab, 1, depth)
    return torch.as_tensor(g).reshape(b, vocab, -1).to(torch.float64)


def pad_contexts(gen: torch.Tensor, step: int, h: int) -> torch.Tensor:
    """The context of call `step` (0-based) read with zeros before the first generated token."""
    padded = torch.cat([torch.zeros(gen.shape[0], h, dtype=torch.long), gen[:, :step]], dim=1)
    return padded[:, padded.shape[1] - h:]


@case(params=list(PROCESSOR_CFGS), compare="none")
def processor_steps(name):
    """Ten calls of one processor; per call the output distribution, the input distribution and the
    processor's own g-values under the two readings of the context of the first calls."""
    cfg = PROCESSOR_CFGS[name]
    if name == "from_config":
        wc = SynthIDTextWatermarkingConfig(sampling_table_size=2**12, sampling_table_seed=3, **cfg)
        proc = wc.construct_processor(V, "cpu")
    else:
        proc = processor(**cfg)
    h = cfg["ngram_len"] - 1
    prompt, gen = torch.tensor(PROMPT), torch.tensor(GEN)
    gen_scores = torch.Generator().manual_seed(5)
    out_p, in_p, g_true, g_pad = [], [], [], []
    for step in range(gen.shape[1]):
        ids = torch.cat([prompt, gen[:, :step]], dim=1)
        scores = 2.0 * torch.randn(2, V, generator=gen_scores, dtype=torch.float64)
        scores[1, 17] = -float("inf")
        out = proc(ids, scores.clone())
        out_p.append(torch.softmax(torch.as_tensor(out).to(torch.float64), dim=-1))
        in_p.append(torch.softmax(scores, dim=-1))
        g_true.append(g_of_contexts(proc, ids[:, ids.shape[1] - h:], V))
        g_pad.append(g_of_contexts(proc, pad_contexts(gen, step, h), V))
    return {"out_probs": torch.stack(out_p), "in_probs": torch.stack(in_p), "g_true": torch.stack(g_true),
            "g_pad": torch.stack(g_pad), "ngram_len": cfg["ngram_len"], "history": cfg["context_history_size"],
            "skip": bool(cfg.get("skip_first_ngram_calls", False)), "debug": bool(cfg.get("debug_mode", False)),
            "gen": gen}


UPDATE_CASES = [(1, 6, 1), (3, 12, 3), (2, 9, 5)]


@case(params=range(len(UPDATE_CASES)), rtol=1e-9, atol=1e-12, dtype=False)
def update_scores(i):
    """The vectorised tournament on given scores and g-values (log space in, log space out)."""
    b, v, depth = UPDATE_CASES[i]
    gen = torch.Generator().manual_seed(100 + i)
    scores = 1.5 * torch.randn(b, v, generator=gen, dtype=torch.float64)
    scores[0, 1] = -float("inf")
    g = torch.randint(0, 2, (b, v, depth), generator=gen).to(torch.float64)
    proc = processor(ngram_len=2, keys=list(range(1, depth + 1)), context_history_size=8)
    out = torch.as_tensor(proc.update_scores(scores, g)).to(torch.float64)
    return {"probs": torch.softmax(out, dim=-1), "scores": scores, "g": g,
            "finite_where_positive": bool(torch.isfinite(out[scores > -1e300]).all())}


@case(compare="none")
def g_value_properties():
    """Shape, values, locality and independence of `compute_g_values` on random token sequences."""
    gen = torch.Generator().manual_seed(7)
    proc = processor(ngram_len=4, keys=[3, 5, 8, 13, 21], context_history_size=16, sampling_table_size=2**16)
    ids = torch.randint(0, 500, (6, 300), generator=gen)
    g = torch.as_tensor(proc.compute_g_values(ids)).to(torch.float64)
    # the same n-gram at another position and in another row gives the same g-values
    planted = ids.clone()
    planted[2, 100:104] = ids[0, 10:14]
    gp = torch.as_tensor(proc.compute_g_values(planted)).to(torch.float64)
    same_planted = bool((gp[2, 100] == gp[0, 10]).all())
    # tokens outside the n-gram do not matter
    outside = ids.clone()
    outside[:, 0] = (outside[:, 0] + 1) % 500
    go = torch.as_tensor(proc.compute_g_values(outside)).to(torch.float64)
    # each position of the n-gram matters
    changed = []
    for j in range(4):
        x = ids.clone()
        x[:, 50 + j] = (x[:, 50 + j] + 17) % 500
        gx = torch.as_tensor(proc.compute_g_values(x)).to(torch.float64)
        changed.append(float((gx[:, 50] != g[:, 50]).to(torch.float64).mean()))
    other_keys = processor(ngram_len=4, keys=[4, 5, 8, 13, 22], context_history_size=16, sampling_table_size=2**16)
    gk = torch.as_tensor(other_keys.compute_g_values(ids)).to(torch.float64)
    other_seed = processor(ngram_len=4, keys=[3, 5, 8, 13, 21], context_history_size=16, sampling_table_size=2**16,
                           sampling_table_seed=99)
    gs = torch.as_tensor(other_seed.compute_g_values(ids)).to(torch.float64)
    rev = ids.clone()
    rev[:, 60:64] = ids[:, 60:64].flip(1)
    gr = torch.as_tensor(proc.compute_g_values(rev)).to(torch.float64)
    layer_agree = [float((g[..., 0] == g[..., k]).to(torch.float64).mean()) for k in range(1, 5)]
    return {"shape": torch.tensor(list(g.shape)), "binary": bool(((g == 0) | (g == 1)).all()), "mean": float(g.mean()),
            "deterministic": bool((torch.as_tensor(proc.compute_g_values(ids)).to(torch.float64) == g).all()),
            "same_planted": same_planted, "outside_first_unchanged": bool((go[:, 1:] == g[:, 1:]).all()),
            "outside_first_changed": float((go[:, 0] != g[:, 0]).to(torch.float64).mean()),
            "position_changed": torch.tensor(changed), "layer_agree": torch.tensor(layer_agree),
            "keys_changed": torch.tensor([float((gk[..., k] != g[..., k]).to(torch.float64).mean()) for k in range(5)]),
            "seed_changed": float((gs != g).to(torch.float64).mean()),
            "reversed_changed": float((gr[:, 60] != g[:, 60]).to(torch.float64).mean())}


REP_CASES = [
    (3, 16, [[5, 6, 7, 5, 6, 8, 9, 5, 6, 10, 5, 6], [9, 9, 9, 9, 11, 12, 9, 9, 13, 14, 9, 9]]),
    (3, 2, [[5, 6, 7, 5, 6, 8, 9, 5, 6, 10, 5, 6], [9, 9, 9, 9, 11, 12, 9, 9, 13, 14, 9, 9]]),
    (2, 16, [[1, 2, 1, 2, 3, 1, 4, 4, 4, 2], [7, 8, 9, 10, 11, 12, 13, 14, 15, 16]]),
    (4, 3, [[1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1], [5, 5, 5, 5, 5, 5, 6, 5, 5, 5, 7, 8, 9]]),
    (2, 1, [[3, 3, 4, 3, 4, 4, 3], [1, 2, 3, 4, 5, 6, 1]]),
]


@case(params=range(len(REP_CASES)), compare="exact")
def repetition_mask(i):
    n, hist, ids = REP_CASES[i]
    proc = processor(ngram_len=n, keys=[2, 4, 6], context_history_size=hist)
    return {"mask": torch.as_tensor(proc.compute_context_repetition_mask(torch.tensor(ids))).to(torch.int64)}


EOS_CASES = [
    (7, [[1, 2, 3, 7, 0, 0], [1, 7, 2, 7, 3, 4], [1, 2, 3, 4, 5, 6]]),
    (0, [[0, 0, 0], [5, 0, 5]]),
]


@case(params=range(len(EOS_CASES)), compare="exact")
def eos_mask(i):
    eos, ids = EOS_CASES[i]
    proc = processor(ngram_len=2, keys=[2, 4], context_history_size=4)
    return {"mask": torch.as_tensor(proc.compute_eos_token_mask(torch.tensor(ids), eos)).to(torch.int64)}


@case(rtol=1e-12, atol=1e-14)
def expected_mean_g():
    proc = processor(ngram_len=2, keys=[2, 4], context_history_size=4)
    return {"values": torch.tensor([float(proc.expected_mean_g_value(v, q)) for v, q in
                                    [(2, 0.5), (10, 0.5), (1000, 0.5), (7, 0.3), (3, 0.9)]], dtype=torch.float64),
            "default_q": float(proc.expected_mean_g_value(50))}


@case(compare="exact")
def config_roundtrip():
    wc = SynthIDTextWatermarkingConfig(ngram_len=5, keys=[654, 400, 836, 123])
    proc = wc.construct_processor(32, "cpu")
    gc = GenerationConfig(do_sample=True, watermarking_config=wc)
    with tempfile.TemporaryDirectory() as d:
        gc.save_pretrained(d)
        back = GenerationConfig.from_pretrained(d)
    bw = back.watermarking_config
    from_dict = GenerationConfig(watermarking_config=wc.to_dict()).watermarking_config
    fields = ["ngram_len", "keys", "context_history_size", "sampling_table_seed", "sampling_table_size",
              "skip_first_ngram_calls", "debug_mode"]
    return {"defaults": [wc.context_history_size, wc.sampling_table_seed, wc.sampling_table_size,
                         bool(wc.skip_first_ngram_calls), bool(wc.debug_mode)],
            "processor_type": type(proc).__name__,
            "loaded_type": type(bw).__name__, "loaded": [list(getattr(bw, f)) if f == "keys" else getattr(bw, f)
                                                         for f in fields],
            "from_dict_type": type(from_dict).__name__,
            "from_dict_same": all(getattr(from_dict, f) == getattr(wc, f) for f in fields)}


BETA = [-1.0, 0.5, 1.5, -0.3]
DELTA = [[0.7, 0.4, -0.9, 0.2], [0.4, -0.5, 1.1, 0.6], [-0.9, 1.1, 0.3, -1.2], [0.2, 0.6, -1.2, 0.9]]  # symmetric


def set_params(module, beta=BETA, delta=DELTA):
    """Give the likelihood model beta (one value per layer) and delta (m x m) whatever their shapes: found by
    size. delta is symmetric, so its orientation does not matter."""
    m = len(beta)
    found = {m: False, m * m: False}
    with torch.no_grad():
        for _, p in module.named_parameters():
            if p.numel() == m and not found[m]:
                p.copy_(torch.tensor(beta, dtype=p.dtype).reshape(p.shape))
                found[m] = True
            elif p.numel() == m * m and not found[m * m]:
                p.copy_(torch.tensor(delta, dtype=p.dtype).reshape(p.shape))
                found[m * m] = True
    return found[m] and found[m * m]


def g_batch(seed, b, t, m=4):
    return torch.randint(0, 2, (b, t, m), generator=torch.Generator().manual_seed(seed)).to(torch.float64)


@case(rtol=1e-9, atol=1e-12, dtype=False)
def likelihood_watermarked():
    lik = BayesianDetectorWatermarkedLikelihood(watermarking_depth=4).double()
    ok = set_params(lik)
    g = g_batch(1, 3, 5)
    return {"params_found": ok, "likelihood": torch.as_tensor(lik(g)).to(torch.float64), "g": g}


def detector_model(base_rate=0.3, beta=BETA, delta=DELTA):
    model = BayesianDetectorModel(BayesianDetectorConfig(watermarking_depth=len(beta), base_rate=base_rate)).double()
    return model, set_params(model, beta, delta)


def posterior_of(result):
    if isinstance(result, (tuple, list)):
        result = result[0]
    if hasattr(result, "posterior_probabilities"):
        result = result.posterior_probabilities
    return torch.as_tensor(result).to(torch.float64).reshape(-1)


@case(params=[0.3, 0.5, 0.9], rtol=1e-6, atol=1e-12, dtype=False)
def bayesian_posterior(base_rate):
    model, ok = detector_model(base_rate)
    g = g_batch(2, 3, 6)
    mask = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 0, 1, 0, 1, 1], [0, 0, 0, 0, 0, 0]], dtype=torch.float64)
    plain = model(g, mask)
    as_dict = model(g, mask, return_dict=True)
    return {"params_found": ok, "posterior": posterior_of(plain),
            "posterior_dict": torch.as_tensor(as_dict.posterior_probabilities).to(torch.float64).reshape(-1),
            "g": g, "mask": mask, "base_rate": base_rate}


@case(rtol=1e-9, atol=1e-12, dtype=False, compare="none")
def bayesian_loss():
    """With delta = 0 the penalty on delta is 0 under every reading: the loss is the cross-entropy alone."""
    model, ok = detector_model(0.4, beta=BETA, delta=[[0.0] * 4 for _ in range(4)])
    g = g_batch(3, 4, 5)
    mask = torch.ones(4, 5, dtype=torch.float64)
    labels = torch.tensor([1.0, 0.0, 1.0, 0.0], dtype=torch.float64)
    res = model(g, mask, labels=labels, return_dict=True)
    return {"params_found": ok, "loss": float(torch.as_tensor(res.loss).reshape(-1)[0]),
            "posterior": torch.as_tensor(res.posterior_probabilities).to(torch.float64).reshape(-1),
            "labels": labels}


@case(compare="none")
def bayesian_loss_penalty():
    """The L2 penalty on delta, scaled by loss_batch_weight."""
    model, ok = detector_model(0.4)
    g = g_batch(5, 4, 5)
    mask = torch.ones(4, 5, dtype=torch.float64)
    labels = torch.tensor([1.0, 1.0, 0.0, 0.0], dtype=torch.float64)
    res = model(g, mask, labels=labels, loss_batch_weight=0.5, return_dict=True)
    return {"params_found": ok, "loss": float(torch.as_tensor(res.loss).reshape(-1)[0]),
            "posterior": torch.as_tensor(res.posterior_probabilities).to(torch.float64).reshape(-1),
            "labels": labels, "g": g}


@case(rtol=1e-9, atol=1e-12, dtype=False)
def detector_save_load():
    model, ok = detector_model(0.25)
    wc = SynthIDTextWatermarkingConfig(ngram_len=3, keys=[5, 6, 7, 8])
    model.config.set_detector_information(model_name="tiny-llama", watermarking_config=wc.to_dict())
    g = g_batch(4, 2, 7)
    mask = torch.ones(2, 7, dtype=torch.float64)
    before = posterior_of(model(g, mask))
    with tempfile.TemporaryDirectory() as d:
        model.save_pretrained(d)
        cfg = BayesianDetectorConfig.from_pretrained(d)
        back = BayesianDetectorModel.from_pretrained(d).double()
    after = posterior_of(back(g, mask))
    return {"params_found": ok, "before": before, "after": after, "depth": cfg.watermarking_depth,
            "base_rate": float(cfg.base_rate), "model_name": cfg.model_name,
            "wm_keys": list(cfg.watermarking_config["keys"]), "wm_ngram_len": cfg.watermarking_config["ngram_len"]}


DET_IDS = [[3, 4, 5, 6, 3, 4, 5, 9, 10, 11, 2, 2, 2], [8, 8, 8, 8, 8, 1, 7, 6, 5, 4, 3, 2, 1],
           [12, 13, 14, 15, 16, 17, 18, 19, 11, 10, 9, 8, 7]]


@case(compare="none")
def text_detector():
    """SynthIDTextWatermarkDetector on given token ids (EOS = 2): its posterior with the candidate's own g-values."""
    model, ok = detector_model(0.5, beta=BETA[:3], delta=[r[:3] for r in DELTA[:3]])
    proc = processor(ngram_len=3, keys=[31, 41, 59], context_history_size=16)
    det = SynthIDTextWatermarkDetector(model, proc, SimpleNamespace(eos_token_id=2))
    ids = torch.tensor(DET_IDS)
    post = posterior_of(det(ids))
    g = torch.as_tensor(proc.compute_g_values(ids)).to(torch.float64)
    return {"params_found": ok, "posterior": post, "g": g, "ids": ids, "eos": 2, "ngram_len": 3,
            "beta": torch.tensor(BETA[:3]), "delta": torch.tensor([r[:3] for r in DELTA[:3]]), "base_rate": 0.5}


def tiny_llama(vocab=32, seed=0):
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=256,
                      bos_token_id=None, eos_token_id=None, pad_token_id=None, tie_word_embeddings=False)
    model = LlamaForCausalLM(cfg).double().eval()
    with torch.no_grad():
        model.lm_head.weight.mul_(40.0)  # visibly non-uniform next-token distributions
    model.generation_config.eos_token_id = None
    return model


GEN_CFGS = {"n3_d4": (3, [17, 29, 3, 88]), "n2_d3": (2, [5, 500, 77])}


@case(params=list(GEN_CFGS), compare="none")
def generate_watermarked(name):
    """generate() with a SynthID config: per step the processed scores against the raw logits."""
    n, keys = GEN_CFGS[name]
    model = tiny_llama()
    wc = SynthIDTextWatermarkingConfig(ngram_len=n, keys=keys, sampling_table_size=2**12)
    prompt = torch.tensor([[1, 2, 3], [3, 1, 2], [2, 2, 1]])
    torch.manual_seed(11)
    out = model.generate(prompt, attention_mask=torch.ones_like(prompt), watermarking_config=wc, do_sample=True,
                         max_new_tokens=12, top_k=0, suppress_tokens=[0, 1, 2, 3], output_scores=True,
                         output_logits=True, return_dict_in_generate=True)
    seq = out.sequences
    proc = wc.construct_processor(32, "cpu")
    h = n - 1
    gen = seq[:, prompt.shape[1]:]
    g_true = torch.stack([g_of_contexts(proc, seq[:, prompt.shape[1] + s - h: prompt.shape[1] + s], 32)
                          for s in range(gen.shape[1])])
    g_pad = torch.stack([g_of_contexts(proc, pad_contexts(gen, s, h), 32) for s in range(gen.shape[1])])
    return {"gen": gen, "scores": torch.stack([torch.as_tensor(s).to(torch.float64) for s in out.scores]),
            "logits": torch.stack([torch.as_tensor(s).to(torch.float64) for s in out.logits]),
            "g_true": g_true, "g_pad": g_pad, "ngram_len": n, "suppressed": torch.tensor([0, 1, 2, 3])}


@case(compare="none")
def detection_statistics():
    """Watermarked against unwatermarked samples of the same near-uniform model: mean g-value and the Bayesian
    text detector's posterior."""
    model = tiny_llama(vocab=64, seed=1)
    with torch.no_grad():
        model.lm_head.weight.mul_(0.05)
    keys = [101, 202, 303, 404, 505, 606]
    wc = SynthIDTextWatermarkingConfig(ngram_len=3, keys=keys)
    prompt = torch.tensor([[5, 6, 7]] * 6)
    kw = dict(attention_mask=torch.ones_like(prompt), do_sample=True, max_new_tokens=40, top_k=0, suppress_tokens=[0])
    torch.manual_seed(21)
    wm = model.generate(prompt, watermarking_config=wc, **kw)
    torch.manual_seed(22)
    plain = model.generate(prompt, **kw)
    proc = wc.construct_processor(64, "cpu")
    g_wm = torch.as_tensor(proc.compute_g_values(wm[:, 3:])).to(torch.float64)
    g_plain = torch.as_tensor(proc.compute_g_values(plain[:, 3:])).to(torch.float64)
    det_model, ok = detector_model(0.5, beta=[1.0] * 6, delta=[[0.0] * 6 for _ in range(6)])
    det = SynthIDTextWatermarkDetector(det_model, proc, SimpleNamespace(eos_token_id=0))
    return {"params_found": ok, "mean_g_wm": float(g_wm.mean()), "mean_g_plain": float(g_plain.mean()),
            "post_wm": posterior_of(det(wm[:, 3:])), "post_plain": posterior_of(det(plain[:, 3:]))}
