# WRONG: gamma_x as minus the logit of the models' mean win probability on x (no joint fit, no penalty)
def fit_instruction_difficulty(
    annotations: pd.DataFrame, baseline: str, models: Sequence[str] | None, config: DifficultyConfig
) -> pd.Series:
    check_columns(annotations)
    if models is None:
        pairs = annotations[["generator_1", "generator_2"]].to_numpy().astype(str)
        models = sorted({b if a == baseline else a for a, b in pairs if (a == baseline) != (b == baseline)})
    if len(models) == 0:
        raise ValueError("no model to fit the instruction difficulties on")
    frames = []
    for m in models:
        comp = model_vs_baseline(annotations, m, baseline)
        frames.append(pd.DataFrame({"instruction": comp.instructions, "p": comp.win_prob}))
    mean = pd.concat(frames).groupby("instruction")["p"].mean().clip(1e-6, 1 - 1e-6).sort_index()
    return pd.Series(-np.log(mean / (1 - mean)).to_numpy(), index=mean.index, name="difficulty")
