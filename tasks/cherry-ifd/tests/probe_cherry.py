"""Probe for cherry-ifd/1: the selection in cherry/selection.py. Runs in the sandbox; emits outputs only, never
compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_cherry.py add hand-checked values and the method's properties."""
from __future__ import annotations

from pathlib import Path

import torch

from cherry.config import CherryConfig
from cherry.data import BOS_ID, Sample
from cherry.model import TinyLM
from cherry.selection import (answer_scores, experience_subset, instruction_embeddings, kmeans, select_cherry)
from lmrbench_probe import case
from select_data import run

CASES = torch.load(Path(__file__).parent / "fixtures" / "cherry_cases.pt", weights_only=True)
EMBED, SCORES, KMEANS, SUBSET, E2E = (CASES[k] for k in ("embed", "scores", "kmeans", "subset", "e2e"))
VOCAB = 40
F64 = dict(rtol=1e-11, atol=1e-12)


def to_samples(raw: list[dict]) -> list[Sample]:
    return [Sample(list(s["instruction"]), list(s["answer"])) for s in raw]


def model(seed: int, kind: str = "random") -> TinyLM:
    """A seeded model; kind="uniform": every weight zero; kind="unigram": only the output bias non-zero."""
    lm = TinyLM(VOCAB, seed=seed)
    if kind != "random":
        with torch.no_grad():
            for param in lm.parameters():
                param.zero_()
            if kind == "unigram":
                lm.head.bias.copy_(torch.randn(VOCAB, generator=torch.Generator().manual_seed(seed),
                                               dtype=torch.float64))
    return lm


@torch.no_grad()
def next_token_logprobs(lm: TinyLM, ids: list[int]) -> torch.Tensor:
    """log P(ids[t + 1] | ids[:t + 1]) for each t, from the repository's model (inputs for the checks)."""
    logits, _ = lm(torch.tensor([ids]))
    return torch.log_softmax(logits[0, :-1], dim=-1).gather(1, torch.tensor(ids[1:])[:, None])[:, 0]


# ---------------------------------------------------------------- instruction_embeddings


@case(params=range(len(EMBED)), **F64)
def embeddings_match_reference(i):
    c = EMBED[i]
    lm, samples = model(c["seed"]), to_samples(c["samples"])
    out = {"embeddings": instruction_embeddings(lm, samples),
           "alone": torch.cat([instruction_embeddings(lm, [s]) for s in samples])}
    with torch.no_grad():
        for j, s in enumerate(samples):
            out[f"hidden.{j}"] = lm(torch.tensor([[BOS_ID, *s.instruction]]))[1][0]
    return out


# ---------------------------------------------------------------- kmeans


@case(params=range(len(KMEANS)), rtol=1e-11, atol=1e-12, outputs={"centroids": {"rtol": 1e-5, "atol": 1e-6}})
def kmeans_matches_reference(i):
    c = KMEANS[i]
    centroids, assignment = kmeans(c["points"].clone(), c["k"], c["iters"], c["seed"])
    n = c["points"].shape[0]
    init = torch.randperm(n, generator=torch.Generator().manual_seed(c["seed"]))[:c["k"]]
    return {"centroids": centroids, "assignment": assignment, "init": init, "points": c["points"],
            "iters": c["iters"]}


@case(params=[0, -1, 13], ids=["k0", "negative", "k_over_n"])
def kmeans_rejects_bad_k(k):
    return {"result": kmeans(torch.randn(12, 2, dtype=torch.float64), k, 3, 0)}


# ---------------------------------------------------------------- experience_subset


@case(params=range(len(SUBSET)), **F64)
def subset_matches_reference(i):
    c = SUBSET[i]
    config = CherryConfig(**c["config"])
    subset = experience_subset(c["embeddings"].clone(), config)
    init = torch.randperm(c["embeddings"].shape[0], generator=torch.Generator().manual_seed(config.kmeans_seed))
    return {"subset": torch.tensor(subset, dtype=torch.long), "embeddings": c["embeddings"], **c["config"],
            "init": init[:config.num_clusters]}


# ---------------------------------------------------------------- answer_scores


@case(params=range(len(SCORES)), **F64)
def scores_match_reference(i):
    c = SCORES[i]
    lm, samples = model(c["seed"]), to_samples(c["samples"])
    conditioned, direct = answer_scores(lm, samples)
    alone = [answer_scores(lm, [s]) for s in samples]
    out = {"conditioned": conditioned, "direct": direct,
           "alone_conditioned": torch.cat([a[0] for a in alone]), "alone_direct": torch.cat([a[1] for a in alone])}
    for j, s in enumerate(samples):
        out[f"logp_with_q.{j}"] = next_token_logprobs(lm, [BOS_ID, *s.instruction, *s.answer])
        out[f"logp_alone.{j}"] = next_token_logprobs(lm, [BOS_ID, *s.answer])
        out[f"lengths.{j}"] = torch.tensor([len(s.instruction), len(s.answer)])
    return out


@case(**F64)
def scores_hand_values():
    samples = [Sample([5, 6, 7], [8, 9]), Sample([3], [30, 31, 32, 33])]
    uniform = answer_scores(model(0, "uniform"), samples)
    unigram = answer_scores(model(3, "unigram"), samples)
    return {"uniform.conditioned": uniform[0], "uniform.direct": uniform[1],
            "unigram.conditioned": unigram[0], "unigram.direct": unigram[1],
            "bias": model(3, "unigram").head.bias.detach().clone()}


# ---------------------------------------------------------------- select_cherry


SELECT = [
    ([0.2, 0.9, 1.3, 0.95, 1.0, 0.5, 0.99], 3),
    ([0.2, 0.9, 1.3, 0.95, 1.0, 0.5, 0.99], 10),
    ([0.7, 0.8, 0.7, 0.8, 0.6], 3),
    ([1.5, 1.0, 2.0], 2),
    ([0.4, 0.3], 0),
    ([0.999999, 1.000001, 0.5], 5),
]


@case(params=range(len(SELECT)), **F64)
def select_matches_reference(i):
    ifd, count = SELECT[i]
    return {"selected": torch.tensor(select_cherry(torch.tensor(ifd, dtype=torch.float64), count),
                                     dtype=torch.long), "ifd": torch.tensor(ifd, dtype=torch.float64), "count": count}


# ---------------------------------------------------------------- the whole pipeline, through the repository


@case(params=range(len(E2E)), rtol=1e-9, atol=1e-11)
def pipeline_end_to_end(i):
    c = E2E[i]
    config = CherryConfig(**c["config"])
    base = TinyLM(40, seed=config.seed)
    before = torch.cat([p.detach().reshape(-1).clone() for p in base.parameters()])
    result = run(config, c["num_samples"], c["data_seed"])
    params = torch.cat([p.detach().reshape(-1) for p in result.model.parameters()])
    return {"experience_subset": torch.tensor(result.experience_subset, dtype=torch.long),
            "conditioned": result.conditioned, "direct": result.direct, "ifd": result.ifd,
            "selected": torch.tensor(result.selected, dtype=torch.long), "params": params,
            "base_params": before, "num_selected": config.num_selected,
            "max_subset": config.num_clusters * config.per_cluster}
