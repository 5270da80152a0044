# WRONG: compresses with the larger groups at the end instead of the beginning.
def expand_rationale(demo: Demonstration, n_add: int) -> list[str]:
    """Lengthen a demonstration's rationale by ``n_add`` extra steps that add no information.

    The strategies are taken in the order of ``templates.EXPANSIONS``, skipping those the
    demonstration has no data for ("think_about_word" needs ``keyword`` and ``keyword_meaning``,
    "make_equation" needs ``equation``; the other three are always available). The first ``n_add``
    available strategies are used; if fewer are available, all of them are used.

    Each strategy contributes exactly one step, filled in from ``templates``, at a fixed place:

        [READ_AGAIN] [THINK_ABOUT_WORD] s_1 .. s_h [REPEAT_STATE] s_h+1 .. s_n [MAKE_EQUATION] [SELF_VERIFICATION]

    where s_1..s_n are the original steps, h = ceil(n / 2), the state repeated by REPEAT_STATE is
    the first h original steps joined with single spaces, READ_AGAIN quotes ``demo.question`` and
    SELF_VERIFICATION names ``demo.answer``. Bracketed steps appear only when their strategy is used.

    Raises ValueError unless 0 <= n_add <= len(templates.EXPANSIONS). Returns a new list; the
    demonstration is not modified.
    """
    if not 0 <= n_add <= len(T.EXPANSIONS):
        raise ValueError(f"n_add must be in [0, {len(T.EXPANSIONS)}], got {n_add}")
    has_word = demo.keyword is not None and demo.keyword_meaning is not None
    available = [
        name for name in T.EXPANSIONS
        if (name != "think_about_word" or has_word) and (name != "make_equation" or demo.equation is not None)
    ]
    used = set(available[:n_add])
    steps = list(demo.steps)
    half = (len(steps) + 1) // 2

    out: list[str] = []
    if "read_again" in used:
        out.append(T.READ_AGAIN.format(question=demo.question))
    if "think_about_word" in used:
        out.append(T.THINK_ABOUT_WORD.format(word=demo.keyword, meaning=demo.keyword_meaning))
    out += steps[:half]
    if "repeat_state" in used:
        out.append(T.REPEAT_STATE.format(state=" ".join(steps[:half])))
    out += steps[half:]
    if "make_equation" in used:
        out.append(T.MAKE_EQUATION.format(equation=demo.equation))
    if "self_verification" in used:
        out.append(T.SELF_VERIFICATION.format(answer=demo.answer))
    return out


def compress_rationale(demo: Demonstration, n_keep: int) -> list[str]:
    """Shorten a rationale to ``n_keep`` steps without dropping any text.

    The original steps are split into ``n_keep`` contiguous groups whose sizes differ by at most one,
    the larger groups first (7 steps into 3 groups: 3, 2, 2); the steps of a group are joined with
    single spaces into one step. A rationale that already has at most ``n_keep`` steps is returned
    unchanged (as a new list). Raises ValueError if ``n_keep < 1``.
    """
    if n_keep < 1:
        raise ValueError(f"n_keep must be at least 1, got {n_keep}")
    steps = list(demo.steps)
    if len(steps) <= n_keep:
        return steps
    size, extra = divmod(len(steps), n_keep)
    out, start = [], 0
    for g in range(n_keep):
        end = start + size + (1 if g >= n_keep - extra else 0)
        out.append(" ".join(steps[start:end]))
        start = end
    return out


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
    for demo in demos:
        if strategy == "add_steps":
            steps = expand_rationale(demo, n_steps)
        elif strategy == "compress_steps":
            steps = compress_rationale(demo, n_steps)
        else:
            steps = list(demo.steps)
        blocks.append(render_demonstration(demo.question, steps, demo.answer))
    blocks.append(render_query(question, T.COT_TRIGGER))
    return T.DEMO_SEPARATOR.join(blocks)
