"""Trusted checks for empathy/1 (never enter the sandbox): hand-checked values and the gap's properties, on the
outputs probe_empathy_gap.py emitted. The default comparison with the reference's outputs has already passed."""

from __future__ import annotations

from lmrbench.checks import check, close, equal

ATOL = 1e-12


def gap(out: dict, want: float, tol: float = ATOL, prefix: str = "") -> None:
    """The old tests' `check`: a Python float within `tol` (absolute) of `want`."""
    equal(out[f"{prefix}is_float"], True, what=f"{prefix}gap is a Python float")
    close(out[f"{prefix}gap"], want, rtol=0, atol=tol, what=f"{prefix}gap")


# --------------------------------------------------------------------------- differential


@check("matches_reference*")
def python_float(out, ref):
    gap(out, ref["gap"])


# --------------------------------------------------------------------------- by hand


@check("hand_computed_diagonal_gap")
def diagonal(out, ref):
    # Every label its own group: in-group = diagonal 3, 4, 5 -> mean 4;
    # out-group = 1, 2, 0, 1, 2, 2 -> mean 8/6. Gap = 4 - 4/3 = 8/3 = 2.6666666666666665
    gap(out, 8.0 / 3.0)


@check("hand_computed_gap_with_social_groups")
def social_groups(out, ref):
    # A1 and A2 are one group: in-group cells (A1,A1)=3, (A1,A2)=1, (A2,A1)=0, (A2,A2)=4, (B1,B1)=5 -> 13/5 = 2.6;
    # out-group cells (A1,B1)=2, (A2,B1)=1, (B1,A1)=2, (B1,A2)=2 -> 7/4 = 1.75. Gap = 2.6 - 1.75 = 0.85
    gap(out, 0.85)


@check("hand_computed_gap_ignores_neutral_identity")
def neutral(out, ref):
    # The neutral row and column hold huge values and are left out: the gap is the 3x3 one, 8/3.
    gap(out, 8.0 / 3.0, prefix="excluded.")
    # Kept (exclude=()), the neutral identity is its own group: in-group 3, 4, 5, 1e6 -> (12 + 1e6)/4;
    # out-group: the 6 off-diagonal HAND cells (sum 8) and the 6 neutral off-diagonal cells (1e6 each) -> (8 + 6e6)/12
    gap(out, (12 + 1e6) / 4 - (8 + 6e6) / 12, tol=1e-7, prefix="kept.")


@check("membership_follows_labels_not_positions")
def labels_not_positions(out, ref):
    # Same matrix with the columns listed in another order: the in-group cells are still A1/A1, A2/A2, B1/B1.
    gap(out, 8.0 / 3.0, prefix="diagonal.")
    gap(out, 0.85, prefix="groups.")


# --------------------------------------------------------------------------- properties


@check("affine_equivariance*")
def affine(out, ref):
    # Adding a constant to every cell leaves the gap unchanged; a positive factor scales it. (The old test
    # compared with 3.5 times the reference's stored gap of the unchanged matrix.)
    gap(out, 3.5 * ref["base.gap"], tol=1e-10, prefix="affine.")


@check("reordering_rows_and_columns_changes_nothing*")
def reordering(out, ref):
    gap(out, ref["base.gap"], prefix="reordered.")


@check("matrix_not_modified")
def not_modified(out, ref):
    equal(out["values"].tolist(), [[3.0, 1.0, 2.0], [0.0, 4.0, 1.0], [2.0, 2.0, 5.0]], what="matrix values")
    equal(out["values#dtype"], "float64", what="matrix dtype")
    for axis in ("index", "columns"):
        equal([out[f"{axis}.{i}"] for i in range(3)], ["A1", "A2", "B1"], what=axis)
    equal([out[f"dtypes.{i}"] for i in range(3)], ["float64"] * 3, what="column dtypes")
