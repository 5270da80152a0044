"""Probe for replug/1: ensemble inference and LSR training in replug/replug.py. Runs in the sandbox; emits outputs
only. Outputs are compared with the reference's (tests/expected/, outside the sandbox) unless a case says
compare="none"; the trusted checks in check_replug.py recompute the paper's equations from the echoed inputs.
Cheap cases first, the trainer and the scripts last."""
from __future__ import annotations

from pathlib import Path

import torch

from evaluate import next_token_nll
from lmrbench_probe import case
from replug.config import LMConfig, ReplugConfig, RetrieverConfig
from replug.corpus import Corpus, batches
from replug.lm import TinyLM, continuation_logprob, freeze, next_token_logprobs
from replug.replug import LSRTrainer, ReplugLM, ensemble_next_token_logprobs, lsr_loss
from replug.retriever import DocumentIndex, DualEncoder
from train_retriever import train

CASES = torch.load(Path(__file__).parent / "fixtures" / "replug_cases.pt", weights_only=True)
LSR, ENSEMBLE, REPLUG, TRAIN = (CASES[k] for k in ("lsr", "ensemble", "replug", "train"))
F64 = torch.float64
DTYPES = {"float64": torch.float64, "float32": torch.float32}
# tolerances measured in NOTES.md
TOL64 = dict(rtol=1e-9, atol=1e-12)
TOL32 = {"f32.*": dict(rtol=1e-4, atol=1e-5)}


def f64(x: torch.Tensor) -> torch.Tensor:
    return x.detach().to(F64)


def build_lm(state: dict, vocab: int, d: int, dtype: torch.dtype = F64) -> TinyLM:
    lm = TinyLM(LMConfig(vocab_size=vocab, d_model=d)).to(dtype)
    lm.load_state_dict(state)
    return freeze(lm)


def build_retriever(state: dict, vocab: int) -> DualEncoder:
    enc = DualEncoder(RetrieverConfig(vocab_size=vocab, d_embed=state["proj.weight"].shape[0])).double()
    enc.load_state_dict(state)
    return enc


# ---------------------------------------------------------------- lsr_loss


def lsr_id(i: int) -> str:
    c = LSR[i]
    b, k = c["scores"].shape
    return f"{i}-B{b}-k{k}-g{c['gamma']}-b{c['beta']}-{'f32' if c['scores'].dtype == torch.float32 else 'f64'}"


@case(params=range(len(LSR)), ids=[lsr_id(i) for i in range(len(LSR))], **TOL64, outputs=TOL32)
def lsr_matches_reference(i):
    c = LSR[i]
    scores = c["scores"].clone().requires_grad_(True)
    loss = lsr_loss(scores, c["lm_logprobs"].clone(), c["gamma"], c["beta"])
    (grad,) = torch.autograd.grad(loss, [scores])
    p = "f32." if scores.dtype == torch.float32 else ""
    return {f"{p}loss": loss.reshape(()), f"{p}grad": grad, "scores": f64(c["scores"]),
            "lm_logprobs": f64(c["lm_logprobs"]), "gamma": c["gamma"], "beta": c["beta"]}


@case(rtol=1e-12, atol=1e-14)
def lsr_hand_values():
    # row 0: P_R = softmax([0, ln 3]) = (1/4, 3/4), Q uniform; row 1: P_R = Q (loss 0)
    scores = torch.tensor([[0.0, torch.log(torch.tensor(3.0, dtype=F64)).item()], [0.3, -0.2]], dtype=F64)
    logp = torch.tensor([[-1.0, -1.0], [-0.5, -2.0]], dtype=F64)
    beta_match = (torch.exp(torch.tensor(-0.5, dtype=F64)) - torch.exp(torch.tensor(-2.0, dtype=F64))).item() / 0.5
    one = lsr_loss(scores[:1], logp[:1], 1.0, 0.7)
    matched = lsr_loss(scores[1:], logp[1:], 1.0, beta_match)
    return {"one": one.reshape(()), "matched": matched.reshape(()),
            "batch": lsr_loss(torch.cat([scores[:1], scores[1:]]), torch.cat([logp[:1], logp[1:]]),
                              1.0, beta_match).reshape(())}


# ---------------------------------------------------------------- ensemble


def ensemble_outputs(c: dict) -> dict:
    dtype = DTYPES[c["dtype"]]
    lm = build_lm(c["lm"], c["vocab"], c["d"], dtype)
    x, docs, scores = c["x"], c["docs"], c["scores"].to(dtype)
    with torch.no_grad():
        out = ensemble_next_token_logprobs(lm, x, docs, scores)
        lm64 = build_lm(c["lm"], c["vocab"], c["d"])
        b, k, _ = docs.shape
        per_doc = torch.stack([next_token_logprobs(lm64, torch.cat([docs[:, j], x], dim=1)) for j in range(k)], 1)
    p = "f32." if dtype == torch.float32 else ""
    return {f"{p}logprobs": out, "per_doc": per_doc, "scores": f64(c["scores"]), "dtype": c["dtype"]}


def ensemble_id(i: int) -> str:
    c = ENSEMBLE[i]
    b, k, td = c["docs"].shape
    return f"{i}-B{b}-k{k}-Tx{c['x'].shape[1]}-Td{td}-{c['dtype']}"


@case(params=range(len(ENSEMBLE)), ids=[ensemble_id(i) for i in range(len(ENSEMBLE))], **TOL64, outputs=TOL32)
def ensemble_matches_reference(i):
    return ensemble_outputs(ENSEMBLE[i])


@case
def ensemble_rejects_mismatch():
    c = ENSEMBLE[2]
    lm = build_lm(c["lm"], c["vocab"], c["d"])
    return {"result": ensemble_next_token_logprobs(lm, c["x"], c["docs"], c["scores"][:, :-1])}


@case(rtol=1e-10, atol=1e-12)
def ensemble_one_document_is_the_lm():
    c = ENSEMBLE[1]
    lm = build_lm(c["lm"], c["vocab"], c["d"])
    with torch.no_grad():
        return {"ensemble": ensemble_next_token_logprobs(lm, c["x"], c["docs"][:, :1], c["scores"][:, :1]),
                "plain": next_token_logprobs(lm, torch.cat([c["docs"][:, 0], c["x"]], dim=1))}


# ---------------------------------------------------------------- ReplugLM


def system(c: dict):
    lm = build_lm(c["lm"], c["vocab"], 16)
    retriever = build_retriever(c["retriever"], c["vocab"])
    corpus = Corpus(c["corpus"].clone())
    return lm, retriever, corpus, DocumentIndex(retriever, corpus)


@case(params=range(len(REPLUG)), **TOL64)
def replug_lm_matches_reference(i):
    c = REPLUG[i]
    lm, retriever, corpus, index = system(c)
    model = ReplugLM(lm, retriever, index, corpus, ReplugConfig(k=c["k"]))
    out = model.next_token_logprobs(c["x"])
    with torch.no_grad():
        scores, ids = index.search(retriever(c["x"]), c["k"])
        sims = retriever(c["x"]) @ index.embeddings.T
        per_doc = torch.stack([next_token_logprobs(lm, torch.cat([corpus.docs[ids[:, j]], c["x"]], dim=1))
                               for j in range(c["k"])], 1)
    return {"logprobs": f64(out), "per_doc": per_doc, "scores": f64(scores), "similarities": f64(sims),
            "refreshes": index.refreshes}


@case(params=range(len(REPLUG)), **TOL64)
def replug_continuation_matches_reference(i):
    c = REPLUG[i]
    lm, retriever, corpus, index = system(c)
    model = ReplugLM(lm, retriever, index, corpus, ReplugConfig(k=c["k"]))
    x, y = c["x"], c["y"]
    out = model.continuation_logprob(x, y)
    with torch.no_grad():
        scores, ids = index.search(retriever(x), c["k"])
        # per_token[b, j, t] = log p_LM(y_t | d_j o x o y_<t)
        per_token = torch.stack([torch.stack([
            next_token_logprobs(lm, torch.cat([corpus.docs[ids[:, j]], x, y[:, :t]], dim=1)).gather(
                -1, y[:, t:t + 1]).squeeze(-1) for t in range(y.shape[1])], 1) for j in range(c["k"])], 1)
    return {"logprob": f64(out), "per_token": per_token, "scores": f64(scores), "refreshes": index.refreshes}


# ---------------------------------------------------------------- LSRTrainer


def build_trainer(c: dict) -> tuple[LSRTrainer, DocumentIndex, DualEncoder, Corpus, torch.nn.Module]:
    lm, retriever, corpus, index = system(c)
    return LSRTrainer(lm, retriever, index, corpus, ReplugConfig(**c["cfg"])), index, retriever, corpus, lm


@case(params=range(len(TRAIN)), ids=[c["name"] for c in TRAIN], rtol=1e-8, atol=1e-11)
def trainer_loss_matches_reference(i):
    c = TRAIN[i]
    trainer, index, retriever, corpus, lm = build_trainer(c)
    k = c["cfg"]["k"]
    x, y = c["x"][:c["batch"] + 1], c["y"][:c["batch"] + 1]
    loss = trainer.loss(x, y)
    names = [n for n, _ in retriever.named_parameters()]
    grads = torch.autograd.grad(loss, list(retriever.parameters()), allow_unused=True)
    with torch.no_grad():
        scores, ids = index.search(retriever(x), k)
        lm_logprobs = torch.stack([continuation_logprob(lm, torch.cat([corpus.docs[ids[:, j]], x], dim=1), y)
                                   for j in range(k)], 1)
    out = {"loss": f64(loss).reshape(()), "scores": f64(scores), "lm_logprobs": lm_logprobs,
           "gamma": c["cfg"]["gamma"], "beta": c["cfg"]["beta"],
           "steps_after_loss": trainer.steps, "refreshes_after_loss": index.refreshes}
    out.update({f"grad.{n}": (f64(g) if g is not None else torch.zeros_like(p, dtype=F64))
                for n, g, p in zip(names, grads, retriever.parameters())})
    return out


def run_training(c: dict) -> dict:
    trainer, index, retriever, corpus, _ = build_trainer(c)
    losses, index_after, encoded_after, refreshes = [], [], [], []
    with torch.no_grad():
        encoded0 = f64(retriever(corpus.docs))
    for xb, yb in batches(c["x"], c["y"], c["batch"]):
        losses.append(trainer.step(xb, yb))
        index_after.append(f64(index.embeddings))
        with torch.no_grad():
            encoded_after.append(f64(retriever(corpus.docs)))
        refreshes.append(index.refreshes)
    return {"losses": torch.tensor(losses, dtype=F64), "index_after": torch.stack(index_after),
            "encoded_after": torch.stack(encoded_after), "encoded0": encoded0,
            "refreshes": torch.tensor(refreshes), "steps": trainer.steps,
            "params": {n: f64(p) for n, p in retriever.named_parameters()},
            "index_refresh": c["cfg"]["index_refresh"]}


@case(params=range(len(TRAIN)), ids=[c["name"] for c in TRAIN], rtol=1e-7, atol=1e-10,
      outputs={"refreshes": dict(compare="exact"), "steps": dict(compare="exact")})
def trainer_steps_match_reference(i):
    return run_training(TRAIN[i])


@case(compare="exact")
def lm_stays_frozen():
    c = TRAIN[0]
    trainer, index, retriever, corpus, lm = build_trainer(c)
    before = {n: p.clone() for n, p in lm.named_parameters()}
    for xb, yb in batches(c["x"][:4], c["y"][:4], 2):
        trainer.step(xb, yb)
    return {"lm_max_change": max(float((before[n] - p).abs().max()) for n, p in lm.named_parameters()),
            "lm_requires_grad": any(p.requires_grad for p in lm.parameters())}


# ---------------------------------------------------------------- the scripts


@case(rtol=1e-6, atol=1e-9)
def train_script_run():
    res = train(epochs=1, batch_size=4, dtype=F64)
    return {"losses": torch.tensor(res.losses, dtype=F64), "refreshes": res.refreshes}


@case(rtol=1e-7, atol=1e-9)
def evaluate_script_run():
    return next_token_nll(dtype=F64)
