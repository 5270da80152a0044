# WRONG: the overall score is the mean of the per-feature means (features weighted equally).
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
        a = np.asarray(embed(original.strip()), dtype=np.float64)
        b = np.asarray(embed(recovered.strip()), dtype=np.float64)
        norms = np.linalg.norm(a) * np.linalg.norm(b)
        score = 0.0 if norms == 0 else float(a @ b / norms)
        scores.append(score)
        by_feature.setdefault(feature, []).append(score)
    per_feature = {feature: sum(s) / len(s) for feature, s in by_feature.items()}
    return sum(per_feature.values()) / len(per_feature), per_feature
