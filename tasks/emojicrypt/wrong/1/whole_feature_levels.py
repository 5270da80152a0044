# WRONG: embeds the whole 'Feature: f, Value: v' strings instead of the values.
def decryption_similarity(
    enc_dec_pairs: Mapping[str, str],
    embed: Callable[[str], np.ndarray],
) -> tuple[float, dict[str, float]]:
    if not enc_dec_pairs:
        raise ValueError("no (original, recovered) pairs to score")
    scores: list[float] = []
    by_feature: dict[str, list[float]] = {}
    for original_level, recovered_level in enc_dec_pairs.items():
        head, original = original_level.split(SEPARATOR, 1)
        recovered = recovered_level.split(SEPARATOR, 1)[1]
        feature = head.removeprefix("Feature:").strip()
        a = np.asarray(embed(original_level.strip()), dtype=np.float64)
        b = np.asarray(embed(recovered_level.strip()), dtype=np.float64)
        norms = np.linalg.norm(a) * np.linalg.norm(b)
        score = 0.0 if norms == 0 else float(a @ b / norms)
        scores.append(score)
        by_feature.setdefault(feature, []).append(score)
    mean = sum(scores) / len(scores)
    return mean, {feature: sum(s) / len(s) for feature, s in by_feature.items()}
