"""Everything a report shows, gathered from one or several run directories (re-runs nothing), and the report's
files: markdown, CSV, JSON and the HTML page (html.py)."""

from __future__ import annotations

import csv
import datetime as dt
import difflib
import io
from pathlib import Path

from lmrbench.evaluate.batch import latest_evaluations, load_predictions
from lmrbench.evaluate.candidate import candidate_code, kept_candidates
from lmrbench.judge.agreement import agreement_table
from lmrbench.judge.run import load_judgments, reference_code
from lmrbench.records import COUNTED_APART, Evaluation, HumanLabel, Judgment, Prediction, Status
from lmrbench.report import strict_json
from lmrbench.report.budget_curve import budget_curves, budget_markdown
from lmrbench.report.data import FORGEABLE_NOTE, LOG_TAIL_BYTES, Drill, ReportData
from lmrbench.report.html import render
from lmrbench.report.scoring import ModelScore, score_run
from lmrbench.rundir import RunDir
from lmrbench.safefs import read_tail
from lmrbench.tasks.loader import TaskSet

__all__ = ["FORGEABLE_NOTE", "LOG_TAIL_BYTES", "Drill", "ReportData", "collect", "to_csv", "to_markdown", "write_all"]

MAX_DIFF_CHARS = 64 * 1024
MAX_REASON_CHARS = 2000


def _tail(path: str, run_dir: Path, lines: int = 60) -> str:
    """The end of a test log: at most LOG_TAIL_BYTES and `lines` lines, only from inside the run directory, never
    through a link (a 240 MB log, or a log_path naming a host file, must not end up in a report)."""
    if not path:
        return "(no log)"
    p = RunDir(run_dir).resolve(path)
    try:
        if not p.resolve().is_relative_to(run_dir.resolve()):
            return "(log outside the run directory: not shown)"
        text = read_tail(p, LOG_TAIL_BYTES)
    except (OSError, ValueError, RuntimeError):
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:])


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n... [{len(text) - limit:,} characters cut]"


def _candidate_diff(tasks: TaskSet, ev: Evaluation, pred: Prediction | None, run_dir: Path,
                    kept: dict[tuple[str, str, int], str]) -> str:
    if pred is None:
        return ""
    task, impl = tasks.resolve(ev.instance_id)
    try:
        cand = kept.get(ev.item_key)  # as the evaluation applied it
        cand = cand if cand is not None else candidate_code(task, impl, pred, RunDir(run_dir).workspaces)
    except (RecursionError, MemoryError, ValueError, OSError):  # hostile source the parser cannot take
        return "(candidate code could not be read)"
    if cand is None:
        return ""
    ref = reference_code(impl)
    if ref is None:
        return "(no reference to compare with: the task has no usable golden file)"
    diff = "".join(difflib.unified_diff(ref.splitlines(keepends=True), cand.splitlines(keepends=True),
                                        "reference", "candidate"))
    return _cap(diff, MAX_DIFF_CHARS)


def subsets(tasks: TaskSet, since: dt.date | None = None) -> dict[str, set[str]]:
    """Rows reported besides 'all': one per split present, and the implementations published on or after `since`
    (a contamination-safe subset for a model with that training cut-off)."""
    out: dict[str, set[str]] = {}
    splits = {t.split for t in tasks.tasks if t.split is not None}
    if len(splits) > 1:
        for split in sorted(splits):
            out[f"split={split}"] = {i.instance_id for t in tasks.tasks if t.split == split for i in t.implementations}
    if since is not None:
        out[f"since={since.isoformat()}"] = {i.instance_id for t in tasks.tasks if t.publication_date
                                             and t.publication_date >= since for i in t.implementations}
    return out


def _scores(rd: Path, evals: list[Evaluation], preds: list[Prediction], judgments: list[Judgment], tasks: TaskSet,
            since: dt.date | None) -> list[ModelScore]:
    out = score_run(rd.name, evals, preds, judgments, tasks)
    for name, ids in subsets(tasks, since).items():
        part = [e for e in evals if e.instance_id in ids]
        if part:
            out += [s.model_copy(update={"subset": name})
                    for s in score_run(rd.name, part, [p for p in preds if p.instance_id in ids], judgments, tasks)]
    return out


def collect(run_dirs: list[Path], tasks: TaskSet, labels: list[HumanLabel] | None = None,
            since: dt.date | None = None) -> ReportData:
    """Everything a report shows, for the implementations in `tasks` (a selection leaves the rest out)."""
    scores, drills, all_judgments, curves = [], [], [], []
    selected = {i.instance_id for i in tasks.instances()}
    for rd in run_dirs:
        run = RunDir(rd)
        evals = [e for e in latest_evaluations(run.evaluations) if e.instance_id in selected]
        if not evals:
            raise FileNotFoundError(f"{rd / 'evaluations.jsonl'}: no evaluations of the selected implementations "
                                    "(run `lmrbench evaluate` first)")
        preds = [p for p in load_predictions(run.predictions, tasks)[0] if p.instance_id in selected]
        judgments = load_judgments(run.judgments)
        all_judgments += judgments
        scores += _scores(rd, evals, preds, judgments, tasks, since)
        curves += budget_curves(rd.name, evals, preds)
        by_pred = {p.item_key: p for p in preds}
        kept = kept_candidates(run)
        for ev in sorted(evals, key=lambda e: (e.model, e.instance_id, e.sample)):
            diff = _candidate_diff(tasks, ev, by_pred.get(ev.item_key), rd, kept)
            notes = [(j.judge, f"category {j.category}: {j.rationale}" if j.category else f"{j.status}: {j.detail}")
                     for j in judgments if j.item_key == ev.item_key]
            drills.append(Drill(instance_id=ev.instance_id, model=ev.model, sample=ev.sample, status=ev.status,
                                tests_passed=ev.tests_passed, tests_total=ev.tests_total,
                                reason=_cap(ev.reason, MAX_REASON_CHARS),
                                cause=ev.cause.value if ev.cause else "",
                                log_rule=ev.legacy.log_rule if ev.legacy else None,
                                diff=diff, log_tail=_tail(ev.log_path, rd), judge_notes=notes))
    scores.sort(key=lambda s: (s.subset != "all", s.subset, -s.pass_rate.value))
    agree = agreement_table(all_judgments, labels) if labels else []
    return ReportData(runs=[str(r) for r in run_dirs], scores=scores, drills=drills, agreement=agree,
                      budget_curves=curves)


def to_markdown(data: ReportData) -> str:
    lines = ["# lmrbench results", "", f"Runs: {', '.join(data.runs)}", "",
             "| model | setting | impls | pass rate (95% CI) | test share | pass@k | judge 3/2/1/none | "
             + "".join(f"{st.column.replace('_', ' ')} | " for st in COUNTED_APART) + "tokens | cost $ |",
             "|---" * 13 + "|"]
    for s in data.scores:
        pak = ", ".join(f"@{k} {v:.1%}" for k, v in sorted(s.pass_at_k.items()))
        jd = "/".join(str(s.judge_distribution.get(c, 0)) for c in ("3", "2", "1", "none"))
        sc = s.status_counts
        lines.append(f"| {s.label()} | {s.setting} | {s.implementations} | {s.pass_rate.value:.1%} "
                     f"({s.pass_rate.ci_low:.1%}-{s.pass_rate.ci_high:.1%}) | {s.test_share.value:.1%} | "
                     f"{pak} | {jd} | "
                     + "".join(f"{sc.get(st, 0)} | " for st in COUNTED_APART)
                     + f"{s.usage.input_tokens + s.usage.output_tokens:,} | "
                     f"{s.usage.cost_usd:.4f} |")
    cats = sorted({c for s in data.scores for c in s.per_category})
    lines += ["", "## Per category (pass rate)", "", "| category | " + " | ".join(s.model for s in data.scores) + " |",
              "|---" * (len(data.scores) + 1) + "|"]
    for c in cats:
        vals = [f"{s.per_category[c].value:.1%} (n={s.per_category[c].n})" if c in s.per_category else "-"
                for s in data.scores]
        lines.append(f"| {c} | " + " | ".join(vals) + " |")
    lines += _original_rule_md(data) + _unmeasured_md(data) + _model_errors_md(data) + _forgeable_md(data)
    lines += budget_markdown(data.budget_curves)
    if data.agreement:
        lines += ["", "## Judge agreement", "", "| rater | vs | n | accuracy | macro-F1 | kappa |", "|---" * 6 + "|"]
        lines += [f"| {a.a} | {a.b} | {a.n} | {a.accuracy:.1%} | {a.macro_f1:.3f} | {a.kappa:.3f} |"
                  for a in data.agreement]
    lines += ["", "## Implementations", "", "| instance | model | sample | status | tests | reason |",
              "|---|---|---|---|---|---|"]
    lines += [f"| {d.instance_id} | {d.model} | {d.sample} | {d.status} | {d.tests_passed}/{d.tests_total} | "
              f"{d.reason.replace('|', '/')[:100]} |" for d in data.drills]
    return "\n".join(lines) + "\n"


def _original_rule_md(data: ReportData) -> list[str]:
    rows = [s for s in data.scores if s.log_rule_rate is not None]
    if not rows:
        return []
    lines = ["", "## The original's log rule (the paper's figure) beside the strict verdict", "",
             "The log rule passes a log with a 'Passed' and no 'Failed'; strict also needs exit code 0.", "",
             "| model | strict pass rate | log-rule pass rate | rows that differ |", "|---|---|---|---|"]
    for s in rows:
        assert s.log_rule_rate is not None
        lines.append(f"| {s.model} | {s.pass_rate.value:.1%} | {s.log_rule_rate.value:.1%} | "
                     f"{', '.join(s.log_rule_differs) or 'none'} |")
    return lines


def _unmeasured_md(data: ReportData) -> list[str]:
    rows = [s for s in data.scores if s.error_causes]
    if not rows:
        return []
    lines = ["", "## Environment errors (counted apart from failures)", "",
             "| model | errors by cause | implementations not measured |", "|---|---|---|"]
    for s in rows:
        causes = ", ".join(f"{k} {v}" for k, v in s.error_causes.items())
        lines.append(f"| {s.model} | {causes} | {'; '.join(s.unmeasured) or 'none'} |")
    return lines


def _model_errors_md(data: ReportData) -> list[str]:
    rows = [s for s in data.scores if s.model_errors and s.subset == "all"]
    if not rows:
        return []
    lines = ["", "## Model errors: no answer from the provider (outside the pass rate; re-run to retry)", "",
             "Each request below still failed after its retries (connection, 5xx, credentials). Re-running the "
             "same `lmrbench run` (or `generate`) retries exactly these items.", "",
             "| model | items | re-run to retry |", "|---|---|---|"]
    for s in rows:
        lines.append(f"| {s.model} | {len(s.model_errors)} | {', '.join(s.model_errors)} |")
    return lines




def _forgeable_md(data: ReportData) -> list[str]:
    rows = [s for s in data.scores if s.forgeable_passes and s.subset == "all"]
    if not rows:
        return []
    lines = ["", "## Passes a candidate could forge (in-process grading, counted apart)", "", FORGEABLE_NOTE, "",
             "| model | forgeable passes | of all passes | items |", "|---|---|---|---|"]
    for s in rows:
        passed = s.status_counts.get(Status.PASSED, 0)
        lines.append(f"| {s.model} | {len(s.forgeable_passes)} | {passed} | {', '.join(s.forgeable_passes)} |")
    return lines


def to_csv(data: ReportData) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["run", "model", "setting", "implementations", "samples", "pass_rate", "ci_low", "ci_high",
                "test_share", "pass_at_1", *(st.column for st in COUNTED_APART[:3]), "input_tokens",
                "output_tokens", "cost_usd", "forgeable_passes", Status.MODEL_ERROR.column])
    for s in data.scores:
        sc = s.status_counts
        w.writerow([s.run, s.model, s.setting, s.implementations, s.samples, f"{s.pass_rate.value:.6f}",
                    f"{s.pass_rate.ci_low:.6f}", f"{s.pass_rate.ci_high:.6f}", f"{s.test_share.value:.6f}",
                    f"{s.pass_at_k.get(1, float('nan')):.6f}", *(sc.get(st, 0) for st in COUNTED_APART[:3]),
                    s.usage.input_tokens, s.usage.output_tokens, f"{s.usage.cost_usd:.6f}",
                    len(s.forgeable_passes), sc.get(Status.MODEL_ERROR, 0)])
    return buf.getvalue()


def write_all(data: ReportData, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {"report.md": to_markdown(data), "report.csv": to_csv(data), "report.html": render(data),
             "report.json": strict_json.dumps(data.model_dump(mode="json"), indent=1)}
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    return [out / n for n in files]
