"""Trusted checks for steplength/1 (never enter the sandbox): the hand-written prompts and the structural properties
of the outputs probe_steplength.py emitted. The demonstrations and cases come from this task's own fixture file."""

from __future__ import annotations

import json
import re
from pathlib import Path

from lmrbench.checks import check, equal, expect

CASES = json.loads((Path(__file__).parent / "fixtures" / "steplength_cases.json").read_text(encoding="utf-8"))
POOL = CASES["demos"]  # dicts: question, steps, answer, keyword, keyword_meaning, equation
STEP_LINE = re.compile(r"^Step (\d+): ", re.MULTILINE)

TOM_STEPS = ["Tom starts with 5.", "He buys 3, so 5 + 3 = 8.", "He has 8 pens."]
AMY = "Amy has 2 cats. She adopts 1 more. How many cats?"


def value(out, key: str):
    """An emitted value rebuilt from its flattened keys: lists from ("seq", n), dicts from ("map", "k1,k2")."""
    v = out.get(key)
    if isinstance(v, tuple) and v[0] == "seq":
        return [value(out, f"{key}.{i}") for i in range(v[1])]
    if isinstance(v, tuple) and v[0] == "map":
        return {k: value(out, f"{key}.{k}") for k in v[1].split(",") if k}
    return v


def from_text(out, key: str):
    """A result the probe sent as one JSON string (its length was left open by the old test)."""
    text = out.get(key)
    expect(isinstance(text, str), f"{key}: not sent as text")
    return json.loads(text)


def a_list(out, key: str) -> list:
    """A returned list (the probe sent `KEY.is_list`: the old `==` with a list rejected a tuple)."""
    equal(out.get(f"{key}.is_list"), True, what=f"{key} is a list")
    return value(out, key)


# --------------------------------------------------------------------------- by hand


@check("hand_written_zero_shot_prompts")
def zero_shot(out, ref):
    equal(out["zero_shot"], "Q: Amy has 2 cats. She adopts 1 more. How many cats?\nA:", what="zero_shot")
    equal(out["zero_shot_cot"],
          "Q: Amy has 2 cats. She adopts 1 more. How many cats?\nA: Let's think step by step.", what="zero_shot_cot")
    equal(out["zero_shot_more_steps"], (
        "Q: Amy has 2 cats. She adopts 1 more. How many cats?\n"
        "A: Let's think step by step, you must think more steps."), what="zero_shot_more_steps")


@check("hand_written_prompts")
def hand_written_prompts(out, ref):
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
    equal(out["add_steps_5"], f"{tom_5}\n\n{even_5}\n\n{query}", what="add_steps, n_steps=5")

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
    equal(out["few_shot_cot"], f"{plain_even}\n\n{plain_tom}\n\n{query}", what="few_shot_cot")

    # Compressing TOM's 3 steps into 2 groups: sizes 2 and 1 (larger first).
    tom_c2 = (
        "Q: Tom has 5 pens. He buys 3 more. How many pens?\n"
        "A: Let's think step by step.\n"
        "Step 1: Tom starts with 5. He buys 3, so 5 + 3 = 8.\n"
        "Step 2: He has 8 pens.\n"
        "Therefore, the answer is 8."
    )
    equal(out["compress_steps_2"], f"{tom_c2}\n\n{plain_even}\n\n{query}", what="compress_steps, n_steps=2")


@check("hand_written_partial_expansions")
def partial_expansions(out, ref):
    # Two steps: the first two strategies in order (read again, think about the word) for TOM;
    # EVEN has no key word, so it gets read again + repeat state.
    equal(a_list(out, "tom_2"), [
        'Read the question again: "Tom has 5 pens. He buys 3 more. How many pens?"',
        'Think about the word "how many": asks for a count',
        "Tom starts with 5.", "He buys 3, so 5 + 3 = 8.", "He has 8 pens.",
    ], what="expand_rationale(TOM, 2)")
    equal(a_list(out, "even_2"), [
        'Read the question again: "Is 4 even?"', "4 = 2 * 2.", "Repeat the current state: 4 = 2 * 2.",
    ], what="expand_rationale(EVEN, 2)")
    # Four steps for TOM: read again, word, repeat state, self-verification (the equation is 5th).
    tom_4 = from_text(out, "tom_4")
    expect(isinstance(tom_4, list) and tom_4, "expand_rationale(TOM, 4): not a non-empty sequence")
    equal(tom_4[-1], "Verify the answer: 8 is consistent with every number in the question.",
          what="expand_rationale(TOM, 4)[-1]")
    expect(all(isinstance(s, str) for s in tom_4), "expand_rationale(TOM, 4): a step is not a string")
    expect(not any(s.startswith("Write the reasoning") for s in tom_4),
           "expand_rationale(TOM, 4) writes the equation")
    equal(a_list(out, "tom_0"), TOM_STEPS, what="expand_rationale(TOM, 0)")


# --------------------------------------------------------------------------- structure


def n_available(demo: dict) -> int:
    has_word = demo["keyword"] is not None and demo["keyword_meaning"] is not None
    return 3 + int(has_word) + int(demo["equation"] is not None)


def expected_step_count(demo: dict, strategy: str, n: int) -> int:
    if strategy == "add_steps":
        return len(demo["steps"]) + min(n, n_available(demo))
    if strategy == "compress_steps":
        return min(n, len(demo["steps"]))
    return len(demo["steps"])


def _one_prompt_structure(c: dict, prompt) -> None:
    expect(isinstance(prompt, str), "the prompt is not a string")
    blocks = prompt.split("\n\n")
    query = f"Q: {c['question']}\nA:"
    if c["strategy"].startswith("zero_shot"):
        expect(len(blocks) == 1 and blocks[0].startswith(query), "a zero-shot prompt is not just the query")
        return
    demos = [POOL[i] for i in c["demos"]]
    expect(len(blocks) == len(demos) + 1, "not one block per demonstration plus the query")
    equal(blocks[-1], f"{query} Let's think step by step.", what="the query block")
    for block, demo in zip(blocks, demos):  # same order as given
        expect(block.startswith(f"Q: {demo['question']}\nA: Let's think step by step.\n"), "demonstration header")
        expect(block.endswith(f"\nTherefore, the answer is {demo['answer']}."), "demonstration answer line")
        numbers = [int(k) for k in STEP_LINE.findall(block)]
        equal(numbers, list(range(1, expected_step_count(demo, c["strategy"], c["n_steps"]) + 1)),
              what="step numbers")


@check("prompt_structure")
def prompt_structure(out, ref):
    prompts = value(out, "prompts")
    expect(isinstance(prompts, list) and len(prompts) == len(CASES["prompts"]), "one prompt per case")
    for c, prompt in zip(CASES["prompts"], prompts):
        _one_prompt_structure(c, prompt)


@check("step_count_grows_with_n_until_strategies_run_out")
def step_count(out, ref):
    expansions = value(out, "expansions")
    expect(isinstance(expansions, list) and len(expansions) == len(POOL), "one row per demonstration")
    for demo, row in zip(POOL, expansions):
        counts = [len(e) if isinstance(e, list) else None for e in row]
        equal(counts, [len(demo["steps"]) + min(n, n_available(demo)) for n in range(6)], what="step counts")


@check("expansion_keeps_original_steps_in_order")
def keeps_order(out, ref):
    expansions = value(out, "expansions")
    expect(isinstance(expansions, list) and len(expansions) == len(POOL), "one expansion per demonstration")
    for k, demo in enumerate(POOL):
        expanded = from_text(out, f"expansions.{k}")
        expect(isinstance(expanded, list), "an expansion is not a sequence")
        expect(all(s in expanded for s in demo["steps"]), "an original step is missing")
        positions = [expanded.index(s) for s in demo["steps"]]
        equal(positions, sorted(positions), what="original steps' order")
        expect(expanded[0] not in demo["steps"], "read-again does not come first")  # read-again always comes first


def group_sizes(steps: list[str], groups: list[str]) -> list[int]:
    """How many consecutive original steps were merged into each group."""
    sizes, i = [], 0
    for group in groups:
        acc: list[str] = []
        while " ".join(acc) != group:
            expect(i < len(steps) and len(" ".join(acc)) < len(group), "group is not a merge of consecutive steps")
            acc.append(steps[i])
            i += 1
        sizes.append(len(acc))
    expect(i == len(steps), "some steps were dropped")
    return sizes


@check("compression_keeps_all_text_in_balanced_groups")
def balanced_groups(out, ref):
    rows = value(out, "groups")
    expect(isinstance(rows, list) and len(rows) == len(POOL), "one row per demonstration")
    for demo, row in zip(POOL, rows):
        expect(isinstance(row, list) and len(row) == 8, "one compression per n in 1..8")
        for n, groups in zip(range(1, 9), row):
            expect(isinstance(groups, list), "a compression is not a sequence")
            equal(len(groups), min(n, len(demo["steps"])), what=f"number of groups for n = {n}")
            expect(all(isinstance(g, str) for g in groups), "a group is not a string")
            sizes = group_sizes(demo["steps"], groups)
            expect(max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True),
                   f"unbalanced groups {sizes} for n = {n}")


@check("n_steps_is_ignored_by_strategies_that_do_not_use_it")
def n_steps_ignored(out, ref):
    for strategy in ("zero_shot", "zero_shot_cot", "zero_shot_more_steps", "few_shot_cot"):
        equal(out[f"{strategy}.n3"], out[f"{strategy}.default"], what=f"{strategy} with n_steps=3")


@check("inputs_are_not_modified")
def inputs_not_modified(out, ref):
    equal(value(out, "steps_after"), value(ref, "steps_before"), what="the demonstrations' steps")
    equal(value(out, "steps_after_types"), ["tuple", "tuple"], what="the demonstrations' steps' type")
    equal(value(out, "demos"), [value(out, "tom"), value(out, "even")], what="the list of demonstrations")
    equal(a_list(out, "tom_0"), TOM_STEPS, what="expand_rationale(TOM, 0) afterwards")


@check("valid_edge_arguments")
def valid_edge_arguments(out, ref):
    expansion = value(out, "expand_5")
    expect(isinstance(expansion, list), "expand_rationale(TOM, 5): not a sequence")
    equal(len(expansion), 8, what="len(expand_rationale(TOM, 5))")
    equal(a_list(out, "compress_1"), [" ".join(TOM_STEPS)], what="compress_rationale(TOM, 1)")
