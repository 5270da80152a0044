# WRONG: the candidate pool keeps the order of first appearance instead of sorted order
def build_counter_knowledge(df: pd.DataFrame, *, seed: int = 0,
                            templates: Mapping[str, str] | None = None,
                            subject_col: str = "subject", relation_col: str = "relation",
                            object_col: str = "parametric_object") -> pd.DataFrame:
    templates = TEMPLATES if templates is None else templates
    pools = {
        rel: list(dict.fromkeys(objs))
        for rel, objs in df.groupby(relation_col)[object_col]
    }
    rng = np.random.default_rng(seed)
    kept, counter_objects, counter_prompts = [], [], []
    for idx, s, r, o in zip(df.index, df[subject_col], df[relation_col], df[object_col]):
        o_norm = normalize_entity(o)
        candidates = [c for c in pools[r] if normalize_entity(c) != o_norm]
        if not candidates:
            continue
        o_c = candidates[int(rng.integers(len(candidates)))]
        tpl = templates[r]
        kept.append(idx)
        counter_objects.append(o_c)
        counter_prompts.append(render_statement(tpl, s, o_c) + " " + render_query(tpl, s))
    out = df.loc[kept].copy()
    out["counter_object"] = pd.Series(counter_objects, index=out.index, dtype=object)
    out["counter_prompt"] = pd.Series(counter_prompts, index=out.index, dtype=object)
    return out

