"""Hidden tests for emojicrypt/1: ``decryption_similarity`` in ``emojicrypt/metrics.py``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from emojicrypt.embedding import HashingEmbedder
from emojicrypt.metrics import decryption_similarity

CASES = json.loads((Path(__file__).parent / "fixtures" / "cases.json").read_text(encoding="utf-8"))
TOL = 1e-12


def embedder_of(case: dict) -> HashingEmbedder:
    e = case["embedder"]
    return HashingEmbedder(dim=e["dim"], ngram=e["ngram"], seed=e["seed"])


def check(got, mean: float, per_feature: dict[str, float], tol: float = TOL) -> None:
    got_mean, got_features = got
    assert isinstance(got_mean, float), f"mean must be a Python float, got {type(got_mean)}"
    assert math.isclose(got_mean, mean, rel_tol=0, abs_tol=tol), f"mean {got_mean!r} != {mean!r}"
    assert isinstance(got_features, dict)
    assert set(got_features) == set(per_feature), f"features {sorted(got_features)} != {sorted(per_feature)}"
    for name, want in per_feature.items():
        assert isinstance(got_features[name], float)
        assert math.isclose(got_features[name], want, rel_tol=0, abs_tol=tol), f"{name}: {got_features[name]!r} != {want!r}"


class TableEmbedder:
    """A hand-made embedding model: a fixed vector per text (unknown text -> error)."""

    def __init__(self, table: dict[str, list[float]], dtype=np.float64):
        self.table = {k: np.array(v, dtype=dtype) for k, v in table.items()}
        self.calls: list[str] = []

    def __call__(self, text: str) -> np.ndarray:
        self.calls.append(text)
        return self.table[text].copy()


HAND_TABLE = {
    "red": [1.0, 0.0, 0.0],
    "crimson": [1.0, 1.0, 0.0],
    "blue": [0.0, 2.0, 0.0],
    "navy": [0.0, 3.0, 4.0],
    "big": [0.0, 0.0, 1.0],
    "": [0.0, 0.0, 0.0],
}


# --------------------------------------------------------------------------- differential


@pytest.mark.parametrize("index", range(len(CASES)))
def test_matches_reference(index):
    case = CASES[index]
    got = decryption_similarity(dict(case["pairs"]), embedder_of(case))
    check(got, case["mean"], case["per_feature"])


# --------------------------------------------------------------------------- by hand


def test_hand_computed_scores():
    # color: red -> crimson: cos((1,0,0), (1,1,0)) = 1/sqrt(2) = 0.7071067811865476
    # color: blue -> navy:   cos((0,2,0), (0,3,4)) = 6 / (2 * 5) = 0.6
    # size:  big -> "" (empty answer, zero embedding): defined as 0
    # mean over the 3 pairs = (0.7071067811865476 + 0.6 + 0) / 3 = 0.43570226039551584
    # per feature: color = (0.7071067811865476 + 0.6) / 2 = 0.6535533905932738, size = 0.0
    pairs = {
        "Feature: color, Value: red": "Feature: color, Value: crimson",
        "Feature: color, Value: blue": "Feature: color, Value: navy",
        "Feature: size, Value: big": "Feature: size, Value: ",
    }
    got = decryption_similarity(pairs, TableEmbedder(HAND_TABLE))
    check(got, 0.43570226039551584, {"color": 0.6535533905932738, "size": 0.0})


def test_mean_weights_pairs_not_features():
    # 3 color pairs scoring 1, 1, 1 and one size pair scoring 0 (big -> red is orthogonal):
    # pair mean = 3/4 = 0.75, while the mean of feature means would be (1 + 0)/2 = 0.5.
    pairs = {
        "Feature: color, Value: red": "Feature: color, Value: red",
        "Feature: color, Value: blue": "Feature: color, Value: blue",
        "Feature: color, Value: navy": "Feature: color, Value: navy",
        "Feature: size, Value: big": "Feature: size, Value: red",
    }
    check(decryption_similarity(pairs, TableEmbedder(HAND_TABLE)), 0.75, {"color": 1.0, "size": 0.0})


def test_values_are_stripped_and_split_at_the_first_separator():
    # The answers carry new lines and spaces; the embedder only knows the stripped values.
    # "Feature: note, Value: a, Value: b" has the value "a, Value: b" (split at the first separator).
    table = dict(HAND_TABLE)
    table["a, Value: b"] = [1.0, 0.0, 0.0]
    table["c, Value: d"] = [1.0, 1.0, 0.0]
    emb = TableEmbedder(table)
    pairs = {
        "Feature: color, Value: red": "Feature: color, Value: \n crimson \n",
        "Feature:  size , Value:  big ": "Feature: size, Value: \t",
        "Feature: note, Value: a, Value: b": "Feature: note, Value: c, Value: d",
    }
    # scores: 1/sqrt(2), 0 (empty answer), 1/sqrt(2); mean = sqrt(2)/3 = 0.47140452079103173
    check(decryption_similarity(pairs, emb), 0.47140452079103173,
          {"color": 0.7071067811865476, "size": 0.0, "note": 0.7071067811865476})
    assert set(emb.calls) <= set(table), "embedded texts must be the stripped values only"


def test_zero_original_embedding_scores_zero():
    pairs = {"Feature: size, Value: ": "Feature: size, Value: big"}
    check(decryption_similarity(pairs, TableEmbedder(HAND_TABLE)), 0.0, {"size": 0.0})


def test_empty_input_raises():
    with pytest.raises(ValueError):
        decryption_similarity({}, TableEmbedder(HAND_TABLE))


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("index", [0, 7, len(CASES) - 1])
def test_perfect_attacker_scores_one(index):
    case = CASES[index]
    pairs = {orig: orig for orig, _ in case["pairs"]}
    emb = embedder_of(case)
    features = {orig.split(", Value: ", 1)[0].removeprefix("Feature:").strip() for orig in pairs}
    check(decryption_similarity(pairs, emb), 1.0, {f: 1.0 for f in features}, tol=1e-12)


@pytest.mark.parametrize("index", [1, 2, 3, 11, 20])
def test_invariant_to_embedding_scale_and_pair_order(index):
    case = CASES[index]
    emb = embedder_of(case)
    scaled = lambda text: 1e5 * emb(text)  # noqa: E731
    reordered = dict(reversed(case["pairs"]))
    check(decryption_similarity(reordered, scaled), case["mean"], case["per_feature"], tol=1e-11)


def test_similarity_is_computed_in_float64():
    # Embeddings arrive in float32; the cosine must be computed in float64 from those float32 values.
    vecs = {
        "x": [0.1, 0.7, 0.3],
        "y": [0.11, 0.69, 0.31],
    }
    emb32 = TableEmbedder(vecs, dtype=np.float32)
    a = np.array(vecs["x"], dtype=np.float32).astype(np.float64)
    b = np.array(vecs["y"], dtype=np.float32).astype(np.float64)
    want = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    got = decryption_similarity({"Feature: f, Value: x": "Feature: f, Value: y"}, emb32)
    check(got, want, {"f": want}, tol=1e-14)


def test_scores_bounded():
    for case in CASES:
        mean, per_feature = decryption_similarity(dict(case["pairs"]), embedder_of(case))
        assert -1.0 - 1e-12 <= mean <= 1.0 + 1e-12
        assert all(-1.0 - 1e-12 <= v <= 1.0 + 1e-12 for v in per_feature.values())
