"""`tasks lint --run`: what only running the tests shows, through validate (the reference once, the stub once).

- `stub-passes`: the masked code passes the test: it does not discriminate;
- `reference-fails`: the golden code does not pass, with the reason (an `error` names what the environment lacks).
"""

from __future__ import annotations

from collections.abc import Callable

from lmrbench.authoring.validate import ValidateConfig, validate
from lmrbench.records import Status, parse_instance_id
from lmrbench.tasks.problems import Problem
from lmrbench.tasks.schema import Implementation, Task


def run_checks(impls: list[tuple[Task, Implementation]], workers: int = 1,
               tick: Callable[[str], None] | None = None) -> list[Problem]:
    """Run the reference and the stub of each implementation; a Problem for each one that does not behave."""
    cfg = ValidateConfig(repeat=1, wrong=False, mutants=False, workers=workers, warm=False)
    out = []
    for res in validate(impls, cfg, tick=tick):
        task_id, index = parse_instance_id(res.instance_id)
        if res.stub_status is Status.PASSED:
            out.append(Problem(task_id, index, "stub-passes", "the masked code passes the test: it does not "
                               "discriminate"))
        if res.reference_passed < res.reference_runs:
            why = "; ".join(res.reference_reasons) or "no reason recorded"
            out.append(Problem(task_id, index, "reference-fails", why[:300]))
    return out
