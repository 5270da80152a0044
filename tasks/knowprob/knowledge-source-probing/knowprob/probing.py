"""Knowledge-source probing: can a linear probe read, from the model's activations,
whether the model is about to answer from its parametric knowledge (PK) or from
the context (CK)?

Probes are evaluated across relation groups: the probe never sees, in training,
an example of the relation group it is tested on, so it cannot succeed by
memorising relation- or entity-specific features.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from knowprob.linear_probe import LogisticRegressionProbe, Standardizer

KNOWLEDGE_SOURCES = ("PK", "CK", "ND")


def classify_by_relation_group(features: np.ndarray, labels: Sequence[str], groups: Sequence[str],
                               *, l2: float = 1e-2, max_iter: int = 100,
                               tol: float = 1e-10) -> dict[str, dict]:
    """Leave-one-relation-group-out classification of the knowledge source.

    Args:
        features: float array ``[n, d]``, one activation vector per example.
        labels: ``n`` knowledge-source labels, each one of ``"PK"``, ``"CK"``, ``"ND"``
            (any other value raises ``ValueError``).
        groups: ``n`` relation-group names (strings).
        l2, max_iter, tol: passed to :class:`LogisticRegressionProbe`.

    Procedure:
        1. Examples labelled ``"ND"`` (neither source) are discarded. The binary
           target is ``y = 1`` for ``"PK"`` and ``y = 0`` for ``"CK"``.
        2. For every relation group ``g`` among the remaining examples, in sorted
           order: the test set is the remaining examples of group ``g``, the
           training set all remaining examples of the other groups. If the
           training set does not contain both classes, ``g`` is skipped.
        3. A :class:`Standardizer` is fitted on the training features only and
           applied to training and test features; a
           ``LogisticRegressionProbe(l2=l2, max_iter=max_iter, tol=tol)`` is fitted
           on the standardised training set.
        4. On the test set: ``test_proba`` = ``probe.predict_proba`` (probability of
           PK), predictions = ``probe.predict``, accuracy = fraction of correct
           predictions.

    Returns:
        ``{g: {"accuracy": float, "n_train": int, "n_test": int,
        "test_proba": float64 array [n_test]}}`` with one entry per evaluated
        group (keys in sorted order); ``test_proba`` follows the original order of
        the group's examples.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
