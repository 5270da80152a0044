# WRONG: puts the demonstrations in reverse order (closest to the question last-first).
def build_prompt(question: str, demos: Sequence[Demonstration], strategy: str, n_steps: int = 0) -> str:
    """The full prompt for ``question`` under one reasoning-step strategy.

    Strategies (``templates.STRATEGIES``):
        zero_shot             ``render_query(question, None)``; no demonstrations.
        zero_shot_cot         ``render_query(question, COT_TRIGGER)``; no demonstrations.
        zero_shot_more_steps  ``render_query(question, MORE_STEPS_TRIGGER)``; no demonstrations.
        few_shot_cot          every demonstration as it is, then the query.
        add_steps             every demonstration with ``expand_rationale(demo, n_steps)``, then the query.
        compress_steps        every demonstration with ``compress_rationale(demo, n_steps)``, then the query.

    Few-shot prompts are the rendered demonstrations (``render_demonstration``) in the given order,
    followed by ``render_query(question, COT_TRIGGER)``, all joined with ``templates.DEMO_SEPARATOR``.
    ``n_steps`` is used only by add_steps and compress_steps.

    Raises ValueError for an unknown strategy, or for a few-shot strategy without demonstrations.
    """
    if strategy not in T.STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; expected one of {T.STRATEGIES}")
    if strategy == "zero_shot":
        return render_query(question, None)
    if strategy == "zero_shot_cot":
        return render_query(question, T.COT_TRIGGER)
    if strategy == "zero_shot_more_steps":
        return render_query(question, T.MORE_STEPS_TRIGGER)
    if not demos:
        raise ValueError(f"strategy {strategy!r} needs at least one demonstration")
    blocks = []
    for demo in reversed(demos):
        if strategy == "add_steps":
            steps = expand_rationale(demo, n_steps)
        elif strategy == "compress_steps":
            steps = compress_rationale(demo, n_steps)
        else:
            steps = list(demo.steps)
        blocks.append(render_demonstration(demo.question, steps, demo.answer))
    blocks.append(render_query(question, T.COT_TRIGGER))
    return T.DEMO_SEPARATOR.join(blocks)
