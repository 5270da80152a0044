"""Hidden tests for steplength/1: expand_rationale, compress_rationale and build_prompt in steplen/prompting.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from steplen.data import Demonstration
from steplen.prompting import build_prompt, compress_rationale, expand_rationale

CASES = json.loads((Path(__file__).parent / "fixtures" / "steplength_cases.json").read_text(encoding="utf-8"))
POOL = [Demonstration(**{**d, "steps": tuple(d["steps"])}) for d in CASES["demos"]]
STEP_LINE = re.compile(r"^Step (\d+): ", re.MULTILINE)

# A small example checked by hand (see test_hand_written_prompts).
TOM = Demonstration(
    "Tom has 5 pens. He buys 3 more. How many pens?",
    ("Tom starts with 5.", "He buys 3, so 5 + 3 = 8.", "He has 8 pens."),
    "8", keyword="how many", keyword_meaning="asks for a count", equation="5 + 3 = 8",
)
EVEN = Demonstration("Is 4 even?", ("4 = 2 * 2.",), "yes")
AMY = "Amy has 2 cats. She adopts 1 more. How many cats?"


# --------------------------------------------------------------------------- by hand


def test_hand_written_zero_shot_prompts() -> None:
    assert build_prompt(AMY, [], "zero_shot") == "Q: Amy has 2 cats. She adopts 1 more. How many cats?\nA:"
    assert build_prompt(AMY, [TOM], "zero_shot_cot") == (
        "Q: Amy has 2 cats. She adopts 1 more. How many cats?\nA: Let's think step by step.")
    assert build_prompt(AMY, [TOM, EVEN], "zero_shot_more_steps") == (
        "Q: Amy has 2 cats. She adopts 1 more. How many cats?\n"
        "A: Let's think step by step, you must think more steps.")


def test_hand_written_prompts() -> None:
    # Written out by hand from the templates. TOM has 3 steps, so h = ceil(3/2) = 2 and the state repeated
    # is its first two steps; EVEN has no key word and no equation, so only 3 strategies are available.
    query = "Q: Amy has 2 cats. She adopts 1 more. How many cats?\nA: Let's think step by step."
    tom_5 = (
        "Q: Tom has 5 pens. He buys 3 more. How many pens?\n"
        "A: Let's think step by step.\n"
        'Step 1: Read the question again: "Tom has 5 pens. He buys 3 more. How many pens?"\n'
        'Step 2: Think about the word "how many": asks for a count\n'
        "Step 3: Tom starts with 5.\n"
        "Step 4: He buys 3, so 5 + 3 = 8.\n"
        "Step 5: Repeat the current state: Tom starts with 5. He buys 3, so 5 + 3 = 8.\n"
        "Step 6: He has 8 pens.\n"
        "Step 7: Write the reasoning as an equation: 5 + 3 = 8\n"
        "Step 8: Verify the answer: 8 is consistent with every number in the question.\n"
        "Therefore, the answer is 8."
    )
    even_5 = (
        "Q: Is 4 even?\n"
        "A: Let's think step by step.\n"
        'Step 1: Read the question again: "Is 4 even?"\n'
        "Step 2: 4 = 2 * 2.\n"
        "Step 3: Repeat the current state: 4 = 2 * 2.\n"
        "Step 4: Verify the answer: yes is consistent with every number in the question.\n"
        "Therefore, the answer is yes."
    )
    assert build_prompt(AMY, [TOM, EVEN], "add_steps", n_steps=5) == f"{tom_5}\n\n{even_5}\n\n{query}"

    plain_tom = (
        "Q: Tom has 5 pens. He buys 3 more. How many pens?\n"
        "A: Let's think step by step.\n"
        "Step 1: Tom starts with 5.\n"
        "Step 2: He buys 3, so 5 + 3 = 8.\n"
        "Step 3: He has 8 pens.\n"
        "Therefore, the answer is 8."
    )
    plain_even = "Q: Is 4 even?\nA: Let's think step by step.\nStep 1: 4 = 2 * 2.\nTherefore, the answer is yes."
    # Demonstrations stay in the order given.
    assert build_prompt(AMY, [EVEN, TOM], "few_shot_cot") == f"{plain_even}\n\n{plain_tom}\n\n{query}"

    # Compressing TOM's 3 steps into 2 groups: sizes 2 and 1 (larger first).
    tom_c2 = (
        "Q: Tom has 5 pens. He buys 3 more. How many pens?\n"
        "A: Let's think step by step.\n"
        "Step 1: Tom starts with 5. He buys 3, so 5 + 3 = 8.\n"
        "Step 2: He has 8 pens.\n"
        "Therefore, the answer is 8."
    )
    assert build_prompt(AMY, [TOM, EVEN], "compress_steps", n_steps=2) == f"{tom_c2}\n\n{plain_even}\n\n{query}"


def test_hand_written_partial_expansions() -> None:
    # Two steps: the first two strategies in order (read again, think about the word) for TOM;
    # EVEN has no key word, so it gets read again + repeat state.
    assert expand_rationale(TOM, 2) == [
        'Read the question again: "Tom has 5 pens. He buys 3 more. How many pens?"',
        'Think about the word "how many": asks for a count',
        "Tom starts with 5.", "He buys 3, so 5 + 3 = 8.", "He has 8 pens.",
    ]
    assert expand_rationale(EVEN, 2) == [
        'Read the question again: "Is 4 even?"', "4 = 2 * 2.", "Repeat the current state: 4 = 2 * 2.",
    ]
    # Four steps for TOM: read again, word, repeat state, self-verification (the equation is 5th).
    assert expand_rationale(TOM, 4)[-1] == "Verify the answer: 8 is consistent with every number in the question."
    assert not any(s.startswith("Write the reasoning") for s in expand_rationale(TOM, 4))
    assert expand_rationale(TOM, 0) == list(TOM.steps)


# --------------------------------------------------------------------------- differential


@pytest.mark.parametrize("idx", range(len(CASES["expand"])))
def test_expand_matches_reference(idx: int) -> None:
    case = CASES["expand"][idx]
    assert expand_rationale(POOL[case["demo"]], case["n"]) == case["steps"]


@pytest.mark.parametrize("idx", range(len(CASES["compress"])))
def test_compress_matches_reference(idx: int) -> None:
    case = CASES["compress"][idx]
    assert compress_rationale(POOL[case["demo"]], case["n"]) == case["steps"]


@pytest.mark.parametrize("idx", range(len(CASES["prompts"])))
def test_prompt_matches_reference(idx: int) -> None:
    case = CASES["prompts"][idx]
    demos = [POOL[i] for i in case["demos"]]
    assert build_prompt(case["question"], demos, case["strategy"], n_steps=case["n_steps"]) == case["prompt"]


# --------------------------------------------------------------------------- structure


def n_available(demo: Demonstration) -> int:
    has_word = demo.keyword is not None and demo.keyword_meaning is not None
    return 3 + int(has_word) + int(demo.equation is not None)


def expected_step_count(demo: Demonstration, strategy: str, n: int) -> int:
    if strategy == "add_steps":
        return len(demo.steps) + min(n, n_available(demo))
    if strategy == "compress_steps":
        return min(n, len(demo.steps))
    return len(demo.steps)


def test_prompt_structure() -> None:
    for case in CASES["prompts"]:
        prompt = build_prompt(case["question"], [POOL[i] for i in case["demos"]], case["strategy"],
                              n_steps=case["n_steps"])
        blocks = prompt.split("\n\n")
        query = f"Q: {case['question']}\nA:"
        if case["strategy"].startswith("zero_shot"):
            assert len(blocks) == 1 and blocks[0].startswith(query)
            continue
        demos = [POOL[i] for i in case["demos"]]
        assert len(blocks) == len(demos) + 1
        assert blocks[-1] == f"{query} Let's think step by step."
        for block, demo in zip(blocks, demos):  # same order as given
            assert block.startswith(f"Q: {demo.question}\nA: Let's think step by step.\n")
            assert block.endswith(f"\nTherefore, the answer is {demo.answer}.")
            numbers = [int(k) for k in STEP_LINE.findall(block)]
            assert numbers == list(range(1, expected_step_count(demo, case["strategy"], case["n_steps"]) + 1))


def test_step_count_grows_with_n_until_strategies_run_out() -> None:
    for demo in POOL:
        counts = [len(expand_rationale(demo, n)) for n in range(6)]
        assert counts == [len(demo.steps) + min(n, n_available(demo)) for n in range(6)]


def test_expansion_keeps_original_steps_in_order() -> None:
    for demo in POOL:
        expanded = expand_rationale(demo, 5)
        positions = [expanded.index(s) for s in demo.steps]
        assert positions == sorted(positions)
        assert expanded[0] not in demo.steps  # read-again always comes first


def group_sizes(steps: tuple[str, ...], groups: list[str]) -> list[int]:
    """How many consecutive original steps were merged into each group."""
    sizes, i = [], 0
    for group in groups:
        acc: list[str] = []
        while " ".join(acc) != group:
            assert i < len(steps) and len(" ".join(acc)) < len(group), "group is not a merge of consecutive steps"
            acc.append(steps[i])
            i += 1
        sizes.append(len(acc))
    assert i == len(steps), "some steps were dropped"
    return sizes


def test_compression_keeps_all_text_in_balanced_groups() -> None:
    for demo in POOL:
        for n in range(1, 9):
            groups = compress_rationale(demo, n)
            assert len(groups) == min(n, len(demo.steps))
            sizes = group_sizes(demo.steps, groups)
            assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)


def test_n_steps_is_ignored_by_strategies_that_do_not_use_it() -> None:
    demos = POOL[:3]
    for strategy in ("zero_shot", "zero_shot_cot", "zero_shot_more_steps", "few_shot_cot"):
        assert build_prompt(AMY, demos, strategy, n_steps=3) == build_prompt(AMY, demos, strategy)


def test_inputs_are_not_modified() -> None:
    demos = [TOM, EVEN]
    before = [TOM.steps, EVEN.steps]
    out = expand_rationale(TOM, 5)
    out.append("extra")
    comp = compress_rationale(EVEN, 3)
    comp.append("extra")
    build_prompt(AMY, demos, "add_steps", n_steps=3)
    assert [TOM.steps, EVEN.steps] == before and demos == [TOM, EVEN]
    assert expand_rationale(TOM, 0) == list(TOM.steps)


# --------------------------------------------------------------------------- errors


def test_invalid_arguments_raise_value_error() -> None:
    with pytest.raises(ValueError):
        build_prompt(AMY, [TOM], "least_to_most")
    with pytest.raises(ValueError):
        build_prompt(AMY, [], "few_shot_cot")
    with pytest.raises(ValueError):
        build_prompt(AMY, [], "add_steps", n_steps=1)
    with pytest.raises(ValueError):
        expand_rationale(TOM, 6)
    with pytest.raises(ValueError):
        expand_rationale(TOM, -1)
    with pytest.raises(ValueError):
        compress_rationale(TOM, 0)
    assert len(expand_rationale(TOM, 5)) == 8
    assert compress_rationale(TOM, 1) == [" ".join(TOM.steps)]
