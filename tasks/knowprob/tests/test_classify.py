"""Hidden tests for knowprob/1: classify_by_relation_group."""

import json
from pathlib import Path

import numpy as np
import pytest

from knowprob.probing import classify_by_relation_group

FIXTURES = Path(__file__).parent / "fixtures"
PROBA_ATOL = 1e-9


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


def test_matches_reference_on_random_datasets():
    cases = _cases()
    assert len(cases) >= 30
    n_groups_checked = 0
    for i, c in enumerate(cases):
        res = classify_by_relation_group(np.asarray(c["features"], dtype=np.float64),
                                         c["labels"], c["groups"],
                                         l2=c["l2"], max_iter=c["max_iter"], tol=c["tol"])
        assert isinstance(res, dict)
        assert list(res.keys()) == c["expected_groups"], f"case {i}"
        for g, acc, n_tr, n_te, proba in zip(c["expected_groups"], c["expected_accuracy"],
                                             c["expected_n_train"], c["expected_n_test"],
                                             c["expected_test_proba"]):
            r = res[g]
            assert r["n_train"] == n_tr and r["n_test"] == n_te, f"case {i} group {g}"
            assert r["accuracy"] == pytest.approx(acc, abs=1e-12), f"case {i} group {g}"
            got = np.asarray(r["test_proba"], dtype=np.float64)
            assert got.shape == (n_te,)
            np.testing.assert_allclose(got, np.asarray(proba), rtol=0, atol=PROBA_ATOL,
                                       err_msg=f"case {i} group {g}")
            n_groups_checked += 1
    assert n_groups_checked >= 80


def test_hand_checked_intercept_only_limit():
    # With a huge L2 penalty the weights vanish and the probe only fits its (unpenalised)
    # intercept, whose maximum-likelihood value satisfies sigmoid(b) = mean(y_train): every
    # test example gets the PK rate of the training set.
    #   A: PK PK CK        B: PK PK PK CK        C: PK CK ND (ND discarded)
    #   held out A: train B+C = 4 PK / 6 -> proba 2/3 > 0.5 -> all PK -> accuracy 2/3
    #   held out B: train A+C = 3 PK / 5 -> proba 0.6          -> accuracy 3/4
    #   held out C: train A+B = 5 PK / 7 -> proba 5/7          -> accuracy 1/2
    labels = ["PK", "PK", "CK", "PK", "PK", "PK", "CK", "PK", "CK", "ND"]
    groups = ["A"] * 3 + ["B"] * 4 + ["C"] * 3
    x = np.random.default_rng(0).normal(size=(10, 3))
    res = classify_by_relation_group(x, labels, groups, l2=1e8)
    assert list(res) == ["A", "B", "C"]
    expected = {"A": (2 / 3, 6, 3, 2 / 3), "B": (0.6, 5, 4, 3 / 4), "C": (5 / 7, 7, 2, 1 / 2)}
    for g, (p, n_tr, n_te, acc) in expected.items():
        assert res[g]["n_train"] == n_tr
        assert res[g]["n_test"] == n_te
        np.testing.assert_allclose(res[g]["test_proba"], np.full(n_te, p), atol=1e-6)
        assert res[g]["accuracy"] == pytest.approx(acc, abs=1e-12)


def test_separable_signal_transfers_across_groups():
    # one feature is +1 for PK and -1 for CK in every group: each held-out group is
    # classified perfectly, with PK probabilities above 0.5 exactly for PK examples.
    rng = np.random.default_rng(1)
    labels = list(rng.choice(["PK", "CK"], size=30))
    labels[:6] = ["PK", "CK"] * 3
    groups = [["g1", "g2", "g3"][i % 3] for i in range(30)]
    y = np.array([lab == "PK" for lab in labels], dtype=float)
    x = np.column_stack([2 * y - 1 + 0.1 * rng.normal(size=30), rng.normal(size=(30, 2))])
    res = classify_by_relation_group(x, labels, groups)
    assert sorted(res) == ["g1", "g2", "g3"]
    for g, r in res.items():
        assert r["accuracy"] == 1.0
        yt = y[np.array(groups) == g]
        assert np.all((r["test_proba"] > 0.5) == (yt == 1))


def test_nd_examples_are_discarded():
    x, labels, groups = _dataset(2)
    base = classify_by_relation_group(x, labels, groups)
    # adding ND examples (anywhere, any group, any features) changes nothing
    extra_x = np.random.default_rng(3).normal(size=(5, x.shape[1])) * 10
    x2 = np.vstack([extra_x[:2], x, extra_x[2:]])
    labels2 = ["ND", "ND"] + labels + ["ND"] * 3
    groups2 = ["loc", "org"] + groups + ["lang", "loc", "new_group"]
    res = classify_by_relation_group(x2, labels2, groups2)
    assert list(res) == list(base)
    for g in base:
        assert res[g]["n_train"] == base[g]["n_train"]
        assert res[g]["n_test"] == base[g]["n_test"]
        assert res[g]["accuracy"] == base[g]["accuracy"]
        np.testing.assert_allclose(res[g]["test_proba"], base[g]["test_proba"], atol=1e-10)


def test_groups_without_both_training_classes_are_skipped():
    # every CK example is in group A: holding A out leaves a PK-only training set.
    labels = ["PK", "CK", "CK", "PK", "PK", "PK", "PK", "ND"]
    groups = ["A", "A", "A", "B", "B", "C", "C", "D"]
    x = np.random.default_rng(4).normal(size=(8, 2))
    res = classify_by_relation_group(x, labels, groups)
    assert list(res) == ["B", "C"]  # A skipped (training lacks CK), D only has ND
    assert res["B"]["n_train"] == 5 and res["B"]["n_test"] == 2
    assert res["C"]["n_train"] == 5 and res["C"]["n_test"] == 2
    # a single relation group leaves nothing to train on
    assert classify_by_relation_group(x[:3], labels[:3], ["A"] * 3) == {}


def test_unknown_label_raises():
    x, labels, groups = _dataset(5)
    labels[3] = "pk"
    with pytest.raises(ValueError):
        classify_by_relation_group(x, labels, groups)


def test_invariant_to_per_feature_affine_maps():
    # the probe sees standardised features (statistics of its training set), so rescaling,
    # flipping or shifting a feature does not change any result (the L2 penalty is
    # symmetric in the sign of a weight).
    x, labels, groups = _dataset(6, d=4)
    base = classify_by_relation_group(x, labels, groups, l2=0.1)
    scale = np.array([1000.0, -0.001, 3.0, -7.0])
    shift = np.array([-50.0, 2.0, 1e4, 0.5])
    res = classify_by_relation_group(x * scale + shift, labels, groups, l2=0.1)
    for g in base:
        assert res[g]["accuracy"] == base[g]["accuracy"]
        np.testing.assert_allclose(res[g]["test_proba"], base[g]["test_proba"], atol=1e-8)


def test_row_order_and_label_symmetry():
    x, labels, groups = _dataset(7)
    base = classify_by_relation_group(x, labels, groups)
    perm = np.random.default_rng(8).permutation(len(labels))
    res = classify_by_relation_group(x[perm], [labels[i] for i in perm], [groups[i] for i in perm])
    for g in base:
        idx = [i for i in range(len(labels)) if groups[i] == g]   # original order in group g
        pidx = [i for i in perm if groups[i] == g]                # order after the permutation
        order = [idx.index(i) for i in pidx]
        np.testing.assert_allclose(res[g]["test_proba"], base[g]["test_proba"][order], atol=1e-9)
        assert res[g]["accuracy"] == pytest.approx(base[g]["accuracy"], abs=1e-12)
    # swapping the names PK <-> CK turns every probability p of PK into 1 - p
    swapped = ["CK" if lab == "PK" else "PK" for lab in labels]
    res = classify_by_relation_group(x, swapped, groups)
    for g in base:
        np.testing.assert_allclose(res[g]["test_proba"], 1 - base[g]["test_proba"], atol=1e-9)


def test_probe_hyperparameters_are_used():
    x, labels, groups = _dataset(9, d=5, signal=0.7)
    a = classify_by_relation_group(x, labels, groups, l2=1e-3)
    b = classify_by_relation_group(x, labels, groups, l2=10.0)
    c = classify_by_relation_group(x, labels, groups, l2=1e-3, max_iter=1)
    for g in a:
        assert np.max(np.abs(a[g]["test_proba"] - b[g]["test_proba"])) > 1e-3
        assert np.max(np.abs(a[g]["test_proba"] - c[g]["test_proba"])) > 1e-6


def test_output_types():
    x, labels, groups = _dataset(10)
    res = classify_by_relation_group(x, labels, groups)
    assert list(res) == sorted(res)
    for g, r in res.items():
        assert isinstance(g, str)
        assert isinstance(r["accuracy"], float)
        assert isinstance(r["n_train"], int) and isinstance(r["n_test"], int)
        assert isinstance(r["test_proba"], np.ndarray) and r["test_proba"].dtype == np.float64
        assert np.all((r["test_proba"] > 0) & (r["test_proba"] < 1))
