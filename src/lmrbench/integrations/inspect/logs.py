"""An Inspect eval log (.eval or .json) back into lmrbench predictions, so that our reports and judge work on it.

A sample the lmrbench scorer scored carries the exact prediction it evaluated; an unscored prompt-setting sample
gets the prompt solver's extraction on its completion; a sample Inspect could not finish (provider failure,
sandbox failure) is an error prediction with outcome model_error, as the prompt solver records a provider failure;
anything else is an error prediction that says why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai.log import EvalSample, read_eval_log
from pydantic import BaseModel, Field, ValidationError

from lmrbench.records import Outcome, Prediction, PredictionMeta
from lmrbench.solvers.prompt import PROMPT_VERSION, answer_prediction
from lmrbench.tasks.loader import TaskSet


class InspectImport(BaseModel):
    """What a log gave: one prediction per sample and epoch, and the samples that could not be read."""

    model: str = Field(description="The model the log ran (Inspect's provider/model name).")
    predictions: list[Prediction] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list, description="Samples skipped, each with the reason.")


def _scored(sample: EvalSample) -> dict[str, Any] | None:
    for score in (sample.scores or {}).values():
        if isinstance(score.metadata, dict) and isinstance(score.metadata.get("prediction"), dict):
            return score.metadata["prediction"]
    return None


def _with_origin(pred: Prediction, model: str, epoch: int, origin: dict[str, object]) -> Prediction:
    meta = PredictionMeta.model_validate(pred.meta.model_dump() | origin)
    return pred.model_copy(update={"model": model, "sample": epoch - 1, "meta": meta})


def sample_prediction(ts: TaskSet, sample: EvalSample, model: str, origin: dict[str, object]) -> Prediction:
    """One sample's prediction; raises KeyError or ValueError for a sample that is not an lmrbench one."""
    meta = sample.metadata or {}
    if "instance_id" not in meta:
        raise KeyError("no instance_id in its metadata: not a sample of an lmrbench task")
    task, impl = ts.resolve(str(meta["instance_id"]))
    scored = _scored(sample)
    if scored is not None:
        return _with_origin(Prediction.model_validate(scored), model, sample.epoch, origin)
    base = {"instance_id": impl.instance_id, "model": model, "sample": sample.epoch - 1}
    if sample.error is not None:  # Inspect leaves such a sample unscored: never a verdict on the model's code
        return Prediction(**base, error=f"inspect sample error (re-run it with `inspect eval-retry`): "
                          f"{sample.error.message[:2000]}",
                          meta=PredictionMeta.model_validate({"solver": meta.get("setting", "unknown"),
                                                              "outcome": Outcome.MODEL_ERROR, **origin}))
    if meta.get("setting") == "prompt":
        info = {"solver": "prompt", "prompt_version": PROMPT_VERSION, "paper_source": meta.get("paper_source", ""),
                "harness": "inspect", **origin}
        return answer_prediction(task, impl, sample.output.completion, model, sample.epoch - 1,
                                 PredictionMeta.model_validate(info))
    return Prediction(**base, error="the log holds no scored workspace for this agent sample (score it with the "
                      "lmrbench scorer)", meta=PredictionMeta.model_validate({"solver": "external", **origin}))


def predictions_from_log(path: Path, ts: TaskSet) -> InspectImport:
    """Every sample of the log; a log that cannot be read raises (OSError, ValueError) with the reason."""
    log = read_eval_log(str(path))
    model = log.eval.model
    result = InspectImport(model=model)
    origin: dict[str, object] = {"harness": "inspect", "inspect_log": str(path), "inspect_task": log.eval.task}
    for sample in log.samples or []:
        try:
            result.predictions.append(sample_prediction(ts, sample, model, origin))
        except (KeyError, ValueError, ValidationError) as exc:
            why = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            result.problems.append(f"sample {sample.id} (epoch {sample.epoch}): {why}")
    if not log.samples:
        result.problems.append(f"{path}: the log holds no samples (status {log.status})")
    return result
