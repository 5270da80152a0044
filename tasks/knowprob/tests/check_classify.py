"""Trusted checks for knowprob/1 (never enter the sandbox): hand-checked values and the procedure's properties,
on the outputs probe_classify.py emitted. The default comparison with the reference's outputs has already
passed."""

import numpy as np

from lmrbench.checks import close, check, equal, expect


def items(out, key):
    """The elements of an emitted list (the probe runner flattens a list to `key.0`, `key.1`, ...)."""
    marker = out.get(key)
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key}: not a list")
    return [out[f"{key}.{i}"] for i in range(marker[1])]


def by_name(out, prefix=""):
    """{group: {"accuracy", "n_train", "n_test", "test_proba"}} of one emitted result, in the returned order."""
    groups = items(out, f"{prefix}groups")
    return {g: {k: out[f"{prefix}g{i}.{k}"] for k in ("accuracy", "n_train", "n_test", "test_proba")}
            for i, g in enumerate(groups)}


@check("matches_reference_on_random_datasets")
def fixtures_cover_enough(out, ref):
    # guards the fixtures themselves (the reference's run): enough datasets and evaluated groups
    n_cases = ref["n_cases"]
    expect(n_cases >= 30, f"only {n_cases} fixture datasets")
    n_groups = sum(len(items(ref, f"c{i}.groups")) for i in range(n_cases))
    expect(n_groups >= 80, f"only {n_groups} groups evaluated in the fixtures")
    for i in range(n_cases):
        for g, r in by_name(out, f"c{i}.").items():
            equal(list(np.shape(r["test_proba"])), [r["n_test"]], what=f"case {i} group {g}: test_proba shape")


@check("hand_checked_intercept_only_limit")
def hand_checked_intercept_only_limit(out, ref):
    # With a huge L2 penalty the weights vanish and the probe only fits its (unpenalised)
    # intercept, whose maximum-likelihood value satisfies sigmoid(b) = mean(y_train): every
    # test example gets the PK rate of the training set.
    #   A: PK PK CK        B: PK PK PK CK        C: PK CK ND (ND discarded)
    #   held out A: train B+C = 4 PK / 6 -> proba 2/3 > 0.5 -> all PK -> accuracy 2/3
    #   held out B: train A+C = 3 PK / 5 -> proba 0.6          -> accuracy 3/4
    #   held out C: train A+B = 5 PK / 7 -> proba 5/7          -> accuracy 1/2
    res = by_name(out)
    equal(list(res), ["A", "B", "C"], what="groups")
    expected = {"A": (2 / 3, 6, 3, 2 / 3), "B": (0.6, 5, 4, 3 / 4), "C": (5 / 7, 7, 2, 1 / 2)}
    for g, (p, n_tr, n_te, acc) in expected.items():
        equal(res[g]["n_train"], n_tr, what=f"{g}: n_train")
        equal(res[g]["n_test"], n_te, what=f"{g}: n_test")
        close(res[g]["test_proba"], np.full(n_te, p), rtol=1e-7, atol=1e-6, what=f"{g}: test_proba")
        close(res[g]["accuracy"], acc, rtol=0, atol=1e-12, what=f"{g}: accuracy")


@check("separable_signal_transfers_across_groups")
def separable_signal_transfers_across_groups(out, ref):
    # one feature is +1 for PK and -1 for CK in every group: each held-out group is
    # classified perfectly, with PK probabilities above 0.5 exactly for PK examples.
    res = by_name(out, "result.")
    equal(sorted(res), ["g1", "g2", "g3"], what="groups")
    y, groups = ref["y"], np.array(items(ref, "groups"))
    for g, r in res.items():
        equal(r["accuracy"], 1.0, what=f"{g}: accuracy")
        yt = y[groups == g]
        expect(bool(np.all((r["test_proba"] > 0.5) == (yt == 1))), f"{g}: probabilities on the wrong side of 0.5")


@check("nd_examples_are_discarded")
def nd_examples_are_discarded(out, ref):
    # adding ND examples (anywhere, any group, any features) changes nothing
    base, res = by_name(out, "base."), by_name(out, "with_nd.")
    equal(list(res), list(base), what="groups")
    for g in base:
        for k in ("n_train", "n_test", "accuracy"):
            equal(res[g][k], base[g][k], what=f"{g}: {k}")
        close(res[g]["test_proba"], base[g]["test_proba"], rtol=1e-7, atol=1e-10, what=f"{g}: test_proba")


@check("groups_without_both_training_classes_are_skipped")
def groups_without_both_training_classes_are_skipped(out, ref):
    # every CK example is in group A: holding A out leaves a PK-only training set.
    res = by_name(out, "result.")
    equal(list(res), ["B", "C"], what="groups (A skipped: training lacks CK; D only has ND)")
    for g in ("B", "C"):
        equal((res[g]["n_train"], res[g]["n_test"]), (5, 2), what=f"{g}: (n_train, n_test)")
    # a single relation group leaves nothing to train on
    equal(out["single_group.is_dict"], True, what="result for a single group is a dict")
    equal(items(out, "single_group.groups"), [], what="result for a single group")


@check("invariant_to_per_feature_affine_maps")
def invariant_to_per_feature_affine_maps(out, ref):
    # the probe sees standardised features (statistics of its training set), so rescaling,
    # flipping or shifting a feature does not change any result (the L2 penalty is
    # symmetric in the sign of a weight).
    base, res = by_name(out, "base."), by_name(out, "mapped.")
    for g in base:
        equal(res[g]["accuracy"], base[g]["accuracy"], what=f"{g}: accuracy")
        close(res[g]["test_proba"], base[g]["test_proba"], rtol=1e-7, atol=1e-8, what=f"{g}: test_proba")


@check("row_order_and_label_symmetry")
def row_order_and_label_symmetry(out, ref):
    groups, perm = items(ref, "groups"), [int(i) for i in ref["perm"]]
    base, res = by_name(out, "base."), by_name(out, "permuted.")
    for g in base:
        idx = [i for i in range(len(groups)) if groups[i] == g]   # original order in group g
        pidx = [i for i in perm if groups[i] == g]                # order after the permutation
        order = [idx.index(i) for i in pidx]
        close(res[g]["test_proba"], base[g]["test_proba"][order], rtol=1e-7, atol=1e-9, what=f"{g}: permuted rows")
        close(res[g]["accuracy"], base[g]["accuracy"], rtol=0, atol=1e-12, what=f"{g}: accuracy")
    # swapping the names PK <-> CK turns every probability p of PK into 1 - p
    res = by_name(out, "swapped.")
    for g in base:
        close(res[g]["test_proba"], 1 - base[g]["test_proba"], rtol=1e-7, atol=1e-9, what=f"{g}: swapped labels")


@check("probe_hyperparameters_are_used")
def probe_hyperparameters_are_used(out, ref):
    a, b, c = by_name(out, "l2_small."), by_name(out, "l2_large."), by_name(out, "one_iter.")
    for g in a:
        expect(np.max(np.abs(a[g]["test_proba"] - b[g]["test_proba"])) > 1e-3, f"{g}: l2 has no effect")
        expect(np.max(np.abs(a[g]["test_proba"] - c[g]["test_proba"])) > 1e-6, f"{g}: max_iter has no effect")


@check("output_types")
def output_types(out, ref):
    res = by_name(out)
    equal(list(res), sorted(res), what="groups in sorted order")
    for i, (g, r) in enumerate(res.items()):
        for flag in ("key_is_str", "accuracy_is_float", "counts_are_int", "proba_is_ndarray"):
            equal(out[f"types.{i}.{flag}"], True, what=f"{g}: {flag}")
        equal(out[f"types.{i}.proba_dtype"], "float64", what=f"{g}: test_proba dtype")
        expect(bool(np.all((r["test_proba"] > 0) & (r["test_proba"] < 1))), f"{g}: probabilities not in (0, 1)")
