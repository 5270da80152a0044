"""Probe for knowprob/1: classify_by_relation_group. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_classify.py add hand-checked values and the procedure's properties."""

import json
from pathlib import Path

import numpy as np

from knowprob.probing import classify_by_relation_group
from knowprob_emit import plain
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"
PROBA_ATOL = 1e-9
# counts exactly, accuracies to 1e-12, probabilities to PROBA_ATOL (the old test's tolerances)
SPEC = dict(rtol=0, atol=PROBA_ATOL, outputs={"*accuracy": {"atol": 1e-12}, "*n_t*": {"compare": "exact"}})


def _cases():
    return json.loads((FIXTURES / "classify.json").read_text())["cases"]


def _dataset(seed, n_per_group=(6, 7, 5), d=3, signal=1.5):
    rng = np.random.default_rng(seed)
    groups, labels = [], []
    for g, n in zip(["loc", "lang", "org"], n_per_group):
        groups += [g] * n
        labels += list(rng.choice(["PK", "CK"], size=n))
    y = np.array([lab == "PK" for lab in labels], dtype=float)
    x = rng.normal(size=(len(labels), d)) + signal * (2 * y[:, None] - 1) * rng.normal(size=d)
    return x, labels, groups


def result(res) -> dict:
    """The returned mapping as data: whether it is a dict, its keys in order, and each group's entries."""
    out = {"is_dict": isinstance(res, dict), "groups": [plain(g) for g in res]}
    for i, r in enumerate(res.values()):
        out[f"g{i}"] = {"accuracy": plain(r["accuracy"]), "n_train": plain(r["n_train"]),
                        "n_test": plain(r["n_test"]),
                        "test_proba": np.asarray(r["test_proba"], dtype=np.float64)}
    return out


@case(**SPEC)
def matches_reference_on_random_datasets():
    out = {"n_cases": len(_cases())}
    for i, c in enumerate(_cases()):
        res = classify_by_relation_group(np.asarray(c["features"], dtype=np.float64), c["labels"], c["groups"],
                                         l2=c["l2"], max_iter=c["max_iter"], tol=c["tol"])
        out[f"c{i}"] = result(res)
    return out


@case(**SPEC)
def hand_checked_intercept_only_limit():
    labels = ["PK", "PK", "CK", "PK", "PK", "PK", "CK", "PK", "CK", "ND"]
    groups = ["A"] * 3 + ["B"] * 4 + ["C"] * 3
    x = np.random.default_rng(0).normal(size=(10, 3))
    return result(classify_by_relation_group(x, labels, groups, l2=1e8))


@case(**SPEC)
def separable_signal_transfers_across_groups():
    rng = np.random.default_rng(1)
    labels = list(rng.choice(["PK", "CK"], size=30))
    labels[:6] = ["PK", "CK"] * 3
    groups = [["g1", "g2", "g3"][i % 3] for i in range(30)]
    y = np.array([lab == "PK" for lab in labels], dtype=float)
    x = np.column_stack([2 * y - 1 + 0.1 * rng.normal(size=30), rng.normal(size=(30, 2))])
    return {"y": y, "groups": groups, "result": result(classify_by_relation_group(x, labels, groups))}


@case(**SPEC)
def nd_examples_are_discarded():
    x, labels, groups = _dataset(2)
    base = classify_by_relation_group(x, labels, groups)
    extra_x = np.random.default_rng(3).normal(size=(5, x.shape[1])) * 10
    x2 = np.vstack([extra_x[:2], x, extra_x[2:]])
    labels2 = ["ND", "ND"] + labels + ["ND"] * 3
    groups2 = ["loc", "org"] + groups + ["lang", "loc", "new_group"]
    return {"base": result(base), "with_nd": result(classify_by_relation_group(x2, labels2, groups2))}


@case(**SPEC)
def groups_without_both_training_classes_are_skipped():
    labels = ["PK", "CK", "CK", "PK", "PK", "PK", "PK", "ND"]
    groups = ["A", "A", "A", "B", "B", "C", "C", "D"]
    x = np.random.default_rng(4).normal(size=(8, 2))
    return {"result": result(classify_by_relation_group(x, labels, groups)),
            "single_group": result(classify_by_relation_group(x[:3], labels[:3], ["A"] * 3))}


@case
def unknown_label_raises():
    x, labels, groups = _dataset(5)
    labels[3] = "pk"
    return result(classify_by_relation_group(x, labels, groups))


@case(**SPEC)
def invariant_to_per_feature_affine_maps():
    x, labels, groups = _dataset(6, d=4)
    scale = np.array([1000.0, -0.001, 3.0, -7.0])
    shift = np.array([-50.0, 2.0, 1e4, 0.5])
    return {"base": result(classify_by_relation_group(x, labels, groups, l2=0.1)),
            "mapped": result(classify_by_relation_group(x * scale + shift, labels, groups, l2=0.1))}


@case(**SPEC)
def row_order_and_label_symmetry():
    x, labels, groups = _dataset(7)
    perm = np.random.default_rng(8).permutation(len(labels))
    swapped = ["CK" if lab == "PK" else "PK" for lab in labels]
    return {"groups": groups, "perm": perm,
            "base": result(classify_by_relation_group(x, labels, groups)),
            "permuted": result(classify_by_relation_group(x[perm], [labels[i] for i in perm],
                                                          [groups[i] for i in perm])),
            "swapped": result(classify_by_relation_group(x, swapped, groups))}


@case(**SPEC)
def probe_hyperparameters_are_used():
    x, labels, groups = _dataset(9, d=5, signal=0.7)
    return {"l2_small": result(classify_by_relation_group(x, labels, groups, l2=1e-3)),
            "l2_large": result(classify_by_relation_group(x, labels, groups, l2=10.0)),
            "one_iter": result(classify_by_relation_group(x, labels, groups, l2=1e-3, max_iter=1))}


@case(**SPEC)
def output_types():
    x, labels, groups = _dataset(10)
    res = classify_by_relation_group(x, labels, groups)
    types = [{"key_is_str": isinstance(g, str), "accuracy_is_float": isinstance(r["accuracy"], float),
              "counts_are_int": isinstance(r["n_train"], int) and isinstance(r["n_test"], int),
              "proba_is_ndarray": isinstance(r["test_proba"], np.ndarray),
              "proba_dtype": str(getattr(r["test_proba"], "dtype", type(r["test_proba"]).__name__))}
             for g, r in res.items()]
    return {**result(res), "types": types}
