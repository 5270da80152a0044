"""Regenerate tests/fixtures for mor/1 (options only; the reference's outputs go to tests/expected/).

    python make_fixtures.py OUT_DIR
Writes OUT_DIR/mor_cases.json: the configurations the probe runs. Weights, hidden states and token ids are built
in the probe from fixed seeds (element-wise RNG only, the same bytes on every host).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

CAPACITY = [(1, 1), (6, 3), (7, 3), (5, 2), (9, 4), (3, 5), (10, 1), (8, 4)]
# (B, T, k, seed)
SELECT = [(2, 7, 3, 0), (3, 5, 1, 1), (1, 6, 6, 2), (2, 8, 0, 3), (4, 9, 4, 4)]
# (n_layers, n_recursions, alpha, kv_sharing, mode, T, seed, causal fix)
EXPERT = [(1, 3, 1.0, False, "topk", 7, 0, "aux_loss"), (2, 3, 1.0, False, "topk", 9, 1, "aux_loss"),
          (2, 4, 0.5, False, "topk", 8, 2, "aux_loss"), (1, 2, 2.0, True, "topk", 6, 3, "aux_loss"),
          (2, 3, 1.0, True, "topk", 7, 4, "aux_loss"), (1, 1, 1.0, False, "topk", 5, 5, "aux_loss"),
          (2, 3, 1.0, False, "threshold", 8, 6, "aux_loss"), (1, 4, 0.5, True, "threshold", 7, 7, "aux_loss"),
          (2, 3, 1.0, False, "topk", 8, 8, "aux_router"), (1, 3, 1.0, False, "threshold", 9, 9, "aux_router")]
# (n_layers, n_recursions, alpha, kv_sharing, T, seed)
TOKEN = [(1, 3, 1.0, False, 7, 0), (2, 3, 0.5, False, 9, 1), (2, 4, 2.0, True, 8, 2), (1, 2, 1.0, True, 6, 3),
         (1, 1, 1.0, False, 5, 4)]
# (routing, n_layers, n_recursions, kv_sharing, B, T, seed, sharing scheme, causal fix)
DECODE = [("expert", 1, 3, False, 2, 6, 0, "cycle", "aux_loss"), ("expert", 2, 3, True, 3, 5, 1, "cycle", "aux_loss"),
          ("token", 2, 3, False, 2, 6, 2, "cycle", "aux_loss"), ("token", 1, 4, True, 2, 5, 3, "cycle", "aux_loss"),
          ("expert", 2, 4, False, 1, 7, 4, "cycle", "aux_loss"), ("expert", 1, 3, False, 2, 6, 5, "middle_cycle", "aux_loss"),
          ("token", 1, 3, True, 2, 5, 6, "middle_cycle", "aux_loss"),
          ("expert", 2, 3, False, 2, 6, 7, "middle_cycle", "aux_router")]
# (routing, n_layers, n_recursions, kv_sharing, B, prompt length, total length, seed, sharing scheme, causal fix)
PREFILL = [("expert", 2, 3, False, 2, 5, 8, 0, "cycle", "aux_loss"), ("expert", 1, 4, True, 2, 4, 7, 1, "cycle", "aux_loss"),
           ("token", 2, 3, False, 3, 4, 6, 2, "cycle", "aux_loss"), ("token", 1, 3, True, 1, 6, 8, 3, "cycle", "aux_loss"),
           ("expert", 1, 2, False, 2, 1, 4, 4, "cycle", "aux_loss"), ("expert", 2, 3, True, 2, 4, 7, 5, "middle_cycle", "aux_loss"),
           ("token", 1, 3, False, 2, 3, 6, 6, "middle_cycle", "aux_loss"),
           ("expert", 1, 3, True, 2, 3, 7, 7, "cycle", "aux_router")]
# (routing, sharing scheme, kv_sharing, mode, seed, causal fix)
MODEL = [("expert", "middle_cycle", False, "topk", 0, "aux_loss"), ("expert", "middle_cycle", True, "threshold", 1, "aux_loss"),
         ("token", "middle_cycle", False, "topk", 2, "aux_loss"), ("token", "cycle", True, "topk", 3, "aux_loss"),
         ("expert", "middle_cycle", False, "topk", 4, "aux_router")]


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    data = {"capacity": CAPACITY, "select": SELECT, "expert": EXPERT, "token": TOKEN, "decode": DECODE, "prefill": PREFILL, "model": MODEL}
    (out / "mor_cases.json").write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
