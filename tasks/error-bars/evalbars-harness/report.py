"""Report an eval with error bars.

    python report.py scores_a.csv [scores_b.csv] [--no-cluster] [--confidence 0.9] [--kind probability]
    python report.py --simulate [--seed 0]                 # a synthetic eval of two models
    python report.py --simulate --plan-effect 0.05 --plan-k 4

Each CSV holds one row per sampled answer: question_id, score and optionally cluster. With --plan-effect the
two tables are treated as a pilot: the difference a new eval of the pilot's size would detect, and the number
of questions needed to detect the given difference, are printed.
"""
from __future__ import annotations

import argparse

from evalbars.config import ReportConfig
from evalbars.errorbars import build_report, detectable_effect, plan_from_pilot, sample_size
from evalbars.render import render_report
from evalbars.simulate import SimConfig, simulate
from evalbars.tables import ScoreTable, load_scores


def run(tables: list[ScoreTable], config: ReportConfig, plan_effect: float | None = None,
        plan_k: int = 1) -> str:
    """The report's text; with `plan_effect`, followed by the sample size of the planned comparison."""
    text = render_report(build_report(tables, config), config.confidence)
    if plan_effect is not None and len(tables) == 2:
        spec = plan_from_pilot(tables[0], tables[1], effect=plan_effect, k_a=plan_k, k_b=plan_k)
        n = tables[0].n_questions
        mde = detectable_effect(n, spec.omega2, spec.sigma2_a, spec.sigma2_b, spec.alpha, spec.power, plan_k, plan_k)
        text += f"\nminimum detectable effect with {n} questions (k = {plan_k}): {mde:.4f}"
        text += f"\nquestions needed to detect {plan_effect} (k = {plan_k}): {sample_size(spec)}"
    return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--kind", choices=["sampled", "probability"], default="sampled")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--no-cluster", action="store_true")
    parser.add_argument("--simulate", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plan-effect", type=float, default=None)
    parser.add_argument("--plan-k", type=int, default=1)
    args = parser.parse_args(argv)
    config = ReportConfig(confidence=args.confidence, cluster_se=not args.no_cluster)
    if args.simulate:
        tables = simulate(SimConfig(), args.seed, kind=args.kind)
    else:
        tables = [load_scores(p, kind=args.kind) for p in args.paths]
    print(run(tables, config, args.plan_effect, args.plan_k))


if __name__ == "__main__":
    main()
