"""Regenerated input fixtures: identical, equal up to float rounding (another host's BLAS), or different."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from lmrbench.authoring.fixture_compare import Same, compare_files


def _pt(folder: Path, obj) -> Path:
    """Each file in a folder of its own under one name (torch.save records the file's name in the archive)."""
    folder.mkdir()
    torch.save(obj, folder / "cases.pt")
    return folder / "cases.pt"


def _data(w: torch.Tensor) -> dict:
    return {"model": {"w": w, "steps": torch.tensor([3, 4])}, "cases": [{"x": w * 2, "name": "a", "k": 1.5}]}


def test_identical_bytes(tmp_path):
    w = torch.randn(8, 8, dtype=torch.float64)
    assert compare_files(_pt(tmp_path / "a", _data(w)), _pt(tmp_path / "b", _data(w))) is Same.BYTES


def test_last_bit_differences_are_rounding(tmp_path):
    w = torch.randn(8, 8, dtype=torch.float64)
    near = w + 1e-15 * torch.randn(8, 8, dtype=torch.float64)
    assert not torch.equal(near, w)
    assert compare_files(_pt(tmp_path / "a", _data(near)), _pt(tmp_path / "b", _data(w))) is Same.ROUNDING
    f32 = w.float()
    one_ulp = torch.nextafter(f32, torch.full_like(f32, 10.0))
    assert compare_files(_pt(tmp_path / "c", _data(one_ulp)), _pt(tmp_path / "d", _data(f32))) is Same.ROUNDING


def test_real_differences_are_not(tmp_path):
    w = torch.randn(8, 8, dtype=torch.float64)
    base = _pt(tmp_path / "base", _data(w))
    edited = w.clone()
    edited[2, 3] += 1e-3
    assert compare_files(_pt(tmp_path / "edit", _data(edited)), base) is Same.NO
    assert compare_files(_pt(tmp_path / "dtype", _data(w.float())), base) is Same.NO
    assert compare_files(_pt(tmp_path / "shape", _data(w[:4])), base) is Same.NO
    other = _data(w)
    other["model"]["steps"] = torch.tensor([3, 5])
    assert compare_files(_pt(tmp_path / "ints", other), base) is Same.NO
    other = _data(w)
    other["cases"][0]["name"] = "b"
    assert compare_files(_pt(tmp_path / "str", other), base) is Same.NO
    nan = w.clone()
    nan[0, 0] = float("nan")
    assert compare_files(_pt(tmp_path / "nan", _data(nan)), base) is Same.NO
    (tmp_path / "cases.pt").write_bytes(b"not a checkpoint")
    assert compare_files(tmp_path / "cases.pt", base) is Same.NO


def test_nan_and_inf_in_the_same_places_are_fine(tmp_path):
    w = torch.randn(4, dtype=torch.float64)
    w[0], w[1] = float("nan"), float("inf")
    near = w.clone()
    near[2] += 1e-16 * abs(float(near[2]))
    assert compare_files(_pt(tmp_path / "a", {"w": near}), _pt(tmp_path / "b", {"w": w})) is not Same.NO


def test_json(tmp_path):
    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    a.write_text(json.dumps({"x": [0.1 + 0.2, 1, "s"], "y": None}))
    b.write_text(json.dumps({"x": [0.3, 1, "s"], "y": None}))
    c.write_text(json.dumps({"x": [0.3001, 1, "s"], "y": None}))
    assert compare_files(a, b) is Same.ROUNDING
    assert compare_files(c, b) is Same.NO
    assert compare_files(a, a) is Same.BYTES
