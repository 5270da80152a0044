"""Scores a researcher expects: pass rate with bootstrap CIs, unbiased pass@k, partial credit, per-category
rates, judge distribution, and tokens, cost and time. Invalid predictions and environment errors are counted
apart from failures; model errors (the provider failed, no answer) are outside every rate's denominator."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from math import comb
from typing import Any

from pydantic import BaseModel, Field

from lmrbench.judge.run import majority
from lmrbench.models.base import Usage
from lmrbench.records import NOT_PASSED, Evaluation, Judgment, Prediction, Status
from lmrbench.tasks.loader import TaskSet


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimator of Chen et al. (2021): 1 - C(n-c, k) / C(n, k)."""
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"need 0 < k <= n and 0 <= c <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def bootstrap_ci(values: list[float], reps: int = 2000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean, resampling the values (one per implementation) with replacement."""
    if not values:
        return (float("nan"), float("nan"))
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(reps))
    lo = means[int((1 - level) / 2 * reps)]
    hi = means[min(reps - 1, int((1 + level) / 2 * reps) - 1)]
    return (lo, hi)


class Rate(BaseModel):
    value: float
    ci_low: float
    ci_high: float
    n: int = Field(description="Implementations it is computed over.")


class ModelScore(BaseModel):
    """One (model, setting) of one run."""

    model: str
    setting: str = Field(description="prompt, agent, external or a built-in model.")
    run: str
    subset: str = Field(default="all", description="'all', 'split=main', 'since=DATE', ...: which implementations.")

    def label(self) -> str:
        """The model, and the subset when it is not everything."""
        return self.model if self.subset == "all" else f"{self.model} [{self.subset}]"
    implementations: int
    samples: int = Field(description="Most samples per implementation.")
    pass_rate: Rate = Field(description="Share of implementations passing, averaged over samples (= pass@1).")
    test_share: Rate = Field(description="Mean share of tests passed (partial credit).")
    pass_at_k: dict[int, float]
    per_category: dict[str, Rate]
    status_counts: dict[Status, int]
    judge_distribution: dict[str, int] = Field(description="Majority judge category counts; 'none' = unjudged.")
    judge_vs_tests: dict[str, dict[str, int]] = Field(description="judge category -> {passed, not_passed}.")
    usage: Usage
    eval_seconds: float
    log_rule_rate: Rate | None = Field(default=None, description="Original-layout runs: share of implementations "
                                       "passing by the original's log rule alone (the paper's figure).")
    log_rule_differs: list[str] = Field(default_factory=list, description="'<instance>#<sample>' where the log "
                                        "rule and the strict verdict disagree.")
    error_causes: dict[str, int] = Field(default_factory=dict, description="Errors per cause ('unknown' when none).")
    unmeasured: list[str] = Field(default_factory=list, description="'<instance>: <cause>' for implementations "
                                  "whose every sample is an environment error: they say nothing about the model.")
    forgeable_passes: list[str] = Field(default_factory=list, description="'<instance>#<sample>' passes computed "
                                        "inside the candidate's process (pytest, legacy grading): a forger could "
                                        "produce them, so they are listed apart from the probe-graded passes.")
    model_errors: list[str] = Field(default_factory=list, description="'<instance>#<sample>' the provider gave no "
                                    "answer for (status model_error): outside every rate; re-run to retry them.")


def _per_instance(evals: list[Evaluation]) -> dict[str, list[Evaluation]]:
    out: dict[str, list[Evaluation]] = defaultdict(list)
    for ev in evals:
        out[ev.instance_id].append(ev)
    return out


def _rate(values: list[float]) -> Rate:
    lo, hi = bootstrap_ci(values)
    return Rate(value=sum(values) / len(values) if values else float("nan"), ci_low=lo, ci_high=hi, n=len(values))


def _judge_parts(evals: list[Evaluation], judgments: list[Judgment]) -> tuple[dict[str, int], dict[str, dict]]:
    by_item: dict[tuple[str, int], list[Judgment]] = defaultdict(list)
    for j in judgments:
        by_item[(j.instance_id, j.sample)].append(j)
    dist: Counter[str] = Counter()
    vs: dict[str, dict[str, int]] = {c: {Status.PASSED.value: 0, NOT_PASSED: 0} for c in ("1", "2", "3")}
    for ev in evals:
        cat = majority(by_item.get((ev.instance_id, ev.sample), []))
        dist[str(cat) if cat else "none"] += 1
        if cat:
            vs[str(cat)][Status.PASSED.value if ev.passed else NOT_PASSED] += 1
    return dict(dist), vs


def _legacy_parts(evals: list[Evaluation], inst: dict[str, list[Evaluation]]) -> dict[str, Any]:
    """The log-rule figure and the rows where it differs from the strict verdict (original-layout runs only)."""
    if not any(e.legacy is not None for e in evals):
        return {}
    shares = [sum(bool(e.legacy and e.legacy.log_rule) for e in evs) / len(evs) for evs in inst.values()]
    differs = sorted(f"{e.instance_id}#{e.sample}" for e in evals if bool(e.legacy and e.legacy.log_rule) != e.passed)
    return dict(log_rule_rate=_rate(shares), log_rule_differs=differs)


def _error_parts(evals: list[Evaluation], inst: dict[str, list[Evaluation]]) -> dict[str, Any]:
    causes = Counter(e.cause.value if e.cause else "unknown" for e in evals if e.status is Status.ERROR)
    unmeasured = [f"{iid}: {evs[0].cause.value if evs[0].cause else 'unknown'}" for iid, evs in sorted(inst.items())
                  if all(e.status is Status.ERROR for e in evs)]
    return dict(error_causes=dict(sorted(causes.items())), unmeasured=unmeasured)


def score_model(run: str, model: str, evals: list[Evaluation], preds: list[Prediction], judgments: list[Judgment],
                tasks: TaskSet | None) -> ModelScore:
    cats = {i.instance_id: (i.category.value if i.category else "uncategorised")
            for i in (tasks.instances() if tasks else [])}
    missing = sorted(f"{e.instance_id}#{e.sample}" for e in evals if e.status is Status.MODEL_ERROR)
    scored = [e for e in evals if e.status is not Status.MODEL_ERROR]  # no answer: nothing of the model to score
    inst = _per_instance(scored)
    shares = {iid: sum(e.passed for e in evs) / len(evs) for iid, evs in inst.items()}
    tests = {iid: sum(e.share_passed for e in evs) / len(evs) for iid, evs in inst.items()}
    kmax = min((len(evs) for evs in inst.values()), default=0)
    pak = {k: sum(pass_at_k(len(evs), sum(e.passed for e in evs), k) for evs in inst.values()) / len(inst)
           for k in range(1, kmax + 1)}
    by_cat: dict[str, list[float]] = defaultdict(list)
    for iid, share in shares.items():
        by_cat[cats.get(iid, "uncategorised")].append(share)
    usage = Usage()
    for p in preds:
        usage = usage + p.meta.usage
    settings = Counter(p.meta.solver for p in preds)
    dist, vs = _judge_parts(scored, [j for j in judgments if j.model == model])
    return ModelScore(
        model=model, setting=settings.most_common(1)[0][0] if settings else "unknown", run=run,
        implementations=len(inst), samples=max((len(evs) for evs in inst.values()), default=0),
        pass_rate=_rate(list(shares.values())), test_share=_rate(list(tests.values())), pass_at_k=pak,
        per_category={c: _rate(v) for c, v in sorted(by_cat.items())},
        status_counts={s: sum(e.status is s for e in evals) for s in Status},
        judge_distribution=dist, judge_vs_tests=vs, usage=usage,
        eval_seconds=round(sum(e.duration_s for e in evals), 1), model_errors=missing,
        forgeable_passes=sorted(f"{e.instance_id}#{e.sample}" for e in scored if e.passed and e.forgeable),
        **_legacy_parts(scored, inst), **_error_parts(scored, inst),
    )


def score_run(run: str, evals: list[Evaluation], preds: list[Prediction], judgments: list[Judgment],
              tasks: TaskSet | None) -> list[ModelScore]:
    models = sorted({e.model for e in evals})
    return [score_model(run, m, [e for e in evals if e.model == m], [p for p in preds if p.model == m],
                        judgments, tasks) for m in models]
