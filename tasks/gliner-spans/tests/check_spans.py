"""Trusted checks for gliner-spans/1 (never enter the sandbox).

The default comparison with the release covers what the paper or the package decides. These checks add what
the paper states, computed here from the candidate's own outputs: the BCE objective of paper.md section 3 over
valid (span, type) pairs, the overlap rules of greedy decoding (section 4) by hand, the character offsets of
predicted entities, the save/load round trip, and the shape of the marker variants nothing else decides."""

from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

TEXTS = ["John Smith lives in New York City and works at Google .",
         "Mary visited Paris and London ."]


def _sig(x):
    return 1.0 / (1.0 + math.exp(-x))


@check("forward_logits[*]")
def bce_objective(out, ref):
    # paper.md section 3: L = - sum over valid spans and valid types of y log phi + (1 - y) log(1 - phi)
    logits = np.asarray(out["logits"], dtype=np.float64)
    labels = np.asarray(out["labels"], dtype=np.float64)
    span_mask = np.asarray(out["span_mask"]).astype(bool)
    type_mask = np.asarray(out["prompts_embedding_mask"]).astype(bool)
    finite(logits, "logits")
    p = 1.0 / (1.0 + np.exp(-logits))
    per = -(labels * np.log(np.clip(p, 1e-6, None)) + (1 - labels) * np.log(np.clip(1 - p, 1e-6, None)))
    valid = span_mask[..., None] & type_mask[:, None, None, :]
    want = float((per * valid).sum())
    close(out["loss"], want, rtol=1e-6, atol=1e-9, what="default loss = summed BCE over valid (span, type) pairs")


@check("other_marker_modes[*]")
def other_markers(out, ref):
    equal(out["shape"], ref["shape"], what="logits shape (B, L, K, C)")
    expect(out["finite"] is True and out["loss_finite"] is True, "non-finite logits or loss")
    equal(out["layer"], ref["layer"], what="span representation layer chosen by span_mode")


def _rows(out, key):
    rows = []
    i = 0
    while f"{key}.{i}" in out:
        row = []
        j = 0
        while f"{key}.{i}.{j}" in out:
            row.append(tuple(out[f"{key}.{i}.{j}.{n}"] for n in range(4)))
            j += 1
        rows.append(row)
        i += 1
    return rows


def _partial(a, b):
    overlap = not (a[0] > b[1] or b[0] > a[1])
    nested = (a[0] <= b[0] and a[1] >= b[1]) or (b[0] <= a[0] and b[1] >= a[1])
    return overlap and not nested


@check("greedy_rules")
def greedy_rules(out, ref):
    # candidates (start, end, class, logit): [1,3] a 3.0; [2,2] a 2.0; [0,1] b 1.5; [4,5] b 1.0; [1,3] b 0.5;
    # [5,8] a 4.0 runs past the 6 words and never counts. sigmoid(3) = 0.9525741268224334,
    # sigmoid(2) = 0.8807970779778823, sigmoid(1) = 0.7310585786300049, sigmoid(0.5) = 0.6224593312018546
    s3, s2, s1, s05 = 0.9525741268224334, 0.8807970779778823, 0.7310585786300049, 0.6224593312018546
    want = {
        "flat": [(1, 3, "a", s3), (4, 5, "b", s1)],                        # [0,1], [2,2] overlap [1,3]
        "nested": [(1, 3, "a", s3), (2, 2, "a", s2), (4, 5, "b", s1)],     # [2,2] nested; [0,1] partial
        "flat_multi": [(1, 3, "a", s3), (1, 3, "b", s05), (4, 5, "b", s1)],
        "nested_multi": [(1, 3, "a", s3), (1, 3, "b", s05), (2, 2, "a", s2), (4, 5, "b", s1)],
    }
    for key, spans in want.items():
        got = _rows(out, key)[0]
        equal(len(got), len(spans), what=f"{key}: number of spans")
        got_sorted = sorted(got, key=lambda t: (int(t[0]), int(t[1]), str(t[2])))
        for g, w in zip(got_sorted, spans, strict=False):
            equal([int(g[0]), int(g[1]), str(g[2])], [w[0], w[1], w[2]], what=f"{key}: span")
            close(float(g[3]), w[3], rtol=1e-6, atol=1e-9, what=f"{key}: score")


@check("decode[*]")
def decode_rules(out, ref):
    # paper.md section 4: whatever the mode, accepted spans never partially overlap, and come in order of start
    for key in ("batch", "single", "per_row", "input_spans"):
        for row in _rows(out, key):
            for a in row:
                for b in row:
                    if a is b:
                        continue
                    if (int(a[0]), int(a[1])) == (int(b[0]), int(b[1])):
                        continue
                    expect(not _partial((int(a[0]), int(a[1])), (int(b[0]), int(b[1]))),
                           f"{key}: partially overlapping spans {a} and {b}")
            starts = [int(a[0]) for a in row]
            expect(starts == sorted(starts), f"{key}: spans not in order of start")


@check("predict[*]")
def predict_offsets(out, ref):
    rows = []
    i = 0
    while f"single.{i}" in out:
        rows.append((int(out[f"single.{i}.0"]), int(out[f"single.{i}.1"]), out[f"single.{i}.2"]))
        i += 1
    for start, end, text in rows:
        equal(text, TEXTS[0][start:end], what="entity text = the original characters it spans")


@check("save_load")
def save_load(out, ref):
    # the reload may come back in float32 (the checkpoint's default dtype): rounding only, ~1e-7
    expect(float(out["logit_gap"]) <= 1e-5, f"reloaded model's logits differ ({out['logit_gap']})")
    expect(out["same_entities"] is True, "reloaded model predicts other entities")


@check("loss_options[drop_neg_label]")
@check("loss_options[drop_neg_span]")
def negatives_dropped_by_unit(out, ref):
    # paper.md section 3 ("per whole type, or per whole span, positives always kept") with negatives = 0 reads
    # two ways: drop the pairs of types (spans) without any positive (the release), or drop every negative pair
    # (one draw per type or span for its negatives). Either passes if loss and gradients match the same reading.
    def near(a, b):
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-6, atol=1e-9))

    matched = [r for r in ("whole_units", "all_negatives") if near(out["loss"], out[f"reading.{r}.loss"])]
    expect(bool(matched), f"loss {float(np.asarray(out['loss']))} matches neither reading (whole units dropped: "
           f"{float(np.asarray(out['reading.whole_units.loss']))}, every negative dropped: "
           f"{float(np.asarray(out['reading.all_negatives.loss']))})")
    r = matched[0]
    close(out["grad_norm"], out[f"reading.{r}.grad_norm"], rtol=1e-6, atol=1e-9, what=f"grad_norm ({r} reading)")
    close(out["grad_prompt"], out[f"reading.{r}.grad_prompt"], rtol=1e-6, atol=1e-9,
          what=f"grad_prompt ({r} reading)")
