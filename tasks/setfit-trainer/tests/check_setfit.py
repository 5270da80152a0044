"""Trusted checks for setfit-trainer/1 (never enter the sandbox).

Every probe case compares with `compare="none"` except `training_arguments`: the checks here decide what is
right, each from paper.md or from what the masked package shows a solver (docstrings, signatures, constants,
callers); NOTES.md lists what decides each. Exception types are the solver's choice (any exception is accepted).
Counts that depend on whether a sentence may be paired with itself accept both readings (the with-replacement
default of `shuffle_combinations` decides it for the release; a solver may read the paper otherwise)."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect

# TEXTS/LABELS of the probe: classes of sizes 3, 2, 2 (7 sentences).
N = 7
POS_SELF, POS_NOSELF = 3 * 4 // 2 + 3 + 3, 3 + 1 + 1  # same-class pairs with / without self-pairs: 12 / 5
NEG = 3 * 2 + 3 * 2 + 2 * 2  # cross-class pairs: 16


def _get(out, key):
    """Rebuild a nested list/dict output from the flattened keys the harness stores (`key.0`, `key.name`)."""
    v = out[key]
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "seq":
        return [_get(out, f"{key}.{i}") for i in range(int(v[1]))]
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "map":
        names = [k for k in str(v[1]).split(",") if k]
        return {k: _get(out, f"{key}.{k}") for k in names}
    return v


def _raised(v) -> bool:
    return isinstance(v, str) and v.startswith("raised:")


def _pos_unique(out) -> int:
    """Distinct positive pairs the candidate's sampler can draw: 12 with self-pairs, 5 without."""
    return POS_SELF if out["self_pairs"] > 0 else POS_NOSELF


@check("shuffled_combinations")
def combos(out, ref):
    # 5 items: combinations with replacement (15 = 5*6/2) and without (10 = 5*4/2), each exactly once
    want_rep = [[i, j] for i in range(5) for j in range(i, 5)]
    want_norep = [[i, j] for i in range(5) for j in range(i + 1, 5)]
    equal([list(map(int, p)) for p in _get(out, "with_rep")], want_rep)
    equal([list(map(int, p)) for p in _get(out, "without")], want_norep)


@check("sampler[*]")
def sampler(out, ref):
    equal(out["bad"], 0)  # positive iff same class (paper, stage 1)
    equal(out["other"], 0)  # targets are exactly 1.0 / 0.0 (the cosine-similarity targets)
    equal(out["len"], out["n_iter"])  # __len__ is the number of pairs iterated
    pos_u = _pos_unique(out)
    kind = _kind(ref)
    if kind == "oversampling":
        # both sides drawn to the larger side's size; every distinct pair drawn at least once
        big = max(pos_u, NEG)
        equal([out["n_pos"], out["n_neg"]], [big, big])
        equal([out["distinct_pos"], out["distinct_neg"]], [pos_u, NEG])
    elif kind == "undersampling":
        small = min(pos_u, NEG)
        equal([out["n_pos"], out["n_neg"]], [small, small])
        equal(out["distinct_pos"], small)  # the minority side (positives here) drawn completely
    elif kind == "unique":
        equal([out["n_pos"], out["n_neg"]], [pos_u, NEG])
        equal([out["distinct_pos"], out["distinct_neg"]], [pos_u, NEG])
    else:  # num_iterations=2: 2 * 7 positive and 2 * 7 negative pairs (docstring of ContrastiveDataset)
        equal([out["n_pos"], out["n_neg"]], [2 * N, 2 * N])


def _kind(ref) -> str:
    """The case's strategy, read from the trusted reference (sampler[0..3])."""
    n_pos, n_neg = int(ref["n_pos"]), int(ref["n_neg"])
    if n_pos == n_neg == 2 * N:
        return "iter2"
    if n_pos == n_neg == max(POS_SELF, NEG):
        return "oversampling"
    if n_pos == n_neg:
        return "undersampling"
    return "unique"


@check("sampler_max_pairs")
def max_pairs(out, ref):
    # max_pairs docstring: pairs are sampled only until max_pairs is certainly reached (28 pairs without a limit)
    expect(6 <= int(out["len"]) < 28, f"{out['len']} unique pairs with max_pairs=6")


@check("sampler_bad_strategy")
def bad_strategy(out, ref):
    expect(_raised(out["r"]), "an unknown sampling strategy was accepted")


@check("sampler_multilabel")
def multilabel(out, ref):
    # identical label sets are positive, disjoint ones negative; partial overlap is either (see NOTES.md)
    equal([out["bad_same"], out["bad_disjoint"]], [0, 0])
    equal(out["n_pos"], out["n_neg"])  # oversampling balances the two sides
    expect(out["n_pos"] > 0, "no multi-label pairs")
    equal(out["len"], out["n_pos"] + out["n_neg"])


@check("distillation_sampler[*]")
def distillation(out, ref):
    equal(out["len"], out["n_iter"])
    if int(ref["len"]) == 3 * N:  # num_iterations=3: 3 * 7 pairs, all stored as one side
        equal(out["len"], 3 * N)
    else:  # every pair once: 28 with self-pairs, 21 without
        expect(int(out["len"]) in (N * (N + 1) // 2, N * (N - 1) // 2), f"{out['len']} pairs")
        equal(out["distinct"], out["len"])


@check("training_arguments_refusals")
def args_refusals(out, ref):
    expect(_raised(out["warmup_high"]), "warmup_proportion 1.5 was accepted")
    expect(_raised(out["warmup_neg"]), "warmup_proportion -0.1 was accepted")
    expect(_raised(out["best_mismatch"]), "load_best_model_at_end with different strategies was accepted")
    equal(out["valid"], "ok")
    # the Tip: with "steps", save_steps must be a round multiple of eval_steps
    equal(out["best_steps_ok"], "ok")
    expect(_raised(out["best_steps_bad"]), "save_steps 10 with eval_steps 4 was accepted")
    equal(out["no_logging_zero_steps"], "ok")  # logging_steps only matters for logging_strategy "steps"
    equal(out["eval_steps_default"], 7)  # eval_steps docstring: defaults to logging_steps
    equal(out["deprecated_eval"], "epoch")  # the softly deprecated evaluation_strategy still sets eval_strategy


@check("train_two_stage[*]")
def two_stage(out, ref):
    # oversampling over 7 sentences of classes 3/2/2: 16 positive + 16 negative pairs (with or without
    # self-pairs: max(12 or 5, 16) = 16), batch 8 -> 4 optimisation steps of the body in one epoch
    equal([out["n_pos_seen"], out["n_neg_seen"], out["n_seen"]], [16, 16, 32])
    equal([out["steps"], out["n_batches"]], [4, 4])
    close(out["st_lr"], 5e-3, rtol=1e-12)  # first value of body_learning_rate
    equal([out["st_bs"], out["st_epochs"]], [8, 1.0])
    expect(out["body_delta"] > 1e-5, "stage 1 did not change the body")
    # stage 2 after stage 1: the head is a logistic regression fitted on the fine-tuned body's embeddings
    expect(out["head_gap"] < 1e-5, f"head differs from LR on final embeddings by {out['head_gap']}")
    equal(_get(out, "proba_shape"), [7, 3])
    expect(out["pred_consistent"], "predict disagrees with predict_proba")


@check("train_max_steps")
def max_steps(out, ref):
    equal([out["steps"], out["n_batches"], out["st_max_steps"], out["st_bs"]], [2, 2, 2, 4])


@check("torch_head_classifier[*]")
def torch_head(out, ref):
    e2e = float(ref["body_delta"]) > 0
    expect(out["ce1"] < out["ce0"] - 0.1, f"cross-entropy did not fall: {out['ce0']} -> {out['ce1']}")
    expect(out["head_delta"] > 1e-3, "head not trained")
    if e2e:
        expect(out["body_delta"] > 1e-6, "end_to_end did not train the body")
    else:
        equal(out["body_delta"], 0.0)  # body frozen during the head phase
    expect(out["all_trainable"], "parameters left frozen after training")
    close(out["proba"], out["softmax"], rtol=1e-4, atol=1e-5)  # p = softmax(W e + b) at temperature 1
    equal(out["emb_type"], "Tensor")
    equal(list(np.asarray(out["pred"]).astype(int)), list(np.asarray(out["proba"]).argmax(1)))
    equal([out["in_features"], out["out_features"]], [16, 3])


def _softmax(z):
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


@check("setfit_head_direct")
def head_direct(out, ref):
    x = np.asarray(out["x"], dtype=np.float64)
    for name, t, k, multi in [
        ("t1", 1.0, 3, False),
        ("t2", 2.0, 3, False),
        ("mt", 1.0, 3, True),
        ("one", 1.0, 2, False),
    ]:
        w = np.linspace(-1, 1, k * 4).reshape(k, 4)
        b = np.linspace(-0.3, 0.2, k)
        z = (x @ w.T + b) / t
        p = 1 / (1 + np.exp(-z)) if multi else _softmax(z)
        close(out[name + ".proba"], p, rtol=1e-4, atol=1e-5)  # eps of 1e-5 in the temperature is accepted
        equal(out[name + ".out"], k)  # out_features=1 becomes 2 (docstring)
        want = (p >= 0.5).astype(float) if multi else p.argmax(1).astype(float)
        equal(np.asarray(out[name + ".pred"], dtype=float), want)
        loss = out[name + ".loss"]
        expect(("BCE" in loss) if multi else ("CrossEntropy" in loss), f"{name}: loss {loss}")


@check("head_kinds")
def head_kinds(out, ref):
    equal(_get(out, "None"), ["LogisticRegression", "LogisticRegression", 0.5, False])
    equal(_get(out, "one-vs-rest"), ["OneVsRestClassifier", "LogisticRegression", 0.5, False])
    equal(_get(out, "multi-output"), ["MultiOutputClassifier", "LogisticRegression", 0.5, False])
    equal(_get(out, "classifier-chain"), ["ClassifierChain", "LogisticRegression", 0.5, False])
    equal(_get(out, "torch.None"), ["SetFitHead", False, 16, True])
    equal(_get(out, "torch.one-vs-rest"), ["SetFitHead", True, 16, True])
    equal(_get(out, "torch.multi-output"), ["SetFitHead", True, 16, True])
    expect(_raised(out["bad"]), "an unknown multi_target_strategy was accepted")


@check("multilabel_head[*]")
def multilabel_head(out, ref):
    equal(_get(out, "pred_shape"), [7, 3])
    expect(out["binary"], "multi-label predictions are not 0/1")
    equal(_get(out, "single_shape"), [3])


@check("encode_predict_types[*]")
def encode_types(out, ref):
    torch_head = ref["emb_type"] == "Tensor"
    equal(out["emb_type"], "Tensor" if torch_head else "ndarray")  # encode docstring
    close(out["norms"], np.ones(7), rtol=1e-5)  # normalize_embeddings=True
    equal(out["proba_type"], "Tensor")  # as_numpy=False
    equal(out["np_type"], "ndarray")
    equal([_get(out, "single_shape"), _get(out, "many_shape")], [[3], [7, 3]])  # predict_proba docstring
    expect(out["single_gap"] < 1e-6, "a single string is predicted differently from the batch")
    expect(out["call_eq_predict"], "__call__ differs from predict")
    expect(out["to_self"], "to() did not return the model")
    equal(out["device"], "cpu")


@check("labels_mapping")
def labels_mapping(out, ref):
    names = ["animal", "weather", "road"]
    equal([names[int(i)] for i in _get(out, "raw")], _get(out, "pred"))  # labels[i] for class id i
    equal(out["single"], _get(out, "pred")[0])
    equal(_get(out, "id2label"), {"0": "animal", "1": "weather", "2": "road"})
    equal(_get(out, "label2id"), {"animal": 0, "weather": 1, "road": 2})


@check("save_load[*]")
def save_load(out, ref):
    expect(out["has_head"] and out["has_cfg"], "model_head.pkl / config_setfit.json missing")
    equal([out["cfg_norm"], _get(out, "cfg_labels")], [True, ["x", "y", "z"]])
    expect(out["gap"] < 1e-6, f"reloaded model predicts differently ({out['gap']})")
    equal(
        [out["norm_again"], _get(out, "labels_again"), _get(out, "labels_over")],
        [True, ["x", "y", "z"], ["p", "q", "r"]],
    )
    equal(_get(out, "pred_again"), _get(out, "pred"))
    equal(out["head_type"], ref["head_type"])


@check("freeze_unfreeze")
def freeze(out, ref):
    # [body frozen, head frozen] after freeze("body"), unfreeze(), freeze(), unfreeze("head")
    equal(
        [_get(out, "a"), _get(out, "b"), _get(out, "c"), _get(out, "d")],
        [[True, False], [False, False], [True, True], [True, False]],
    )
    equal(out["e"], True)  # freeze() with a logistic-regression head freezes the body
    equal(_get(out, "f"), [True, False])  # unfreeze(keep_body_frozen=True): only the head


@check("column_mapping_and_evaluate")
def column_mapping(out, ref):
    equal(_get(out, "cols"), ["feat_extra", "label", "text"])  # _apply_column_mapping docstring
    equal(out["hits"], out["own"])  # the metric sees the model's predictions and the true labels
    equal(_get(out, "keys"), ["hits"])
    equal(out["str_hits"], out["str_own"])  # string labels: the metric compares like with like
    for k in ("missing", "bad_map", "no_eval"):
        expect(_raised(out[k]), f"{k}: accepted")
