"""Probe for llm2vec/1: the LLM2Vec recipe in llm2vec/encoder.py. Runs in the sandbox; emits outputs only.

Outputs are compared with the reference's (tests/expected/, outside the sandbox) unless a case or an output says
compare="none"; the trusted checks in check_llm2vec.py recompute the paper's equations and check its properties.
Cheap unit cases first, the model, the two training steps and the training script last."""
from __future__ import annotations

from pathlib import Path

import torch

from lmrbench_probe import case
from llm2vec.config import MNTPConfig, ModelConfig, SimCSEConfig
from llm2vec.data import WORDS
from llm2vec.encoder import (IGNORE_INDEX, build_attention_mask, encode, mask_tokens, mntp_loss, mntp_step, pool,
                             simcse_loss, simcse_step)
from llm2vec.model import DecoderLM
from llm2vec.tokenizer import Tokenizer
from train import train

CASES = torch.load(Path(__file__).parent / "fixtures" / "llm2vec_cases.pt", weights_only=True)
MASKS, MNTP, POOL, SIMCSE, BATCHES = (CASES[k] for k in ("masks", "mntp", "pool", "simcse", "batches"))
F64 = torch.float64
# tolerances measured in NOTES.md
TOL64 = dict(rtol=1e-9, atol=1e-11)
TOL32 = {"f32.*": dict(rtol=1e-5, atol=1e-6)}
TOK = Tokenizer(WORDS)
MODES = ("mean", "weighted_mean", "eos")


def f64(x: torch.Tensor) -> torch.Tensor:
    return x.detach().to(F64)


def make_model(dtype: torch.dtype = F64, dropout: float = 0.0) -> DecoderLM:
    cfg = ModelConfig(vocab_size=TOK.vocab_size, dropout=dropout, **CASES["model_cfg"])
    model = DecoderLM(cfg).to(dtype)
    model.load_state_dict({k: v.to(dtype) for k, v in CASES["state"].items()})
    return model


class Recorder:
    """Wraps model.forward (instance attribute: `model(...)` and `model.forward(...)` both pass through it)."""

    def __init__(self, model: DecoderLM):
        self.calls = []
        inner = model.forward

        def forward(input_ids, attention_mask, bidirectional=False):
            out = inner(input_ids, attention_mask, bidirectional=bidirectional)
            self.calls.append((input_ids.clone(), attention_mask.clone(), bool(bidirectional), out))
            return out

        model.forward = forward

    def outputs(self) -> dict:
        if not self.calls:
            return {"n_calls": 0}
        return {"n_calls": len(self.calls),
                "call_rows": torch.tensor([c[0].shape[0] for c in self.calls]),
                "call_bidirectional": torch.tensor([c[2] for c in self.calls]),
                "call_ids": torch.cat([c[0] for c in self.calls]),
                "call_mask": torch.cat([c[1].long() for c in self.calls]),
                "call_hidden": torch.cat([f64(c[3]) for c in self.calls])}


# ---------------------------------------------------------------- build_attention_mask


@case(params=[(i, bi) for i in range(len(MASKS)) for bi in (False, True)],
      ids=[f"{i}-{'bi' if bi else 'causal'}" for i in range(len(MASKS)) for bi in (False, True)], compare="none")
def attention_pattern(p):
    i, bi = p
    m = MASKS[i]
    out = build_attention_mask(m, bi)
    as_bool = build_attention_mask(m.bool(), bi)
    return {"pattern": out, "pattern_from_bool": as_bool, "padding": m, "bidirectional": bi}


@case
def attention_rejects_3d():
    return {"result": build_attention_mask(torch.ones(1, 2, 3, dtype=torch.long), True)}


# ---------------------------------------------------------------- mask_tokens


@case(params=[(i, p) for i in range(len(BATCHES)) for p in (0.2, 0.8)],
      ids=[f"{i}-p{p}" for i in range(len(BATCHES)) for p in (0.2, 0.8)], compare="exact")
def masking(p):
    i, prob = p
    ids, mask = BATCHES[i]["ids"], BATCHES[i]["mask"]
    before = ids.clone()
    g = torch.Generator().manual_seed(11 + i)
    masked, labels = mask_tokens(ids, mask, TOK.special_ids, TOK.mask_id, prob, g)
    return {"masked_ids": masked, "labels": labels, "ids": ids, "mask": mask,
            "special_ids": torch.tensor(TOK.special_ids), "mask_id": TOK.mask_id,
            "input_untouched": bool((ids == before).all())}


@case(compare="exact")
def masking_all_and_none():
    ids, mask = BATCHES[0]["ids"], BATCHES[0]["mask"]
    all_ids, all_labels = mask_tokens(ids, mask, TOK.special_ids, TOK.mask_id, 1.0, torch.Generator().manual_seed(0))
    no_ids, no_labels = mask_tokens(ids, mask, TOK.special_ids, TOK.mask_id, 0.0, torch.Generator().manual_seed(0))
    return {"all_ids": all_ids, "all_labels": all_labels, "none_ids": no_ids, "none_labels": no_labels, "ids": ids,
            "mask": mask}


# ---------------------------------------------------------------- mntp_loss


@case(params=[(i, dt) for i in range(len(MNTP)) for dt in ("f64", "f32")],
      ids=[f"{i}-{dt}" for i in range(len(MNTP)) for dt in ("f64", "f32")], compare="none")
def mntp_loss_values(p):
    i, dt = p
    c = MNTP[i]
    dtype = F64 if dt == "f64" else torch.float32
    logits = c["logits"].to(dtype).requires_grad_(True)
    loss = mntp_loss(logits, c["labels"])
    (grad,) = torch.autograd.grad(loss, logits)
    return {"loss": loss, "grad": grad, "logits": f64(c["logits"]), "labels": c["labels"], "dtype": dt}


@case(compare="none")
def mntp_loss_hand():
    logits = torch.zeros(1, 3, 2, dtype=F64)
    logits[0, 1] = torch.tensor([0.0, 1.0], dtype=F64)
    labels = torch.tensor([[IGNORE_INDEX, IGNORE_INDEX, 1]])
    return {"uniform": mntp_loss(torch.zeros(1, 3, 2, dtype=F64), labels), "shifted": mntp_loss(logits, labels)}


# ---------------------------------------------------------------- pool


@case(params=[(i, mode, dt) for i in range(len(POOL)) for mode in MODES for dt in ("f64", "f32")],
      ids=[f"{i}-{mode}-{dt}" for i in range(len(POOL)) for mode in MODES for dt in ("f64", "f32")],
      **TOL64, outputs=TOL32)
def pooling(p):
    i, mode, dt = p
    c = POOL[i]
    dtype = F64 if dt == "f64" else torch.float32
    hidden = c["hidden"].to(dtype).requires_grad_(True)
    out = pool(hidden, c["mask"], mode)
    (grad,) = torch.autograd.grad((out * torch.linspace(-1, 1, out.numel(), dtype=dtype).view(out.shape)).sum(),
                                  hidden)
    pre = "f32." if dt == "f32" else ""
    return {f"{pre}emb": out, f"{pre}grad": grad, "hidden": f64(c["hidden"]), "mask": c["mask"], "mode": mode}


@case(compare="none")
def pooling_hand():
    hidden = torch.tensor([[[1.0], [2.0], [3.0]], [[4.0], [6.0], [9.0]]], dtype=F64)
    mask = torch.tensor([[0, 1, 1], [1, 1, 0]])
    return {m: pool(hidden, mask, m) for m in MODES}


@case
def pooling_rejects_unknown_mode():
    return {"result": pool(torch.zeros(1, 2, 3), torch.ones(1, 2), "max")}


# ---------------------------------------------------------------- simcse_loss


@case(params=[(i, dt) for i in range(len(SIMCSE)) for dt in ("f64", "f32")],
      ids=[f"{i}-{dt}" for i in range(len(SIMCSE)) for dt in ("f64", "f32")], **TOL64, outputs=TOL32)
def simcse_values(p):
    i, dt = p
    c = SIMCSE[i]
    dtype = F64 if dt == "f64" else torch.float32
    z1 = c["z1"].to(dtype).requires_grad_(True)
    z2 = c["z2"].to(dtype).requires_grad_(True)
    loss = simcse_loss(z1, z2, c["tau"])
    g1, g2 = torch.autograd.grad(loss, [z1, z2])
    pre = "f32." if dt == "f32" else ""
    return {f"{pre}loss": loss, f"{pre}grad_z1": g1, f"{pre}grad_z2": g2, "z1": f64(c["z1"]), "z2": f64(c["z2"]),
            "tau": c["tau"]}


@case(compare="none")
def simcse_hand():
    z = torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=F64)
    return {"orthogonal": simcse_loss(z, z, 0.5), "scaled": simcse_loss(3 * z, 0.5 * z, 0.5)}


# ---------------------------------------------------------------- encode (the model as an encoder)


@case(params=[(i, mode) for i in range(len(BATCHES)) for mode in MODES],
      ids=[f"{i}-{mode}" for i in range(len(BATCHES)) for mode in MODES], **TOL64,
      outputs={"n_calls": {"compare": "none"}, "call_bidirectional": {"compare": "none"}})
def encoding(p):
    i, mode = p
    model = make_model().eval()
    ids, mask = BATCHES[i]["ids"], BATCHES[i]["mask"]
    rec = Recorder(model)
    emb = encode(model, ids, mask, mode)
    calls = {"n_calls": len(rec.calls), "call_bidirectional": torch.tensor([c[2] for c in rec.calls])}
    (grad,) = torch.autograd.grad(emb.square().sum(), model.tok.weight)
    alone = torch.stack([encode(model, ids[b:b + 1, mask[b].bool()], mask[b:b + 1, mask[b].bool()], mode)[0]
                         for b in range(ids.shape[0])])
    return {"emb": emb, "grad_tok": grad, "alone": alone.detach(), "training": model.training, **calls}


@case(compare="none")
def encoding_uses_future_tokens():
    model = make_model().eval()
    ids, mask = BATCHES[1]["ids"].clone(), BATCHES[1]["mask"]
    first = encode(model, ids, mask, "mean")
    ids2 = ids.clone()
    ids2[0, -2] = 5 if ids[0, -2] != 5 else 6
    second = encode(model, ids2, mask, "mean")
    rec = Recorder(model)
    with torch.no_grad():
        encode(model, ids, mask, "mean")
    h = rec.calls[-1][3] if rec.calls else torch.zeros(1)
    rec2 = Recorder(model)
    with torch.no_grad():
        encode(model, ids2, mask, "mean")
    h2 = rec2.calls[-1][3] if rec2.calls else torch.zeros(1)
    return {"first": first, "second": second, "hidden": f64(h), "hidden_changed_token": f64(h2)}


# ---------------------------------------------------------------- mntp_step


MNTP_STEPS = [(i, p) for i in range(len(BATCHES)) for p in (0.2, 0.8) if (i, p) != (1, 0.2)]  # (1, 0.2): no mask


@case(params=MNTP_STEPS, ids=[f"{i}-p{p}" for i, p in MNTP_STEPS], compare="none")
def mntp_training_step(p):
    i, prob = p
    ids, mask = BATCHES[i]["ids"], BATCHES[i]["mask"]
    model = make_model().eval()
    # the masking draw of this step, by the candidate's own mask_tokens from an identical generator
    _, labels = mask_tokens(ids, mask, TOK.special_ids, TOK.mask_id, prob, torch.Generator().manual_seed(5 + i))
    rec = Recorder(model)
    loss = mntp_step(model, ids, mask, TOK, prob, torch.Generator().manual_seed(5 + i))
    (grad,) = torch.autograd.grad(loss, model.tok.weight)
    out = {"loss": loss, "grad_tok": grad, "labels": labels, "tok_weight": f64(model.tok.weight), "ids": ids,
           "mask": mask}
    out.update(rec.outputs())
    return out


# ---------------------------------------------------------------- simcse_step


@case(params=[(i, mode) for i in (0, 2, 3) for mode in MODES],
      ids=[f"{i}-{mode}" for i in (0, 2, 3) for mode in MODES], compare="none")
def simcse_training_step(p):
    i, mode = p
    ids, mask = BATCHES[i]["ids"], BATCHES[i]["mask"]
    model = make_model(dropout=0.3).train()
    rec = Recorder(model)
    loss = simcse_step(model, ids, mask, 0.05, mode)
    loss.backward()
    out = {"loss": loss, "grad_finite": bool(all(torch.isfinite(q.grad).all() for q in model.parameters()
                                                  if q.grad is not None)),
           "has_grad": bool(model.tok.weight.grad is not None), "ids": ids, "mask": mask, "mode": mode}
    out.update(rec.outputs())
    return out


@case(params=list(MODES), **TOL64)
def simcse_step_without_dropout(mode):
    ids, mask = BATCHES[0]["ids"], BATCHES[0]["mask"]
    model = make_model().eval()
    loss = simcse_step(model, ids, mask, 0.05, mode)
    (grad,) = torch.autograd.grad(loss, model.tok.weight)
    return {"loss": loss, "grad_tok": grad}


# ---------------------------------------------------------------- train.py end to end


@case(compare="none")
def train_script_run():
    out = train(seed=1, clm_steps=1, mntp=MNTPConfig(steps=2, batch_size=4), simcse=SimCSEConfig(steps=2, batch_size=4),
                dtype=F64)
    return {"clm": torch.tensor(out["history"]["clm"]), "mntp": torch.tensor(out["history"]["mntp"]),
            "simcse": torch.tensor(out["history"]["simcse"]), "embeddings": out["embeddings"],
            "alone": out["alone"]}
