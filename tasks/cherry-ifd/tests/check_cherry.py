"""Trusted checks for cherry-ifd/1 (never enter the sandbox): hand-checked values and the method's properties,
on the outputs probe_cherry.py emitted. The default comparison with the reference's outputs has already passed.
Parameters of a case are read from `ref` (the reference's run), never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

F64 = dict(rtol=1e-11, atol=1e-12)


def seq(values: dict, name: str) -> list:
    """The list output `name` (flattened by the probe runner to name.0, name.1, ...)."""
    items = []
    while f"{name}.{len(items)}" in values:
        items.append(values[f"{name}.{len(items)}"])
    return items


def lloyd(points: np.ndarray, init: np.ndarray, iters: int) -> tuple[np.ndarray, np.ndarray]:
    """The `kmeans` docstring: initial centroids points[init]; assign (squared Euclidean, ties to the lower
    index), move to the mean (an empty cluster stays); the final assignment to the returned centroids."""
    centroids = points[init].astype(np.float64).copy()
    pts = points.astype(np.float64)

    def assign() -> np.ndarray:
        return (((pts[:, None, :] - centroids[None]) ** 2).sum(axis=2)).argmin(axis=1)

    for _ in range(iters):
        a = assign()
        for c in range(len(centroids)):
            if np.any(a == c):
                centroids[c] = pts[a == c].mean(axis=0)
    return centroids, assign()


# ---------------------------------------------------------------- instruction_embeddings


@check("embeddings_match_reference[*]")
def embeddings_are_eq2(out, ref):
    # Eq. (2): the average of the last hidden states over the instruction's tokens (positions 1..|Q| of [BOS] + Q)
    want = np.stack([h[1:].mean(axis=0) for h in seq(ref, "hidden")])
    close(out["embeddings"], want, **F64, what="mean last hidden state over the instruction")
    close(out["alone"], out["embeddings"], **F64, what="embedding independent of the other samples of a batch")


# ---------------------------------------------------------------- kmeans


@check("kmeans_matches_reference[*]")
def kmeans_is_lloyd(out, ref):
    points = ref["points"]
    centroids, assignment = lloyd(points, ref["init"], ref["iters"])
    tol = F64 if points.dtype == np.float64 else dict(rtol=1e-5, atol=1e-6)
    close(out["centroids"], centroids, **tol, what="centroids")
    equal(out["assignment"], assignment, what="assignment")


# ---------------------------------------------------------------- experience_subset


@check("subset_matches_reference[*]")
def subset_is_nearest_per_cluster(out, ref):
    emb = ref["embeddings"]
    n = emb.shape[0]
    subset = list(out["subset"])
    # CherryConfig.per_cluster: the per_cluster members nearest to each centroid (ties to the lower index)
    centroids, assignment = lloyd(emb, ref["init"], ref["kmeans_iters"])
    want = []
    for c in range(ref["num_clusters"]):
        members = np.nonzero(assignment == c)[0]
        dist = ((emb[members] - centroids[c]) ** 2).sum(axis=1)
        want += [int(i) for i in members[np.argsort(dist, kind="stable")[:ref["per_cluster"]]]]
    equal(subset, sorted(want), what="pre-experience subset")
    expect(subset == sorted(set(subset)), "indices ascending without repeats")
    expect(len(subset) <= ref["num_clusters"] * ref["per_cluster"], "at most per_cluster from each cluster")
    expect(all(0 <= i < n for i in subset), "indices in range")


# ---------------------------------------------------------------- answer_scores


@check("scores_match_reference[*]")
def scores_are_eq3_eq4(out, ref):
    lengths = seq(ref, "lengths")
    with_q, alone = seq(ref, "logp_with_q"), seq(ref, "logp_alone")
    # Eq. (3): answer tokens of [BOS] + Q + A are predicted at positions |Q| .. |Q| + |A| - 1 of the shifted row
    conditioned = [-lp[q:q + a].mean() for lp, (q, a) in zip(with_q, lengths, strict=True)]
    direct = [-lp[:a].mean() for lp, (_, a) in zip(alone, lengths, strict=True)]  # Eq. (4)
    close(out["conditioned"], conditioned, **F64, what="s(A|Q), Eq. (3)")
    close(out["direct"], direct, **F64, what="s(A), Eq. (4)")
    close(out["alone_conditioned"], out["conditioned"], **F64, what="s(A|Q) independent of the batch")
    close(out["alone_direct"], out["direct"], **F64, what="s(A) independent of the batch")


@check("scores_hand_values")
def scores_hand_values(out, ref):
    # all weights zero: every next-token distribution is uniform over 40 ids -> both scores log 40
    close(out["uniform.conditioned"], [math.log(40)] * 2, **F64, what="uniform model, s(A|Q)")
    close(out["uniform.direct"], [math.log(40)] * 2, **F64, what="uniform model, s(A)")
    # only the output bias: -log softmax(b)[w] whatever the context, so s(A|Q) = s(A) (IFD 1)
    b = ref["bias"]
    nll = b.max() + math.log(np.exp(b - b.max()).sum()) - b
    want = [nll[[8, 9]].mean(), nll[[30, 31, 32, 33]].mean()]
    close(out["unigram.conditioned"], want, **F64, what="unigram model, s(A|Q)")
    close(out["unigram.direct"], want, **F64, what="unigram model, s(A)")


# ---------------------------------------------------------------- select_cherry


@check("select_matches_reference[*]")
def select_is_top_ifd_below_one(out, ref):
    ifd, count = ref["ifd"], ref["count"]
    order = np.argsort(-ifd, kind="stable")
    want = [int(i) for i in order if ifd[i] < 1.0][:count]  # Section 2.4: IFD >= 1 discarded
    equal(list(out["selected"]), want, what="cherry indices")


@check("select_matches_reference[0]")
def select_hand_values(out, ref):
    # IFD 0.2, 0.9, 1.3, 0.95, 1.0, 0.5, 0.99: 1.3 and 1.0 discarded; top 3 of the rest: 0.99, 0.95, 0.9
    equal(list(out["selected"]), [6, 3, 1], what="top 3 below 1")


# ---------------------------------------------------------------- end to end


@check("pipeline_end_to_end[*]")
def pipeline_is_consistent(out, ref):
    finite(out["params"], "pre-experienced parameters")
    close(out["ifd"], out["conditioned"] / out["direct"], **F64, what="IFD = s(A|Q) / s(A), Eq. (5)")
    subset = list(out["experience_subset"])
    expect(subset == sorted(set(subset)) and len(subset) <= ref["max_subset"], "pre-experience subset")
    ifd = out["ifd"]
    want = [int(i) for i in np.argsort(-ifd, kind="stable") if ifd[i] < 1.0][:ref["num_selected"]]
    equal(list(out["selected"]), want, what="cherry samples: top IFD below 1")
    expect(bool(np.any(out["params"] != out["base_params"])), "the pre-experienced model was trained")
