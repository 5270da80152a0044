"""`tasks fixtures --check`: stored expected outputs may differ from a fresh run by float rounding, never in spec."""

from __future__ import annotations

import json

from lmrbench.authoring.fixtures import spec_changes
from lmrbench.evaluate.probes import parse_probe_output


def _run(**cases: dict) -> bytes:
    value = {"t": "float", "v": "1.0"}
    rows = [{"case": name, "status": "ok", "outputs": {"x": value}, "spec": spec} for name, spec in cases.items()]
    return ("\n".join(json.dumps(r) for r in rows) + "\n").encode()


SPEC = {"compare": "close", "rtol": 1e-9, "atol": 1e-11, "dtype": True, "outputs": {}}


def test_the_same_specs_are_no_change():
    data = parse_probe_output(_run(a=SPEC, b=SPEC))
    assert spec_changes(data, parse_probe_output(_run(a=SPEC, b=SPEC))) == ""


def test_a_new_tolerance_is_a_change():
    looser = {**SPEC, "rtol": 1e-5}
    assert spec_changes(parse_probe_output(_run(a=SPEC, b=SPEC)), parse_probe_output(_run(a=SPEC, b=looser))) == "b"


def test_an_override_per_output_is_a_change():
    override = {**SPEC, "outputs": {"loss": {"dtype": False}}}
    assert spec_changes(parse_probe_output(_run(a=SPEC)), parse_probe_output(_run(a=override))) == "a"


def test_added_and_removed_cases_are_named():
    assert spec_changes(parse_probe_output(_run(a=SPEC, b=SPEC)), parse_probe_output(_run(a=SPEC, c=SPEC))) == "+c, -b"
