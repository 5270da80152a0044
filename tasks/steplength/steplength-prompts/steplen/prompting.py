"""Build chain-of-thought prompts whose demonstrations have more or fewer reasoning steps."""

from __future__ import annotations

from typing import Sequence

from steplen import templates as T
from steplen.data import Demonstration


def render_demonstration(question: str, steps: Sequence[str], answer: str) -> str:
    """One worked example: the question, the trigger, one numbered line per step, the answer."""
    lines = [T.QUESTION.format(question=question), f"{T.ANSWER_PREFIX} {T.COT_TRIGGER}"]
    lines += [T.STEP.format(index=i, text=step) for i, step in enumerate(steps, start=1)]
    lines.append(T.FINAL_ANSWER.format(answer=answer))
    return "\n".join(lines)


def render_query(question: str, trigger: str | None) -> str:
    """The question to answer, followed by ``A:`` and the trigger sentence if there is one."""
    answer_line = T.ANSWER_PREFIX if trigger is None else f"{T.ANSWER_PREFIX} {trigger}"
    return f"{T.QUESTION.format(question=question)}\n{answer_line}"


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
    # TODO: implement (see the method description).
    raise NotImplementedError


def compress_rationale(demo: Demonstration, n_keep: int) -> list[str]:
    """Shorten a rationale to ``n_keep`` steps without dropping any text.

    The original steps are split into ``n_keep`` contiguous groups whose sizes differ by at most one,
    the larger groups first (7 steps into 3 groups: 3, 2, 2); the steps of a group are joined with
    single spaces into one step. A rationale that already has at most ``n_keep`` steps is returned
    unchanged (as a new list). Raises ValueError if ``n_keep < 1``.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError
