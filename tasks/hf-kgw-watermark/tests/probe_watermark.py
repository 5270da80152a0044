"""Probe for hf-kgw-watermark/1: the green/red-list watermark reached through `generate(...,
watermarking_config=...)`, the `WatermarkLogitsProcessor` a caller builds, and `WatermarkDetector`, on tiny
float64 Llama models built here (seeded, no hub, no tokenizer, integer ids).

The hash that turns a context into a green list is the candidate's own choice (nothing decides it), so the probe
records what the candidate's pieces say about each other: green lists read back from the candidate's processor
(the entries its `__call__` raises), greedy tokens against the plain logits plus those green lists, and the
detector's counts against the same green lists. check_watermark.py judges them by meaning."""

from __future__ import annotations

import json
import tempfile
import warnings

import torch
from lmrbench_probe import case
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM
from transformers.generation import WatermarkDetector, WatermarkingConfig, WatermarkLogitsProcessor
from transformers.utils import logging

warnings.filterwarnings("ignore")
logging.set_verbosity_error()
torch.set_num_threads(1)


def llama(vocab: int, seed: int = 0) -> LlamaForCausalLM:
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=2, bos_token_id=vocab - 1, eos_token_id=None,
                      pad_token_id=0, tie_word_embeddings=False)
    model = LlamaForCausalLM(cfg).double().eval()
    with torch.no_grad():
        model.lm_head.weight.mul_(60.0)
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = 0
    return model


def processor(vocab: int, **kw) -> WatermarkLogitsProcessor:
    return WatermarkLogitsProcessor(vocab_size=vocab, device="cpu", **kw)


def bias_rows(proc, ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
    """What the processor adds to each row of `scores` (float64), given the rows of `ids`."""
    before = scores.clone()
    after = proc(ids.clone(), scores.clone())
    return after.double() - before.double()


def green_mask(proc, prefix: torch.Tensor, vocab: int, bias: float) -> torch.Tensor:
    """The candidate's green list for the next token after `prefix` (1-D), read from its `__call__`."""
    delta = bias_rows(proc, prefix[None], torch.zeros(1, vocab, dtype=torch.float64))[0]
    return (delta - bias).abs() < 1e-9


def random_tokens(n: int, vocab: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab - 1, (n,), generator=g)   # never the bos id (vocab - 1)


# ---------------------------------------------------------------- configuration


@case()
def config_bad_scheme():
    return {"r": GenerationConfig(watermarking_config=WatermarkingConfig(seeding_scheme="righthash")).do_sample}


@case()
def config_bad_context_width():
    return {"r": GenerationConfig(watermarking_config=WatermarkingConfig(context_width=0)).do_sample}


@case()
def config_ratio_above_one():
    return {"r": GenerationConfig(watermarking_config=WatermarkingConfig(greenlist_ratio=1.5)).do_sample}


@case()
def config_ratio_negative():
    return {"r": GenerationConfig(watermarking_config=WatermarkingConfig(greenlist_ratio=-0.25)).do_sample}


FIELDS = ("greenlist_ratio", "bias", "hashing_key", "seeding_scheme", "context_width")


@case(compare="exact")
def config_fields_and_roundtrip():
    """The fields a config stores, and a save/load round trip through GenerationConfig and JSON."""
    wc = WatermarkingConfig(greenlist_ratio=0.5, bias=3.5, hashing_key=12345, seeding_scheme="selfhash",
                            context_width=3)
    default = WatermarkingConfig()
    out = {f"default.{k}": getattr(default, k) for k in FIELDS}
    d = wc.to_dict()
    out.update({f"to_dict.{k}": d[k] for k in FIELDS})
    as_json = json.loads(wc.to_json_string())
    out.update({f"json.{k}": as_json[k] for k in FIELDS})
    out.update({f"iter.{k}": dict(iter(wc))[k] for k in FIELDS})
    with tempfile.TemporaryDirectory() as tmp:
        wc.to_json_file(f"{tmp}/wm.json")
        with open(f"{tmp}/wm.json") as fh:
            saved = json.load(fh)
        out.update({f"file.{k}": saved[k] for k in FIELDS})
        GenerationConfig(watermarking_config=wc, max_new_tokens=5).save_pretrained(tmp)
        loaded = GenerationConfig.from_pretrained(tmp).watermarking_config
    out["loaded_class"] = type(loaded).__name__
    out.update({f"loaded.{k}": getattr(loaded, k) for k in FIELDS})
    again = WatermarkingConfig.from_dict({"bias": 1.5, "context_width": 2}, seeding_scheme="selfhash")
    out.update({f"from_dict.{k}": getattr(again, k) for k in FIELDS})
    again.update(greenlist_ratio=0.125, hashing_key=7)
    out.update({f"update.{k}": getattr(again, k) for k in FIELDS})
    return out


# ---------------------------------------------------------------- green lists


LEFT = {"g25": (0.25, 2.0, 15485863), "g50": (0.5, 1.25, 15485863), "g25_key7": (0.25, 3.0, 7)}


@case(params=list(LEFT.values()), ids=list(LEFT), compare="none")
def greenlist_lefthash(p):
    """LeftHash, context width 1, vocab 64: what __call__ adds to each row, and which rows share a green list."""
    gamma, bias, key = p
    vocab = 64
    proc = processor(vocab, greenlist_ratio=gamma, bias=bias, hashing_key=key, seeding_scheme="lefthash",
                     context_width=1)
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, vocab, (20, 5), generator=g)
    ids[:16, -1] = torch.arange(16) * 4 + 1         # rows 0..15: 16 distinct last tokens
    ids[16, -1] = ids[3, -1]                        # row 16: same last token as row 3, other earlier tokens
    ids[17] = ids[5]                                # row 17: same tokens as row 5 (other scores below)
    ids[18, :] = ids[7, -1]                         # row 18: last token of row 7, repeated
    ids[19, -1] = ids[0, -1]
    scores = torch.randn(20, vocab, generator=g, dtype=torch.float64) * 3
    delta = bias_rows(proc, ids, scores)
    fresh = processor(vocab, greenlist_ratio=gamma, bias=bias, hashing_key=key, seeding_scheme="lefthash",
                      context_width=1)
    delta_fresh = bias_rows(fresh, ids.flip(0), torch.randn(20, vocab, generator=g, dtype=torch.float64)).flip(0)
    other_key = processor(vocab, greenlist_ratio=gamma, bias=bias, hashing_key=key + 1, seeding_scheme="lefthash",
                          context_width=1)
    delta_other = bias_rows(other_key, ids, scores)
    return {"delta": delta, "delta_fresh": delta_fresh, "delta_other_key": delta_other, "bias": bias,
            "gamma": gamma, "vocab": vocab}


SELF = {"cw1": 1, "cw2": 2, "cw3": 3}


@case(params=list(SELF.values()), ids=list(SELF), compare="none")
def greenlist_selfhash(cw):
    """SelfHash, vocab 40: what __call__ adds to each row; the same rows under other scores; a fresh instance."""
    vocab, bias = 40, 2.5
    kw = dict(greenlist_ratio=0.25, bias=bias, seeding_scheme="selfhash", context_width=cw)
    proc = processor(vocab, **kw)
    g = torch.Generator().manual_seed(2)
    ids = torch.randint(0, vocab, (8, 5), generator=g)
    ids[:8, -1] = torch.arange(8) * 5
    scores = torch.randn(8, vocab, generator=g, dtype=torch.float64) * 3
    delta = bias_rows(proc, ids, scores)
    delta_scores = bias_rows(proc, ids, torch.randn(8, vocab, generator=g, dtype=torch.float64) * 3)
    delta_fresh = bias_rows(processor(vocab, **kw), ids, scores)
    return {"delta": delta, "delta_other_scores": delta_scores, "delta_fresh": delta_fresh, "bias": bias,
            "context_width": cw}


# ---------------------------------------------------------------- generation


GEN = {
    "lefthash_g25": dict(vocab=64, greenlist_ratio=0.25, bias=3.0, seeding_scheme="lefthash", context_width=1),
    "lefthash_g50_cw2": dict(vocab=64, greenlist_ratio=0.5, bias=1.5, seeding_scheme="lefthash", context_width=2,
                             hashing_key=99991),
    "selfhash_cw1": dict(vocab=40, greenlist_ratio=0.25, bias=2.5, seeding_scheme="selfhash", context_width=1),
    "selfhash_cw3": dict(vocab=40, greenlist_ratio=0.5, bias=2.0, seeding_scheme="selfhash", context_width=3,
                         hashing_key=4242),
}


@case(params=list(GEN.values()), ids=list(GEN), compare="none")
def generate_greedy(p):
    """Greedy watermarked generation (batch of 2, config given as an object and as a dict): every new token is
    the argmax of the plain logits plus `bias` on the candidate's own green list for that prefix."""
    p = dict(p)
    vocab = p.pop("vocab")
    model = llama(vocab, seed=3)
    wc = WatermarkingConfig(**p)
    prompt = torch.tensor([[3, 7, 1, 9], [12, 5, 30, 2]])
    n_new = 16
    out = model.generate(prompt, watermarking_config=wc, do_sample=False, max_new_tokens=n_new)
    out_dict = model.generate(prompt, watermarking_config=dict(p), do_sample=False, max_new_tokens=n_new)
    plain = model.generate(prompt, do_sample=False, max_new_tokens=n_new)
    with torch.no_grad():
        logits = model(out).logits.double()
    proc = processor(vocab, **p)
    consistent, checked, plain_choice = [], [], []
    for b in range(out.shape[0]):
        for t in range(prompt.shape[1], out.shape[1]):
            mask = green_mask(proc, out[b, :t], vocab, p["bias"])
            biased = logits[b, t - 1] + p["bias"] * mask.double()
            top2 = biased.topk(2).values
            if float(top2[0] - top2[1]) > 1e-6:
                checked.append(1)
                consistent.append(int(int(biased.argmax()) == int(out[b, t])))
            plain_choice.append(int(int(logits[b, t - 1].argmax()) == int(out[b, t])))
    return {"sequences": out, "sequences_dict": out_dict, "plain": plain, "n_new": n_new,
            "checked": sum(checked), "consistent": sum(consistent), "steps": out.shape[0] * n_new}


# ---------------------------------------------------------------- detection


def detect_all(det, ids, **kw):
    res = det(ids, return_dict=True, **kw)
    plain = det(ids, **kw)
    return {"num_tokens_scored": res.num_tokens_scored, "num_green_tokens": res.num_green_tokens,
            "green_fraction": res.green_fraction, "z_score": res.z_score, "p_value": res.p_value,
            "prediction": res.prediction, "prediction_plain": plain}


def green_flags(proc, seq: torch.Tensor, vocab: int, bias: float, start: int) -> list[int]:
    """Whether token j of `seq` is in the candidate's green list for seq[:j], for j >= start (else -1)."""
    flags = []
    for j in range(seq.shape[0]):
        if j < start:
            flags.append(-1)
        else:
            flags.append(int(bool(green_mask(proc, seq[:j], vocab, bias)[int(seq[j])])))
    return flags


DET = {
    "lefthash_cw1": dict(vocab=64, greenlist_ratio=0.25, bias=2.0, seeding_scheme="lefthash", context_width=1),
    "lefthash_cw1_g50": dict(vocab=64, greenlist_ratio=0.5, bias=1.0, seeding_scheme="lefthash", context_width=1,
                             hashing_key=31337),
    "lefthash_cw2": dict(vocab=64, greenlist_ratio=0.25, bias=2.0, seeding_scheme="lefthash", context_width=2),
    "selfhash_cw1": dict(vocab=40, greenlist_ratio=0.25, bias=2.0, seeding_scheme="selfhash", context_width=1),
    "selfhash_cw2": dict(vocab=40, greenlist_ratio=0.5, bias=2.0, seeding_scheme="selfhash", context_width=2),
}
REPEAT = torch.tensor([5, 9, 14, 5, 9, 14, 5, 9, 14, 5, 9, 14, 5, 9, 20, 5, 9, 14, 2, 2, 2, 2, 2, 7])


@case(params=[(k, r) for k in DET for r in (False, True)],
      ids=[f"{k}_{'unique' if r else 'all'}" for k in DET for r in (False, True)], compare="none")
def detect(p):
    """The detector on a batch of three texts: a strongly watermarked greedy generation (its prompt context
    kept, bias 60), uniform random tokens, and a text with repeated n-grams; with `ignore_repeated_ngrams` off and
    on. Recorded with each: the candidate processor's green flags per position of each text."""
    key, ignore = p
    cfg = dict(DET[key])
    vocab = cfg.pop("vocab")
    cw = cfg["context_width"]
    model = llama(vocab, seed=5)
    strong = WatermarkingConfig(**{**cfg, "bias": 60.0})
    prompt = torch.tensor([[3, 7, 1, 9, 4]])
    gen = model.generate(prompt, watermarking_config=strong, do_sample=False, max_new_tokens=24)[0]
    marked = gen[prompt.shape[1] - cw:]                         # keep the context of the first new token
    texts = torch.stack([marked[:24], random_tokens(24, vocab, seed=11), REPEAT.clone()])
    det = WatermarkDetector(model_config=model.config, device="cpu", watermarking_config=WatermarkingConfig(**cfg),
                            ignore_repeated_ngrams=ignore)
    out = detect_all(det, texts)
    out.update({f"thr45.{k}": v for k, v in detect_all(det, texts, z_threshold=4.5).items()
                if k in ("prediction", "prediction_plain", "z_score")})
    # the same config as a dict
    det_dict = WatermarkDetector(model_config=model.config, device="cpu", watermarking_config=dict(cfg),
                                 ignore_repeated_ngrams=ignore)
    out["dict.z_score"] = det_dict(texts, return_dict=True).z_score
    proc = processor(vocab, **cfg)
    for i in range(texts.shape[0]):
        out[f"flags{i}"] = torch.tensor(green_flags(proc, texts[i], vocab, cfg["bias"], start=cw))
    out["texts"] = texts
    out.update({"context_width": cw, "gamma": cfg["greenlist_ratio"], "selfhash": cfg["seeding_scheme"] == "selfhash"})
    return out


@case(params=[("lefthash", 1), ("lefthash", 3), ("selfhash", 2)], ids=["lefthash_cw1", "lefthash_cw3",
      "selfhash_cw2"], compare="none")
def detect_too_short(p):
    """A text too short to hold one token after a full seeding context: nothing can be scored."""
    scheme, cw = p
    model = llama(40, seed=5)
    det = WatermarkDetector(model_config=model.config, device="cpu",
                            watermarking_config=WatermarkingConfig(seeding_scheme=scheme, context_width=cw))
    ids = torch.tensor([[4, 8, 15][: cw - int(scheme == "selfhash")]])
    try:
        res = det(ids, return_dict=True)
    except Exception as exc:  # refusing is one accepted reading
        return {"raised": type(exc).__name__, "num_tokens_scored": -1.0, "z_score": 0.0}
    return {"raised": "", "num_tokens_scored": float(res.num_tokens_scored[0]), "z_score": float(res.z_score[0])}
