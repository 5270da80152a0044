"""Probe for steplength/1: expand_rationale, compress_rationale and build_prompt in steplen/prompting.py. Runs in the
sandbox; emits outputs only, never compares.

The fixture cases are compared with the reference's outputs exactly (tests/expected/, outside the sandbox); the
hand-written prompts and the structural properties are judged by the trusted checks in check_steplength.py only
(compare="none": the old tests did not compare those outputs with the reference). The old
tests compared lists with `==`, so a tuple was wrong: every returned list comes with `KEY.is_list`."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from lmrbench_probe import case
from steplen.data import Demonstration
from steplen.prompting import build_prompt, compress_rationale, expand_rationale

CASES = json.loads((Path(__file__).parent / "fixtures" / "steplength_cases.json").read_text(encoding="utf-8"))
POOL = [Demonstration(**{**d, "steps": tuple(d["steps"])}) for d in CASES["demos"]]

# A small example checked by hand (see hand_written_prompts in the check file).
TOM = Demonstration(
    "Tom has 5 pens. He buys 3 more. How many pens?",
    ("Tom starts with 5.", "He buys 3, so 5 + 3 = 8.", "He has 8 pens."),
    "8", keyword="how many", keyword_meaning="asks for a count", equation="5 + 3 = 8",
)
EVEN = Demonstration("Is 4 even?", ("4 = 2 * 2.",), "yes")
AMY = "Amy has 2 cats. She adopts 1 more. How many cats?"


def as_text(value) -> str:
    """A result whose length the old test left open, as one JSON string: every key the reference's run emits must be
    present in the candidate's, so a list of a different length would fail on the missing items alone."""
    return json.dumps(value, default=repr)


def listed(key: str, value) -> dict:
    """A returned list and whether it is a list (the old tests' `==` with a list rejected a tuple)."""
    return {key: value, f"{key}.is_list": isinstance(value, list)}


# --------------------------------------------------------------------------- by hand (check file)


@case(compare="none")
def hand_written_zero_shot_prompts():
    return {"zero_shot": build_prompt(AMY, [], "zero_shot"),
            "zero_shot_cot": build_prompt(AMY, [TOM], "zero_shot_cot"),
            "zero_shot_more_steps": build_prompt(AMY, [TOM, EVEN], "zero_shot_more_steps")}


@case(compare="none")
def hand_written_prompts():
    return {"add_steps_5": build_prompt(AMY, [TOM, EVEN], "add_steps", n_steps=5),
            "few_shot_cot": build_prompt(AMY, [EVEN, TOM], "few_shot_cot"),
            "compress_steps_2": build_prompt(AMY, [TOM, EVEN], "compress_steps", n_steps=2)}


@case(compare="none")
def hand_written_partial_expansions():
    return {**listed("tom_2", expand_rationale(TOM, 2)), **listed("even_2", expand_rationale(EVEN, 2)),
            "tom_4": as_text(expand_rationale(TOM, 4)), **listed("tom_0", expand_rationale(TOM, 0))}


# --------------------------------------------------------------------------- differential (the reference's outputs)


@case(params=range(len(CASES["expand"])), compare="exact")
def expand_matches_reference(idx):
    c = CASES["expand"][idx]
    return listed("steps", expand_rationale(POOL[c["demo"]], c["n"]))


@case(params=range(len(CASES["compress"])), compare="exact")
def compress_matches_reference(idx):
    c = CASES["compress"][idx]
    return listed("steps", compress_rationale(POOL[c["demo"]], c["n"]))


def prompt_of(c: dict) -> str:
    return build_prompt(c["question"], [POOL[i] for i in c["demos"]], c["strategy"], n_steps=c["n_steps"])


@case(params=range(len(CASES["prompts"])), compare="exact")
def prompt_matches_reference(idx):
    return {"prompt": prompt_of(CASES["prompts"][idx])}


# --------------------------------------------------------------------------- structure (check file)


@case(compare="none")
def prompt_structure():
    return {"prompts": [prompt_of(c) for c in CASES["prompts"]]}


@case(compare="none")
def step_count_grows_with_n_until_strategies_run_out():
    return {"expansions": [[expand_rationale(demo, n) for n in range(6)] for demo in POOL]}


@case(compare="none")
def expansion_keeps_original_steps_in_order():
    return {"expansions": [as_text(expand_rationale(demo, 5)) for demo in POOL]}


@case(compare="none")
def compression_keeps_all_text_in_balanced_groups():
    return {"groups": [[compress_rationale(demo, n) for n in range(1, 9)] for demo in POOL]}


@case(compare="none")
def n_steps_is_ignored_by_strategies_that_do_not_use_it():
    demos = POOL[:3]
    out = {}
    for strategy in ("zero_shot", "zero_shot_cot", "zero_shot_more_steps", "few_shot_cot"):
        out[f"{strategy}.n3"] = build_prompt(AMY, demos, strategy, n_steps=3)
        out[f"{strategy}.default"] = build_prompt(AMY, demos, strategy)
    return out


def _fields(demo) -> dict:
    return {"type": type(demo).__name__, **dataclasses.asdict(demo)}


@case(compare="none", outputs={"*steps_before*": {"compare": "exact"}})
def inputs_are_not_modified():
    demos = [TOM, EVEN]
    before = [TOM.steps, EVEN.steps]
    out = {"steps_before": [list(s) for s in before]}
    expanded = expand_rationale(TOM, 5)
    expanded.append("extra")
    comp = compress_rationale(EVEN, 3)
    comp.append("extra")
    build_prompt(AMY, demos, "add_steps", n_steps=3)
    out["steps_after"] = [TOM.steps, EVEN.steps]
    out["steps_after_types"] = [type(TOM.steps).__name__, type(EVEN.steps).__name__]
    out["demos"] = [_fields(d) for d in demos]
    out["tom"], out["even"] = _fields(TOM), _fields(EVEN)
    out.update(listed("tom_0", expand_rationale(TOM, 0)))
    return out


# --------------------------------------------------------------------------- errors: the reference raises ValueError


@case
def unknown_strategy_raises():
    return {"result": build_prompt(AMY, [TOM], "least_to_most")}


@case
def few_shot_without_demonstrations_raises():
    return {"result": build_prompt(AMY, [], "few_shot_cot")}


@case
def add_steps_without_demonstrations_raises():
    return {"result": build_prompt(AMY, [], "add_steps", n_steps=1)}


@case
def expanding_by_more_than_five_raises():
    return {"result": expand_rationale(TOM, 6)}


@case
def expanding_by_a_negative_number_raises():
    return {"result": expand_rationale(TOM, -1)}


@case
def compressing_to_zero_steps_raises():
    return {"result": compress_rationale(TOM, 0)}


@case(compare="none")
def valid_edge_arguments():
    return {"expand_5": expand_rationale(TOM, 5), **listed("compress_1", compress_rationale(TOM, 1))}
