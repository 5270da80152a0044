"""Trusted checks for trl-sdpo/1 (never enter the sandbox).

The probe's outputs are compared with the release's by tolerance (the case specs); these checks add what paper.md
says by meaning: a divergence is never negative, and training moves the student."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, expect


@check("logit_level[*]")
def divergence_is_not_negative(out, ref):
    loss = float(out["eval_loss"])
    expect(np.isfinite(loss) and loss >= -1e-12, f"a divergence (paper.md section 3) came out as {loss}")


@check("teacher[*]")
def training_moves_the_student(out, ref):
    norm = float(np.asarray(out["update_norm"]))
    expect(np.isfinite(norm) and norm > 0, f"the student did not move: update norm {norm}")
