"""Probe for error-bars/1: the eval report and the power analysis of evalbars/errorbars.py. Runs in the
sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox), except the
variance components whose estimator the method description leaves open; the trusted checks in
check_errorbars.py recompute every output from the equations of the method description."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from evalbars.config import PowerSpec, ReportConfig
from evalbars.errorbars import build_report, compare_models, detectable_effect, plan_from_pilot, question_scores
from evalbars.errorbars import sample_size, summarize_model
from evalbars.results import Comparison, ModelSummary
from evalbars.simulate import SimConfig, simulate
from evalbars.tables import ScoreTable, from_frame
from lmrbench_probe import case
from report import run

CASES = json.loads((Path(__file__).parent / "fixtures" / "cases.json").read_text())
# tolerances measured in NOTES.md
TOL = dict(rtol=1e-10, atol=1e-13)
OPEN = {"*within_var": {"compare": "none"}, "*between_var": {"compare": "none"}, "*omega2": {"compare": "none"},
        "*sigma2_*": {"compare": "none"}, "n_planned": {"compare": "none"}, "last_line": {"compare": "none"},
        "mde_line": {"compare": "none"}}


def make_table(spec: dict, name: str) -> ScoreTable:
    scores = np.array(spec["scores"], dtype=np.float64)
    counts = np.array(spec["counts"])
    mask = np.arange(scores.shape[1])[None, :] < counts[:, None]
    clusters = None if spec["clusters"] is None else np.array(spec["clusters"])
    return ScoreTable(name=name, question_ids=tuple(spec["ids"]), scores=scores, mask=mask, clusters=clusters,
                      kind=spec["kind"])


def summary_out(s: ModelSummary) -> dict:
    return {"name": s.name, "n_questions": s.n_questions, "n_clusters": s.n_clusters, "mean": s.mean, "se": s.se,
            "se_clt": s.se_clt, "ci_low": s.ci.low, "ci_high": s.ci.high, "within_var": s.within_var,
            "between_var": s.between_var}


def comparison_out(c: Comparison) -> dict:
    return {"name_a": c.name_a, "name_b": c.name_b, "n_questions": c.n_questions, "diff": c.diff, "se": c.se,
            "se_unpaired": c.se_unpaired, "correlation": c.correlation, "z": c.z, "p_value": c.p_value,
            "ci_low": c.ci.low, "ci_high": c.ci.high}


def spec_out(s: PowerSpec) -> dict:
    return {k: getattr(s, k) for k in ("effect", "omega2", "sigma2_a", "sigma2_b", "alpha", "power", "k_a", "k_b")}


def table_inputs(spec: dict) -> dict:
    """The inputs, for the trusted checks (cluster labels as integer codes in order of first appearance)."""
    labels = spec["clusters"]
    codes = None if labels is None else [list(dict.fromkeys(labels)).index(c) for c in labels]
    return {"scores": np.array(spec["scores"], dtype=np.float64), "counts": np.array(spec["counts"]),
            "ids": list(spec["ids"]), "codes": codes, "kind": spec["kind"]}


def inputs_of(t: ScoreTable) -> dict:
    labels = None if t.clusters is None else [str(c) for c in t.clusters]
    return table_inputs({"ids": list(t.question_ids), "scores": t.scores.tolist(),
                         "counts": t.samples_per_question.tolist(), "clusters": labels, "kind": t.kind})


# ---------------------------------------------------------------- unit level


@case(**TOL)
def question_scores_hand():
    t = ScoreTable(name="m", question_ids=("x", "y", "z"),
                   scores=np.array([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.5, 0.25, 0.0]]),
                   mask=np.array([[True, True, True], [True, False, False], [True, True, False]]))
    return {"scores": question_scores(t)}


@case(**TOL, outputs=OPEN)
def summary_hand():
    one = ScoreTable(name="m", question_ids=("a", "b", "c", "d"), scores=np.array([[1.0], [0.0], [1.0], [1.0]]),
                     mask=np.ones((4, 1), dtype=bool))
    clustered = ScoreTable(name="m", question_ids=tuple("abcdef"),
                           scores=np.array([[1.0], [0.0], [1.0], [1.0], [0.0], [0.0]]),
                           mask=np.ones((6, 1), dtype=bool), clusters=np.array(["p", "p", "q", "q", "r", "r"]))
    return {"plain": summary_out(summarize_model(one, ReportConfig())),
            "clustered": summary_out(summarize_model(clustered, ReportConfig())),
            "unclustered": summary_out(summarize_model(clustered, ReportConfig(cluster_se=False)))}


@case(**TOL)
def comparison_hand():
    ones = np.ones((4, 1), dtype=bool)
    a = ScoreTable(name="A", question_ids=("1", "2", "3", "4"), scores=np.array([[1.0], [1.0], [0.0], [0.0]]),
                   mask=ones)
    b = ScoreTable(name="B", question_ids=("4", "3", "2", "1"), scores=np.array([[0.0], [0.0], [0.0], [1.0]]),
                   mask=ones)
    return comparison_out(compare_models(a, b, ReportConfig()))


@case(**TOL)
def degenerate_comparison():
    ids, one = ("1", "2", "3"), np.ones((3, 1), dtype=bool)
    a = ScoreTable(name="A", question_ids=ids, scores=np.array([[1.0], [0.0], [1.0]]), mask=one)
    flat = ScoreTable(name="B", question_ids=ids, scores=np.zeros((3, 1)), mask=one)
    same = ScoreTable(name="C", question_ids=ids[::-1], scores=np.array([[1.0], [0.0], [1.0]]), mask=one)
    return {"flat": comparison_out(compare_models(a, flat, ReportConfig())),
            "same": comparison_out(compare_models(a, same, ReportConfig()))}


@case
def sample_size_hand():
    return {"n": sample_size(PowerSpec(effect=0.05, omega2=0.1, sigma2_a=0.2, sigma2_b=0.2)),
            "n_k4": sample_size(PowerSpec(effect=0.05, omega2=0.1, sigma2_a=0.2, sigma2_b=0.2, k_a=4, k_b=4))}


@case(params=range(len(CASES["specs"])))
def sample_size_matches_reference(i):
    s = CASES["specs"][i]
    return {"n": sample_size(PowerSpec(**s)), **s}


@case(**TOL)
def detectable_effect_hand():
    return {"mde": detectable_effect(1570, 0.1, 0.2, 0.2),
            "mde_k4": detectable_effect(628, 0.1, 0.2, 0.2, k_a=4, k_b=4),
            "mde_one": detectable_effect(1, 0.0, 0.25, 0.0, alpha=0.1, power=0.5)}


@case(params=range(len(CASES["specs"])), **TOL)
def detectable_effect_matches_reference(i):
    s = dict(CASES["specs"][i])
    effect = s.pop("effect")
    n = sample_size(PowerSpec(effect=effect, **s))
    return {"n": n, "at_n": detectable_effect(n, **s), "below_n": detectable_effect(max(1, n - 1), **s),
            "at_100": detectable_effect(100, **s), "effect": effect, **s}


@case(params=["summary_one_question", "different_questions", "different_clusters", "no_table", "three_tables",
              "pilot_one_answer", "pilot_different_questions"])
def report_rejects(kind):
    one = np.ones((2, 1), dtype=bool)
    a = ScoreTable(name="A", question_ids=("1", "2"), scores=np.array([[1.0], [0.0]]), mask=one,
                   clusters=np.array(["x", "y"]))
    if kind == "summary_one_question":
        t = ScoreTable(name="A", question_ids=("1",), scores=np.array([[1.0, 0.0]]), mask=np.ones((1, 2), bool))
        return {"result": summarize_model(t, ReportConfig())}
    if kind == "different_questions":
        b = ScoreTable(name="B", question_ids=("1", "3"), scores=np.array([[1.0], [0.0]]), mask=one)
        return {"result": compare_models(a, b, ReportConfig())}
    if kind == "different_clusters":
        # A groups the questions {1, 2} {3}, B groups them {1} {2, 3}: different under either reading of "group
        # the questions differently" (the labels differ, and so does the partition they make).
        three = np.ones((3, 1), dtype=bool)
        a3 = ScoreTable(name="A", question_ids=("1", "2", "3"), scores=np.array([[1.0], [0.0], [1.0]]), mask=three,
                        clusters=np.array(["x", "x", "y"]))
        b = ScoreTable(name="B", question_ids=("3", "2", "1"), scores=np.array([[1.0], [0.0], [0.0]]), mask=three,
                       clusters=np.array(["y", "y", "x"]))
        return {"result": compare_models(a3, b, ReportConfig())}
    if kind == "no_table":
        return {"result": build_report([], ReportConfig())}
    if kind == "three_tables":
        return {"result": build_report([a, a, a], ReportConfig())}
    b = ScoreTable(name="B", question_ids=("1", "2"), scores=np.array([[1.0, 0.0], [0.0, 0.0]]),
                   mask=np.array([[True, True], [True, True]]))
    if kind == "pilot_one_answer":
        return {"result": plan_from_pilot(b, a, effect=0.1)}
    c = ScoreTable(name="C", question_ids=("1", "5"), scores=np.array([[1.0, 0.0], [0.0, 0.0]]),
                   mask=np.array([[True, True], [True, True]]))
    return {"result": plan_from_pilot(b, c, effect=0.1)}


@case(params=["no_question", "alpha_zero", "power_one", "negative_omega2", "k_b_zero"])
def detectable_effect_rejects(kind):
    base = dict(n_questions=100, omega2=0.1, sigma2_a=0.2, sigma2_b=0.2)
    changed = {"no_question": {"n_questions": 0}, "alpha_zero": {"alpha": 0.0}, "power_one": {"power": 1.0},
               "negative_omega2": {"omega2": -0.1}, "k_b_zero": {"k_b": 0}}[kind]
    return {"result": detectable_effect(**{**base, **changed})}


@case(params=["effect_zero", "alpha_one", "power_zero", "negative_variance", "k_zero"])
def sample_size_rejects(kind):
    base = dict(effect=0.05, omega2=0.1, sigma2_a=0.2, sigma2_b=0.2)
    changed = {"effect_zero": {"effect": 0.0}, "alpha_one": {"alpha": 1.0}, "power_zero": {"power": 0.0},
               "negative_variance": {"sigma2_b": -0.01}, "k_zero": {"k_a": 0}}[kind]
    return {"result": sample_size(PowerSpec(**{**base, **changed}))}


# ---------------------------------------------------------------- fixtures


@case(params=range(len(CASES["summaries"])), **TOL, outputs=OPEN)
def summary_matches_reference(i):
    c = CASES["summaries"][i]
    config = ReportConfig(confidence=c["confidence"], cluster_se=c["cluster_se"])
    s = summarize_model(make_table(c["table"], f"m{i}"), config)
    return {**summary_out(s), "inputs": table_inputs(c["table"]), "confidence": c["confidence"],
            "cluster_se": c["cluster_se"]}


@case(params=range(len(CASES["comparisons"])), **TOL, outputs=OPEN)
def comparison_matches_reference(i):
    c = CASES["comparisons"][i]
    config = ReportConfig(confidence=c["confidence"], cluster_se=c["cluster_se"])
    report = build_report([make_table(c["a"], "A"), make_table(c["b"], "B")], config)
    return {"comparison": comparison_out(report.comparison), "a": summary_out(report.models[0]),
            "b": summary_out(report.models[1]), "in_a": table_inputs(c["a"]), "in_b": table_inputs(c["b"]),
            "confidence": c["confidence"], "cluster_se": c["cluster_se"]}


@case(params=range(len(CASES["pilots"])), **TOL, outputs=OPEN)
def pilot_matches_reference(i):
    c = CASES["pilots"][i]
    spec = plan_from_pilot(make_table(c["a"], "A"), make_table(c["b"], "B"), effect=c["effect"], alpha=c["alpha"],
                           power=c["power"], k_a=c["k_a"], k_b=c["k_b"])
    return {**spec_out(spec), "n_planned": sample_size(spec), "in_a": table_inputs(c["a"]),
            "in_b": table_inputs(c["b"]), "asked": {k: c[k] for k in ("effect", "alpha", "power", "k_a", "k_b")}}


@case(**TOL, outputs=OPEN)
def single_model_report():
    c = CASES["comparisons"][1]
    report = build_report([make_table(c["a"], "A")], ReportConfig())
    return {"n_models": len(report.models), "has_comparison": report.comparison is not None,
            **summary_out(report.models[0])}


# ---------------------------------------------------------------- end to end


@case(**TOL, outputs=OPEN)
def loaded_from_frame():
    import pandas as pd

    frame_a = pd.DataFrame({"question_id": ["q2", "q1", "q2", "q3", "q1", "q4", "q3", "q4", "q4"],
                            "score": [1, 0, 1, 1, 1, 0, 0, 0, 1], "cluster": list("xyxxyyxyy")})
    frame_b = pd.DataFrame({"question_id": ["q1", "q2", "q3", "q4"], "score": [0.9, 0.2, 0.6, 0.4]})
    a, b = from_frame(frame_a, "A"), from_frame(frame_b, "B", kind="probability")
    report = build_report([a, b], ReportConfig())
    return {"a": summary_out(report.models[0]), "b": summary_out(report.models[1]),
            "comparison": comparison_out(report.comparison)}


@case(params=["sampled", "probability"], **TOL, outputs=OPEN)
def simulated_eval(kind):
    tables = simulate(SimConfig(n_clusters=10, cluster_size=5, k=3, drop=0.2), seed=3, kind=kind)
    report = build_report(tables, ReportConfig())
    inputs = [inputs_of(t) for t in tables]
    return {"a": summary_out(report.models[0]), "b": summary_out(report.models[1]),
            "comparison": comparison_out(report.comparison), "in_a": inputs[0], "in_b": inputs[1]}


@case(outputs=OPEN)
def report_script():
    tables = simulate(SimConfig(k=4), seed=5)
    text = run(tables, ReportConfig(confidence=0.9), plan_effect=0.05, plan_k=2)
    inputs = [inputs_of(t) for t in tables]
    return {"last_line": text.splitlines()[-1], "mde_line": text.splitlines()[-2], "lines": len(text.splitlines()),
            "in_a": inputs[0],
            "in_b": inputs[1]}
