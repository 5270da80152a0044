"""Synthetic evals: a question universe with grouped questions, two models, sampled answers."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalbars.tables import ScoreTable


@dataclass(frozen=True)
class SimConfig:
    """A synthetic eval.

    n_clusters: groups of questions (e.g. passages), each with `cluster_size` questions.
    cluster_size: questions per group.
    k: answers sampled per question and model.
    drop: probability that a sampled answer is missing (its request failed); each question keeps at least one.
    abilities: one logit offset per model.
    cluster_sd: spread of the groups' difficulty (logits).
    question_sd: spread of the questions' difficulty within a group (logits).
    model_sd: spread of each model's own per-question deviation (logits); small values correlate the models.
    """

    n_clusters: int = 8
    cluster_size: int = 4
    k: int = 3
    drop: float = 0.0
    abilities: tuple[float, ...] = (0.5, 0.0)
    cluster_sd: float = 1.0
    question_sd: float = 0.5
    model_sd: float = 0.5


def question_probabilities(cfg: SimConfig, rng: np.random.Generator) -> np.ndarray:
    """(n_models, n_questions) probability of a correct answer of each model on each question."""
    n = cfg.n_clusters * cfg.cluster_size
    difficulty = np.repeat(rng.normal(0.0, cfg.cluster_sd, cfg.n_clusters), cfg.cluster_size)
    difficulty = difficulty + rng.normal(0.0, cfg.question_sd, n)
    offsets = rng.normal(0.0, cfg.model_sd, (len(cfg.abilities), n))
    logits = np.asarray(cfg.abilities)[:, None] - difficulty[None, :] + offsets
    return 1.0 / (1.0 + np.exp(-logits))


def _sampled_table(name: str, probs: np.ndarray, cfg: SimConfig, rng: np.random.Generator,
                   ids: tuple[str, ...], clusters: np.ndarray) -> ScoreTable:
    n = probs.size
    correct = (rng.random((n, cfg.k)) < probs[:, None]).astype(np.float64)
    mask = rng.random((n, cfg.k)) >= cfg.drop
    mask[:, 0] |= ~mask.any(axis=1)
    # keep the answers of each row at the front, padding at the end
    order = np.argsort(~mask, axis=1, kind="stable")
    mask = np.take_along_axis(mask, order, axis=1)
    scores = np.where(mask, np.take_along_axis(correct, order, axis=1), 0.0)
    return ScoreTable(name=name, question_ids=ids, scores=scores, mask=mask, clusters=clusters)


def simulate(cfg: SimConfig, seed: int, kind: str = "sampled") -> list[ScoreTable]:
    """One table per model of `cfg.abilities` ("sampled": k answers scored 0/1; "probability": the
    probability of the correct answer itself)."""
    rng = np.random.default_rng(seed)
    probs = question_probabilities(cfg, rng)
    n = probs.shape[1]
    ids = tuple(f"q{i:04d}" for i in range(n))
    clusters = np.repeat([f"c{c:03d}" for c in range(cfg.n_clusters)], cfg.cluster_size)
    names = [f"model_{chr(ord('a') + m)}" for m in range(len(cfg.abilities))]
    if kind == "probability":
        return [ScoreTable(name=names[m], question_ids=ids, scores=probs[m][:, None].copy(),
                           mask=np.ones((n, 1), dtype=bool), clusters=clusters, kind="probability")
                for m in range(len(names))]
    return [_sampled_table(names[m], probs[m], cfg, rng, ids, clusters) for m in range(len(names))]
