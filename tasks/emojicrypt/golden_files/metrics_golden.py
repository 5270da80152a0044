"""Privacy metric for obfuscated prompts: how much of the original meaning an attacker recovers."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from emojicrypt.obfuscate import SEPARATOR


def decryption_similarity(
    enc_dec_pairs: Mapping[str, str],
    embed: Callable[[str], np.ndarray],
) -> tuple[float, dict[str, float]]:
    """Mean cosine similarity between the embeddings of original and recovered feature values.

    Args:
        enc_dec_pairs: maps each original feature level ``"Feature: <name>, Value: <original value>"`` to the
            attacker's answer in the same format, ``"Feature: <name>, Value: <recovered value>"``.
        embed: the embedding model, text -> 1-D numpy array.

    Returns:
        ``(mean, per_feature)``. A *value* is everything after the first ``", Value: "`` of its string, with
        surrounding whitespace stripped; the feature name is the text between ``"Feature: "`` and that
        separator in the original level (stripped). Each pair scores the cosine similarity of
        ``embed(original value)`` and ``embed(recovered value)``, computed in float64, and 0.0 when either
        embedding is the zero vector (e.g. an empty answer). ``mean`` averages the scores of all pairs (every
        pair counts once); ``per_feature`` maps each feature name to the mean score of its pairs. Both are
        Python floats.

    Raises:
        ValueError: if ``enc_dec_pairs`` is empty.
    """
    if not enc_dec_pairs:
        raise ValueError("no (original, recovered) pairs to score")
    scores: list[float] = []
    by_feature: dict[str, list[float]] = {}
    for original_level, recovered_level in enc_dec_pairs.items():
        head, original = original_level.split(SEPARATOR, 1)
        recovered = recovered_level.split(SEPARATOR, 1)[1]
        feature = head.removeprefix("Feature:").strip()
        a = np.asarray(embed(original.strip()), dtype=np.float64)
        b = np.asarray(embed(recovered.strip()), dtype=np.float64)
        norms = np.linalg.norm(a) * np.linalg.norm(b)
        score = 0.0 if norms == 0 else float(a @ b / norms)
        scores.append(score)
        by_feature.setdefault(feature, []).append(score)
    mean = sum(scores) / len(scores)
    return mean, {feature: sum(s) / len(s) for feature, s in by_feature.items()}
