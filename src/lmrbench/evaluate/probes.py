"""Trusted side of probe grading: read the data a probe run emitted, compare it with the reference's, run the
task's checks. Nothing here imports or executes candidate code; everything read from a sandbox is capped and
parsed as plain data (JSON and raw array bytes, never pickle)."""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from lmrbench.checks import CheckFailed, CheckSet, load_checks, matches
from lmrbench.evaluate.causes import missing_module
from lmrbench.safefs import read_file

MAX_OUTPUT_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 32 * 1024 * 1024
MAX_ARRAY_ELEMENTS = 20_000_000
ARRAY_DTYPES = {"|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8", "<c8", "<c16"}

Value = np.ndarray | int | float | bool | str | None | tuple[str, Any]


class OutputSpec(BaseModel):
    """How one output is compared with the reference's."""

    compare: Literal["close", "exact", "none"] = "close"
    rtol: float = Field(default=1e-5, ge=0)
    atol: float = Field(default=1e-8, ge=0)
    dtype: bool = Field(default=True, description="Arrays must have the reference's dtype.")


class CaseSpec(OutputSpec):
    """A case's comparison spec, as the reference run recorded it; `outputs` overrides it per key pattern."""

    outputs: dict[str, dict[str, Any]] = Field(default_factory=dict)

    def for_key(self, key: str) -> OutputSpec:
        merged = self.model_dump(exclude={"outputs"})
        for pattern, override in self.outputs.items():
            if matches(key, pattern):
                merged.update(override)
        return OutputSpec.model_validate(merged)


@dataclass
class CaseData:
    """One case of a probe run, decoded."""

    name: str
    status: Literal["ok", "raised"]
    outputs: dict[str, Value] = field(default_factory=dict)
    raised: list[str] = field(default_factory=list)
    message: str = ""
    seconds: float = 0.0
    spec: CaseSpec = field(default_factory=CaseSpec)
    _specs: dict[str, OutputSpec] = field(default_factory=dict, init=False, repr=False, compare=False)

    def spec_for(self, key: str) -> OutputSpec:
        """The comparison spec of output `key` (memoised: an expected case meets every candidate's)."""
        spec = self._specs.get(key)
        if spec is None:
            spec = self._specs[key] = self.spec.for_key(key)
        return spec


@dataclass
class ProbeData:
    """Everything a probe run emitted; `problem` says why it is unusable when it is."""

    cases: dict[str, CaseData] = field(default_factory=dict)
    import_errors: list[str] = field(default_factory=list)
    done: bool = False
    problem: str = ""


class ProbeFormatError(ValueError):
    """The emitted data is not what the probe runner writes."""


# ---------------------------------------------------------------- reading (untrusted bytes)


def read_capped(path: Path, limit: int = MAX_OUTPUT_BYTES) -> bytes | None:
    """A regular file's bytes (no link followed, at most `limit`), or None when it is not that."""
    try:
        return read_file(path, limit)
    except (OSError, ValueError):  # missing, or UnsafePath: a link, a FIFO, over the cap
        return None


def _decode_array(raw: dict[str, Any]) -> np.ndarray:
    store = raw.get("store")
    shape = raw.get("shape")
    if store not in ARRAY_DTYPES or not isinstance(shape, list) or not all(isinstance(n, int) and n >= 0
                                                                          for n in shape):
        raise ProbeFormatError("bad array header")
    count = math.prod(shape)
    if count > MAX_ARRAY_ELEMENTS or len(shape) > 32:
        raise ProbeFormatError("array too large")
    data = base64.b64decode(str(raw.get("b64", "")), validate=True)
    dtype = np.dtype(store)
    if len(data) != count * dtype.itemsize:
        raise ProbeFormatError("array size does not match its shape")
    return np.frombuffer(data, dtype=dtype).reshape(shape)


def decode_value(raw: Any) -> Value:
    """One emitted value; containers and unsupported values decode to a (kind, detail) marker."""
    if not isinstance(raw, dict):
        raise ProbeFormatError("value is not an object")
    kind = raw.get("t")
    if kind == "array":
        return _decode_array(raw)
    if kind == "float":
        return float(str(raw.get("v")))
    if kind == "int":
        text = str(raw.get("v"))
        if len(text) > 400:
            raise ProbeFormatError("integer too long")
        return int(text)
    if kind == "bool":
        return bool(raw.get("v"))
    if kind == "str":
        return str(raw.get("v"))[:10_000]
    if kind == "none":
        return None
    if kind == "seq":
        return ("seq", int(raw.get("n", -1)))
    if kind == "map":
        return ("map", ",".join(str(k) for k in raw.get("keys", [])))
    return ("unsupported", str(raw.get("v"))[:200])


def array_dtypes(raw_outputs: dict[str, Any]) -> dict[str, str]:
    return {k: str(v.get("dtype")) for k, v in raw_outputs.items() if isinstance(v, dict) and v.get("t") == "array"}


def finite_seconds(value: Any) -> float:
    """A duration the candidate's process reported, as a finite non-negative number (0.0 when it is not one): a
    NaN, an infinity or text never reaches a record."""
    try:
        seconds = float(value)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return seconds if math.isfinite(seconds) and seconds >= 0 else 0.0


def _case_from_row(row: dict[str, Any]) -> CaseData:
    name = str(row["case"])[:300]
    spec = CaseSpec.model_validate(row.get("spec") or {})
    if row.get("status") == "ok":
        raw = row.get("outputs")
        if not isinstance(raw, dict):
            raise ProbeFormatError("outputs is not an object")
        outputs: dict[str, Value] = {str(k)[:300]: decode_value(v) for k, v in raw.items()}
        for k, dt in array_dtypes(raw).items():
            outputs[f"{k}#dtype"] = dt
        return CaseData(name, "ok", outputs, seconds=finite_seconds(row.get("seconds", 0.0)), spec=spec)
    raised = [str(t)[:100] for t in row.get("raised", [])][:50]
    return CaseData(name, "raised", raised=raised, message=str(row.get("message", ""))[:500],
                    seconds=finite_seconds(row.get("seconds", 0.0)), spec=spec)


def parse_probe_output(data: bytes) -> ProbeData:
    """Decode a probe run's JSONL; a malformed line makes the whole run unusable (a forgery or a crash)."""
    out = ProbeData()
    for number, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            if len(line) > MAX_LINE_BYTES:
                raise ProbeFormatError("line too long")
            row = json.loads(line)
            if not isinstance(row, dict):
                raise ProbeFormatError("line is not an object")
            if row.get("done") is True:
                out.done = True
            elif "case" in row:
                c = _case_from_row(row)
                out.cases.setdefault(c.name, c)
            elif row.get("status") == "import_error":
                out.import_errors.append(f"{row.get('module')}: {row.get('raised', ['?'])[0]}: "
                                         f"{str(row.get('message', ''))[:300]}")
        except (ProbeFormatError, ValueError, TypeError, KeyError, RecursionError, ValidationError) as exc:
            if out.done or number == len(data.split(b"\n")):
                break  # a line cut off by a timeout or a kill
            return ProbeData(problem=f"probe output line {number} is malformed: {str(exc)[:200]}")
    return out


def read_probe_output(path: Path) -> ProbeData:
    data = read_capped(path)
    if data is None:
        return ProbeData(problem="no probe output (missing, not a regular file, or over the size cap)")
    return parse_probe_output(data)


# ---------------------------------------------------------------- comparing (trusted)


def _as_array(v: Value) -> np.ndarray | None:
    if isinstance(v, np.ndarray):
        return v
    if isinstance(v, (bool, int, float)) and not isinstance(v, tuple):
        try:
            return np.asarray(v, dtype=np.float64 if not isinstance(v, bool) else np.bool_)
        except OverflowError:
            return None
    return None


def _close(got: np.ndarray, want: np.ndarray, spec: OutputSpec) -> str:
    if got.shape != want.shape:
        return f"shape {list(got.shape)} != {list(want.shape)}"
    if want.dtype.kind == "b" or got.dtype.kind == "b" or spec.compare == "exact":
        equal = np.array_equal(got, want, equal_nan=want.dtype.kind in "fc" and got.dtype.kind in "fc")
        return "" if equal else "values differ"
    g = got.astype(np.complex128 if "c" in (got.dtype.kind, want.dtype.kind) else np.float64)
    w = want.astype(g.dtype)
    if np.array_equal(g, w, equal_nan=True):
        return ""
    with np.errstate(invalid="ignore", over="ignore"):
        ok = (np.abs(g - w) <= spec.atol + spec.rtol * np.abs(w)) | (g == w) | (np.isnan(g) & np.isnan(w))
    if bool(ok.all()):
        return ""
    bad = int((~ok).sum())
    idx = tuple(int(i) for i in np.argwhere(~ok)[0])
    return f"{bad} of {ok.size} values differ, e.g. at {list(idx)}: got {g[idx]!r}, want {w[idx]!r}"


def compare_value(key: str, got: Value, want: Value, spec: OutputSpec) -> str:
    """'' when `got` matches `want` under `spec`, else why not."""
    if spec.compare == "none" or (key.endswith("#dtype") and not spec.dtype):
        return ""
    if _identical(got, want):
        return ""
    gw, ww = _as_array(got), _as_array(want)
    if ww is not None and gw is not None:
        return _close(gw, ww, spec)
    if type(got) is not type(want) or got != want:  # types first: an array never meets == with anything else
        return f"got {_show(got)}, want {_show(want)}"
    return ""


def _identical(got: Value, want: Value) -> bool:
    """A fast path, never a different verdict: values identical in type and content (bit for bit, for arrays)
    pass every comparison mode (NaN matches NaN wherever a comparison lets it)."""
    if isinstance(got, np.ndarray) and isinstance(want, np.ndarray):
        return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()
    return type(got) is type(want) and type(got) in (int, float, str, bool) and got == want


def _show(value: Value) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {list(value.shape)}"
    return repr(str(value)[:80]) if value is not None else "None"


def compare_case(got: CaseData | None, want: CaseData) -> str:
    """'' when a candidate's case matches the reference's (default comparison), else why not."""
    if got is None:
        return "case did not run"
    if want.status == "raised":
        expected = want.raised[0] if want.raised else "an exception"
        if got.status != "raised" or expected not in got.raised:
            return f"expected {expected} to be raised" + ("" if got.status == "ok" else f", got {got.raised[:1]}")
        return ""
    if got.status == "raised":
        return f"raised {got.raised[0] if got.raised else '?'}: {got.message[:200]}"
    for key, value in want.outputs.items():
        spec = want.spec_for(key.split("#")[0])
        if key not in got.outputs:
            if key.endswith("#dtype"):
                if spec.dtype and spec.compare != "none":
                    return f"{key[:-6]}: not an array or tensor (the reference returns {value})"
                continue
            return f"output '{key}' missing"
        why = compare_value(key, got.outputs[key], value, spec)
        if why:
            return f"{key}: {why}"
    return ""


@dataclass
class CaseResult:
    name: str
    passed: bool
    reason: str = ""


def check_cases(got: ProbeData, want: ProbeData, checks: CheckSet) -> list[CaseResult]:
    """Every expected case: the default comparison, then the task's own checks on the case's outputs."""
    results = []
    for name, expected in want.cases.items():
        candidate = got.cases.get(name)
        try:
            why = compare_case(candidate, expected)
        except Exception as exc:
            why = f"outputs not comparable: {type(exc).__name__}: {str(exc)[:200]}"
        if not why and candidate is not None and candidate.status == "ok":
            try:
                checks.run(name, candidate.outputs, expected.outputs)
            except (CheckFailed, AssertionError) as exc:
                why = f"check: {str(exc)[:300]}"
            except Exception as exc:
                why = f"check raised {type(exc).__name__}: {str(exc)[:200]}"
        results.append(CaseResult(name, not why, why))
    return results


def reported_missing(data: ProbeData, lacking: Container[str]) -> str | None:
    """A module the run reports missing that the trusted evidence says the environment lacks (an environment
    error, not the candidate's failure); a message alone is never enough."""
    messages = list(data.import_errors) + [c.message for c in data.cases.values() if "ModuleNotFoundError" in c.raised]
    return missing_module(messages, lacking)


def expected_path(tests_dir: Path, probe_rel: str) -> Path:
    """Where the reference's outputs for a probe file live: `tests/expected/<probe stem>.jsonl`."""
    return tests_dir / "expected" / f"{Path(probe_rel).stem}.jsonl"


def checks_path(tests_dir: Path, probe_rel: str) -> Path:
    """The trusted checks beside a probe file: `probe_x.py` -> `check_x.py`."""
    stem = Path(probe_rel).stem
    return tests_dir / Path(probe_rel).parent / f"check_{stem.removeprefix('probe_')}.py"


def task_checks(tests_dir: Path, probe_rel: str) -> CheckSet:
    path = checks_path(tests_dir, probe_rel)
    return load_checks(path) if path.is_file() else CheckSet()
