"""Trusted checks for probe cases: what a task author writes in `tests/check_<name>.py`.

A check file never enters the sandbox. The harness loads it in its own process and calls each registered check
with a case's outputs, decoded as plain data (numpy arrays, numbers, strings), after the default comparison
with the reference's outputs has passed:

    from lmrbench.checks import check, close, expect

    @check("hand_values")
    def hand_values(out, ref):
        # -log sigmoid(1) = log(1 + e^-1)
        close(out["losses"], 0.31326168751822286, rtol=1e-12)

    @check("shift_invariance[*]")          # fnmatch pattern over case names
    def shift(out, ref):
        close(out["base"], out["shifted"], rtol=1e-9, atol=1e-12)

Hand-checked literals and properties (invariances, limits, finiteness) live here, so neither the values nor the
comparisons are visible to, or patchable by, the candidate.
"""

from __future__ import annotations

import fnmatch
import functools
import importlib.util
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

CheckFn = Callable[[dict[str, Any], dict[str, Any]], None]
_LOADING = threading.local()
_LOCK = threading.Lock()


class CheckFailed(AssertionError):
    """A trusted check found the candidate's outputs wrong."""


@dataclass
class CheckSet:
    """The checks of one probe file, by case-name pattern."""

    checks: list[tuple[str, CheckFn]] = field(default_factory=list)

    def run(self, case: str, out: dict[str, Any], ref: dict[str, Any]) -> None:
        for pattern, fn in self.checks:
            if matches(case, pattern):
                fn(out, ref)

    def patterns(self) -> list[str]:
        return [p for p, _ in self.checks]


@functools.lru_cache(maxsize=65536)
def matches(name: str, pattern: str) -> bool:
    """`*` and `?` are wildcards; everything else, brackets included, is literal ("case[*]" matches "case[3]").
    Memoised: grading asks the same (case, pattern) questions for every candidate of a task."""
    return fnmatch.fnmatchcase(name, pattern.replace("[", "[[]"))


def check(pattern: str) -> Callable[[CheckFn], CheckFn]:
    """Register `fn(out, ref)` for the cases whose name matches `pattern`."""

    def register(fn: CheckFn) -> CheckFn:
        target: CheckSet | None = getattr(_LOADING, "target", None)
        if target is None:
            raise RuntimeError("checks register only while the harness loads a check file")
        target.checks.append((pattern, fn))
        return fn

    return register


_CACHE: dict[tuple[str, float], CheckSet] = {}


def load_checks(path: Path) -> CheckSet:
    """Import a check file (trusted task code) and return what it registered; cached by path and mtime."""
    key = (str(path.resolve()), path.stat().st_mtime)
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
        found = CheckSet()
        _LOADING.target = found
        try:
            spec = importlib.util.spec_from_file_location(f"_lmrbench_checks_{abs(hash(key))}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
        finally:
            _LOADING.target = None
        _CACHE[key] = found
        return found


# ---------------------------------------------------------------- helpers for check bodies


def expect(condition: object, message: str) -> None:
    """Fail the case with `message` unless `condition` holds (plain `assert` vanishes under python -O)."""
    if not condition:
        raise CheckFailed(message)


def _array(value: Any, what: str) -> np.ndarray:
    if isinstance(value, tuple):
        raise CheckFailed(f"{what}: not a value ({value[0]})")
    try:
        return np.asarray(value, dtype=np.complex128 if np.iscomplexobj(value) else np.float64)
    except (TypeError, ValueError) as exc:
        raise CheckFailed(f"{what}: not numeric ({type(value).__name__})") from exc


def close(got: Any, want: Any, rtol: float = 1e-7, atol: float = 0.0, what: str = "value",
          equal_nan: bool = False) -> None:
    """Element-wise |got - want| <= atol + rtol * |want| with equal shapes (scalars broadcast to `got`); NaN
    matches NaN only with `equal_nan` (two of the candidate's own outputs both NaN prove nothing)."""
    g, w = _array(got, what), _array(want, what)
    if w.ndim and g.shape != w.shape:
        raise CheckFailed(f"{what}: shape {list(g.shape)} != {list(w.shape)}")
    ok = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if not bool(np.all(ok)):
        bad = np.argwhere(~np.broadcast_to(ok, g.shape))
        at = tuple(int(i) for i in bad[0]) if bad.size else ()
        raise CheckFailed(f"{what}: {int((~ok).sum())} value(s) differ, e.g. at {list(at)}: got "
                          f"{g[at] if g.ndim else g!r}, want {np.broadcast_to(w, g.shape)[at] if g.ndim else w!r}")


def equal(got: Any, want: Any, what: str = "value") -> None:
    """Exact equality: arrays element-wise with equal shapes, anything else with ==."""
    if isinstance(got, np.ndarray) or isinstance(want, np.ndarray):
        g, w = np.asarray(got), np.asarray(want)
        if g.shape != w.shape or not np.array_equal(g, w):
            raise CheckFailed(f"{what}: arrays differ")
        return
    if got != want:
        raise CheckFailed(f"{what}: got {str(got)[:80]!r}, want {str(want)[:80]!r}")


def finite(got: Any, what: str = "value") -> None:
    """Every element finite."""
    if not bool(np.all(np.isfinite(_array(got, what)))):
        raise CheckFailed(f"{what}: non-finite values")
