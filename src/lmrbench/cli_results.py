"""The command line's commands on finished runs and outside results: judge (run, agreement, import-labels),
annotate, and predictions (from-dirs, from-openhands, from-inspect): option parsing and one library call each."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from lmrbench.annotate import AnnotateConfig, annotation_session, labels_path, load_items, make_server
from lmrbench.cli_common import (
    ApiBaseOpt,
    ConcOpt,
    FakeOpt,
    JsonOpt,
    Selection,
    TasksOpt,
    check_keys,
    emit_json,
    err,
    load_selected,
    out,
    select_tasks,
    selection_options,
    with_options,
)
from lmrbench.external import predictions_from_dirs
from lmrbench.importers.human_eval import Scale, import_labels
from lmrbench.importers.openhands import from_openhands
from lmrbench.jsonl import JsonlWriter
from lmrbench.judge.agreement import agreement_table, fleiss_agreement, load_labels
from lmrbench.judge.run import judge_run, load_judgments
from lmrbench.models import ModelSettings, get_model
from lmrbench.records import Prediction
from lmrbench.rundir import RunDir
from lmrbench.tasks.loader import TaskSet

judge_app = typer.Typer(help="LLM-as-judge: judge a run, agreement with human labels, import labels.",
                        no_args_is_help=True)
predictions_app = typer.Typer(help="Predictions from external agents.", no_args_is_help=True)
JudgeOpt = Annotated[list[str] | None, typer.Option("--judge", help="Judge model(s); several = majority vote.")]


@judge_app.command("run")
@with_options(selection_options)
def judge_run_cmd(
    sel: Selection,
    run_dir: Annotated[Path, typer.Argument(help="The run folder whose predictions are judged.")],
    judge: JudgeOpt = None,
    fake_script: FakeOpt = None,
    concurrency: ConcOpt = 4,
    api_base: ApiBaseOpt = None,
) -> None:
    """LLM-as-judge categories 1/2/3 for every prediction of a run, into judgments.jsonl (resumable)."""
    tasks, select, split, since = sel.unpack()
    check_keys(judge or [], api_base)
    ts = select_tasks(load_selected(tasks, quiet=True), select, split, since, new_work=False)
    run = RunDir(run_dir)
    if not run.predictions.is_file():
        err.print(f"[red]error:[/red] {run.predictions} does not exist")
        raise typer.Exit(2)
    if not judge:
        err.print("[red]error:[/red] give at least one --judge MODEL")
        raise typer.Exit(2)
    settings = ModelSettings(api_base=api_base)
    models = [get_model(n, settings, fake_script) for n in judge]
    results = judge_run(run_dir, ts, models, concurrency)
    counts = Counter(f"{j.judge}:{j.status.value}" for j in results)
    out.print(f"{len(results)} new judgment(s): {dict(counts)} -> {run.judgments}", highlight=False)


@judge_app.command("agreement")
def judge_agreement_cmd(
    run_dir: Annotated[Path, typer.Argument(help="The run folder whose judgments are compared.")],
    labels: Annotated[Path | None, typer.Option(dir_okay=False, help="Human labels (JSONL); default: "
                                                "RUN_DIR/labels.jsonl, as `lmrbench annotate` writes it.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Judges against human labels, annotators against each other (n, accuracy, macro-F1, Cohen's kappa), and
    Fleiss' kappa over the items every annotator labelled."""
    labels = labels or labels_path(run_dir)
    if not labels.is_file():
        err.print(f"[red]error:[/red] {labels}: no such labels file (give --labels, or label with `lmrbench "
                  "annotate`)", highlight=False)
        raise typer.Exit(2)
    try:
        human = load_labels(labels)
        rows = agreement_table(load_judgments(RunDir(run_dir).judgments), human)
        fleiss = fleiss_agreement(human)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from exc
    if as_json:
        emit_json({"pairs": [r.model_dump() for r in rows], "fleiss": fleiss.model_dump() if fleiss else None})
        return
    table = Table(title="judge agreement")
    for col in ("rater", "vs", "n", "accuracy", "macro-F1", "kappa", "confusion"):
        table.add_column(col)
    for r in rows:
        table.add_row(r.a, r.b, str(r.n), f"{r.accuracy:.1%}", f"{r.macro_f1:.3f}", f"{r.kappa:.3f}",
                      str(r.confusion))
    out.print(table)
    if fleiss:
        out.print(f"Fleiss' kappa, {len(fleiss.annotators)} annotators ({', '.join(fleiss.annotators)}) on the "
                  f"{fleiss.n} item(s) each labelled: {fleiss.kappa:.3f} (observed {fleiss.observed:.3f}, chance "
                  f"{fleiss.expected:.3f})", highlight=False)


@judge_app.command("import-labels")
def judge_import_labels_cmd(
    files: Annotated[list[Path], typer.Argument(exists=True, dir_okay=False,
                                                help="The original's human-evaluation JSON files.")],
    labels_out: Annotated[Path | None, typer.Option("--out", help="The labels JSONL to write.")] = None,
    scale: Annotated[list[str] | None, typer.Option("--scale", help="ANNOTATOR=0-2 or =1-3 (default: 0-2 when "
                                                    "the annotator used a 0).")] = None,
    tasks: TasksOpt = None,
) -> None:
    """The original benchmark's human evaluations as our labels (scales mapped onto 1-3)."""
    judge_import_labels(load_selected(tasks, quiet=True), files, labels_out, scale or [])


def annotate_cmd(  # registered as the top-level `annotate` by cli.py

    run_dir: Annotated[Path, typer.Argument(help="The run folder whose predictions are labelled.")],
    annotator: Annotated[str, typer.Option("--annotator", help="Your name, recorded with every label.")],
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Loopback port (0: a free one).")] = 8765,
    show_verdict: Annotated[bool, typer.Option("--show-verdict", help="Show the unit-test verdict and the judges' "
                                               "rationale before an item is labelled (default: only after).")] = False,
    tasks: TasksOpt = None,
) -> None:
    """Label a run's predictions by hand (1/2/3) on a local page; each label is appended to RUN_DIR/labels.jsonl."""
    if not annotator.strip() or len(annotator) > 200:
        raise typer.BadParameter("give your name, 1 to 200 characters", param_hint="--annotator")
    try:
        config = AnnotateConfig(annotator=annotator, port=port, show_verdict=show_verdict)
        items = load_items(run_dir, load_selected(tasks, quiet=True))
        session = annotation_session(run_dir, items, config)
    except (ValueError, OSError) as exc:  # RunFolderError, a corrupt labels file, a bad name, an unreadable file
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from exc
    try:
        server = make_server(session)
    except OSError as exc:
        err.print(f"[red]error:[/red] cannot serve on 127.0.0.1:{port}: {escape(str(exc))} (choose another --port, or "
                  "0 for a free one)", highlight=False)
        raise typer.Exit(2) from exc
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    out.print(f"annotating {len(items)} item(s) of {run_dir} as {annotator}: open {url}  (Ctrl-C stops; every "
              "label is saved as it is given)", highlight=False, soft_wrap=True)
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@predictions_app.command("from-dirs")
def predictions_from_dirs_cmd(
    root: Annotated[Path, typer.Argument(exists=True, file_okay=False, help="Folder of exported workspaces.")],
    model: Annotated[str, typer.Option(help="Name to record for the agent.")],
    output: Annotated[Path, typer.Option("--out", help="predictions.jsonl to append to.")],
    tasks: TasksOpt = None,
) -> None:
    """Turn revised workspaces back into predictions (target functions, else a diff)."""
    ts = load_selected(tasks)
    writer = JsonlWriter(output)
    preds = predictions_from_dirs(ts, root, model)
    for pred in preds:
        writer.write(pred)
    out.print(f"{len(preds)} prediction(s) appended to {output}", highlight=False)


def judge_import_labels(ts: TaskSet, files: list[Path], out_path: Path | None, scales: list[str]) -> None:
    """Write our labels JSONL from the original's human-evaluation JSON files."""
    parsed: dict[str, Scale] = {}
    for item in scales:
        who, _, value = item.partition("=")
        if value not in ("0-2", "1-3") or not who:
            err.print(f"[red]error:[/red] --scale {item!r}: give ANNOTATOR=0-2 or ANNOTATOR=1-3")
            raise typer.Exit(2)
        parsed[who] = value  # type: ignore[assignment]
    if not files or out_path is None or any(not f.is_file() for f in files):
        err.print("[red]error:[/red] usage: lmrbench judge import-labels FILE... --out LABELS.jsonl (files must exist)")
        raise typer.Exit(2)
    result = import_labels(files, ts, parsed)
    for problem in result.problems:
        err.print(f"[yellow]skipped:[/yellow] {problem}", highlight=False)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text("".join(lab.model_dump_json() + "\n" for lab in result.labels), encoding="utf-8")
    scales_used = ", ".join(f"{a} {s}" for a, s in result.scales.items())
    out.print(f"{len(result.labels)} label(s) -> {out_path} (scales: {scales_used})", highlight=False)


@predictions_app.command("from-openhands")
def predictions_from_openhands_cmd(
    output_jsonl: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="OpenHands output.jsonl.")],
    model: Annotated[str, typer.Option(help="Name to record for the agent.")],
    output: Annotated[Path, typer.Option("--out", help="predictions.jsonl to append to.")],
    tasks: TasksOpt = None,
) -> None:
    """Replay each trajectory's successful edits onto its task's repository: diff (or error) predictions."""
    ts = load_selected(tasks, quiet=True)
    result = from_openhands(output_jsonl, ts, model)
    _append_predictions(result.problems, result.predictions, output, "")


def _append_predictions(problems: list[str], predictions: list[Prediction], output: Path, whose: str) -> None:
    """Report what was skipped, append the predictions and say how many (and how many are errors)."""
    for problem in problems:
        err.print(f"[yellow]skipped:[/yellow] {problem}", highlight=False)
    writer = JsonlWriter(output)
    for pred in predictions:
        writer.write(pred)
    errors = sum(p.error is not None for p in predictions)
    out.print(f"{len(predictions)} prediction(s){whose} ({errors} error) appended to {output}", highlight=False)


@predictions_app.command("from-inspect")
def predictions_from_inspect_cmd(
    log: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="An Inspect eval log (.eval or .json).")],
    output: Annotated[Path, typer.Option("--out", help="predictions.jsonl to append to.")],
    tasks: TasksOpt = None,
) -> None:
    """Turn an Inspect eval log of lmrbench/prompt or lmrbench/agent into predictions (model name from the log)."""
    try:
        from lmrbench.integrations.inspect.logs import predictions_from_log
    except ImportError as exc:
        err.print(f"[red]error:[/red] {exc}; install the extra: pip install 'lmrbench[inspect]'", highlight=False)
        raise typer.Exit(2) from exc
    ts = load_selected(tasks, quiet=True)
    try:
        result = predictions_from_log(log, ts)
    except (OSError, ValueError) as exc:
        err.print(f"[red]error:[/red] {log}: not a readable Inspect log: {exc}", highlight=False)
        raise typer.Exit(2) from exc
    _append_predictions(result.problems, result.predictions, output, f" of {result.model}")


