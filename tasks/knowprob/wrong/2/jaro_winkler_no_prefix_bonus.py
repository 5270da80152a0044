# WRONG: plain Jaro similarity is returned (no Winkler prefix bonus)
def jaro_winkler_similarity(a: str, b: str, prefix_weight: float = 0.1,
                            max_prefix: int = 4) -> float:
    if not a and not b:
        return 1.0
    window = max(0, max(len(a), len(b)) // 2 - 1)
    b_matched = [False] * len(b)
    a_chars = []
    for i, ch in enumerate(a):
        lo = max(0, i - window)
        hi = min(len(b), i + window + 1)
        for j in range(lo, hi):
            if not b_matched[j] and b[j] == ch:
                b_matched[j] = True
                a_chars.append(ch)
                break
    m = len(a_chars)
    if m == 0:
        return 0.0
    b_chars = [ch for ch, hit in zip(b, b_matched) if hit]
    k = sum(1 for ca, cb in zip(a_chars, b_chars) if ca != cb)
    t = k / 2
    jaro = (m / len(a) + m / len(b) + (m - t) / m) / 3
    prefix = 0
    for ca, cb in zip(a, b):
        if ca != cb or prefix == max_prefix:
            break
        prefix += 1
    return jaro


def drop_subject_object_overlap(df: pd.DataFrame, threshold: float = 0.9, *,
                                subject_col: str = "subject",
                                object_col: str = "parametric_object") -> pd.DataFrame:
    scores = []
    for subject, obj in zip(df[subject_col], df[object_col]):
        s = normalize_entity(subject)
        o = normalize_entity(obj)
        score = jaro_winkler_similarity(s, o)
        for word in s.split(" "):
            score = max(score, jaro_winkler_similarity(word, o))
        scores.append(score)
    out = df.copy()
    out["subject_object_similarity"] = pd.Series(scores, index=df.index, dtype="float64")
    return out[out["subject_object_similarity"] < threshold]

