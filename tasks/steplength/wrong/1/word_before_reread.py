# WRONG: puts the think-about-the-word step before the read-again step.
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
    if "think_about_word" in used:
        out.append(T.THINK_ABOUT_WORD.format(word=demo.keyword, meaning=demo.keyword_meaning))
    if "read_again" in used:
        out.append(T.READ_AGAIN.format(question=demo.question))
    out += steps[:half]
    if "repeat_state" in used:
        out.append(T.REPEAT_STATE.format(state=" ".join(steps[:half])))
    out += steps[half:]
    if "make_equation" in used:
        out.append(T.MAKE_EQUATION.format(equation=demo.equation))
    if "self_verification" in used:
        out.append(T.SELF_VERIFICATION.format(answer=demo.answer))
    return out
