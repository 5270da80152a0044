# WRONG: pairs of groups that share nothing are omitted
def relation_group_overlap(df: pd.DataFrame, *, group_col: str = "relation_group",
                           subject_col: str = "subject",
                           object_col: str = "parametric_object") -> pd.DataFrame:
    def entities(values) -> set[str]:
        out = set()
        for v in values:
            if pd.isna(v):
                continue
            norm = normalize_entity(v)
            if norm:
                out.add(norm)
        return out

    names = sorted(set(df[group_col].tolist()))
    subj = {g: entities(df.loc[df[group_col] == g, subject_col]) for g in names}
    objs = {g: entities(df.loc[df[group_col] == g, object_col]) for g in names}
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            shared_s = sorted(subj[a] & subj[b])
            shared_o = sorted(objs[a] & objs[b])
            shared_e = sorted((subj[a] | objs[a]) & (subj[b] | objs[b]))
            if not shared_e:
                continue
            rows.append({
                "group_a": a, "group_b": b,
                "shared_subjects": shared_s, "shared_objects": shared_o,
                "shared_entities": shared_e,
                "n_shared_subjects": len(shared_s), "n_shared_objects": len(shared_o),
                "n_shared_entities": len(shared_e),
            })
    return pd.DataFrame(rows, columns=OVERLAP_COLUMNS)

