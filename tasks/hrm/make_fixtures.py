"""Regenerate tests/fixtures for hrm/1 (options only; the reference's outputs go to tests/expected/).

    python make_fixtures.py OUT_DIR
Writes OUT_DIR/hrm_cases.json: the (N, T) schedules and the ACT segment settings the probe runs. The model
weights and data are built in the probe from fixed seeds (element-wise RNG only, the same bytes on every host).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

SCHEDULES = [(1, 1), (1, 3), (2, 2), (3, 1), (2, 3)]
# (segment m, M_min per sequence, Q-head bias (halt, continue), M_max)
SEGMENTS = [(1, [1, 1, 2], (3.0, -3.0), 4), (1, [1, 1, 2], (-3.0, 3.0), 4), (2, [1, 2, 3], (3.0, -3.0), 4),
            (4, [1, 4, 4], (-3.0, 3.0), 4), (3, [3, 4, 2], (0.5, 0.0), 3), (2, [1, 1, 1], (0.0, 0.0), 5)]


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "hrm_cases.json").write_text(json.dumps({"schedules": SCHEDULES, "segments": SEGMENTS}, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
