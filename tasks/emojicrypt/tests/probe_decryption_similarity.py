"""Probe for emojicrypt/1: ``decryption_similarity`` in ``emojicrypt/metrics.py``. Runs in the sandbox; emits
outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_decryption_similarity.py add hand-checked values and the metric's properties."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from emojicrypt.embedding import HashingEmbedder
from emojicrypt.metrics import decryption_similarity
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "cases.json").read_text(encoding="utf-8"))
TOL = dict(rtol=0.0, atol=1e-12)  # the old tests' absolute tolerance on every score


def embedder_of(c: dict) -> HashingEmbedder:
    e = c["embedder"]
    return HashingEmbedder(dim=e["dim"], ngram=e["ngram"], seed=e["seed"])


def result(got) -> dict:
    """The returned (mean, per_feature) and the Python types the interface requires."""
    mean, per_feature = got
    is_dict = isinstance(per_feature, dict)
    out = {"mean_is_float": isinstance(mean, float), "per_feature_is_dict": is_dict,
           "per_feature_all_float": is_dict and all(isinstance(v, float) for v in per_feature.values())}
    # A value of the wrong kind is left out, so it fails as a missing output (the harness's comparison of an
    # array with a dict marker or a number raises instead of failing).
    if isinstance(mean, (int, float)):
        out["mean"] = mean
    if is_dict:
        out["per_feature"] = {k: (v if isinstance(v, (int, float)) else repr(v)[:50]) for k, v in per_feature.items()}
    return out


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


@case(params=range(len(CASES)), **TOL)
def matches_reference(index):
    c = CASES[index]
    return result(decryption_similarity(dict(c["pairs"]), embedder_of(c)))


# --------------------------------------------------------------------------- by hand (check file)


@case(**TOL)
def hand_computed_scores():
    pairs = {
        "Feature: color, Value: red": "Feature: color, Value: crimson",
        "Feature: color, Value: blue": "Feature: color, Value: navy",
        "Feature: size, Value: big": "Feature: size, Value: ",
    }
    return result(decryption_similarity(pairs, TableEmbedder(HAND_TABLE)))


@case(**TOL)
def mean_weights_pairs_not_features():
    pairs = {
        "Feature: color, Value: red": "Feature: color, Value: red",
        "Feature: color, Value: blue": "Feature: color, Value: blue",
        "Feature: color, Value: navy": "Feature: color, Value: navy",
        "Feature: size, Value: big": "Feature: size, Value: red",
    }
    return result(decryption_similarity(pairs, TableEmbedder(HAND_TABLE)))


@case(**TOL)
def values_are_stripped_and_split_at_the_first_separator():
    table = dict(HAND_TABLE)
    table["a, Value: b"] = [1.0, 0.0, 0.0]
    table["c, Value: d"] = [1.0, 1.0, 0.0]
    emb = TableEmbedder(table)
    pairs = {
        "Feature: color, Value: red": "Feature: color, Value: \n crimson \n",
        "Feature:  size , Value:  big ": "Feature: size, Value: \t",
        "Feature: note, Value: a, Value: b": "Feature: note, Value: c, Value: d",
    }
    out = result(decryption_similarity(pairs, emb))
    out["unknown_texts_embedded"] = sorted({text for text in emb.calls if text not in table})
    return out


@case(**TOL)
def zero_original_embedding_scores_zero():
    pairs = {"Feature: size, Value: ": "Feature: size, Value: big"}
    return result(decryption_similarity(pairs, TableEmbedder(HAND_TABLE)))


@case
def empty_input_raises():
    return result(decryption_similarity({}, TableEmbedder(HAND_TABLE)))


# --------------------------------------------------------------------------- properties (check file)


@case(params=[0, 7, len(CASES) - 1], ids=["0", "7", "last"], **TOL)
def perfect_attacker_scores_one(index):
    c = CASES[index]
    pairs = {orig: orig for orig, _ in c["pairs"]}
    features = {orig.split(", Value: ", 1)[0].removeprefix("Feature:").strip() for orig in pairs}
    return {**result(decryption_similarity(pairs, embedder_of(c))), "features": "\n".join(sorted(features))}


@case(params=[1, 2, 3, 11, 20], ids=["1", "2", "3", "11", "20"], rtol=0.0, atol=1e-11)
def invariant_to_embedding_scale_and_pair_order(index):
    c = CASES[index]
    emb = embedder_of(c)
    scaled = lambda text: 1e5 * emb(text)  # noqa: E731
    reordered = dict(reversed(c["pairs"]))
    return {"base": result(decryption_similarity(dict(c["pairs"]), emb)),
            "scaled": result(decryption_similarity(reordered, scaled))}


@case(rtol=0.0, atol=1e-14)
def similarity_is_computed_in_float64():
    # Embeddings arrive in float32; the cosine must be computed in float64 from those float32 values.
    emb32 = TableEmbedder({"x": [0.1, 0.7, 0.3], "y": [0.11, 0.69, 0.31]}, dtype=np.float32)
    return result(decryption_similarity({"Feature: f, Value: x": "Feature: f, Value: y"}, emb32))
