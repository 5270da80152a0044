"""Trusted checks for s1-budget/1 (never enter the sandbox): a replay of budget forcing (Section 3.1 and the
token accounting of BudgetConfig) against the model's greedy choices emitted by probe_s1.py, and hand-checked
values of Eq. (1) to (3). The default comparison with the reference's outputs has already passed. Parameters of
a case are read from `ref`, never from `out`."""
from __future__ import annotations

from itertools import combinations

from lmrbench.checks import check, close, equal, expect

F64 = dict(rtol=1e-12, atol=1e-14)


def seq(d: dict, key: str) -> list:
    """An emitted list, from its flattened keys."""
    kind, n = d[key]
    equal(kind, "seq", what=f"{key} is a list")
    return [d[f"{key}.{i}"] for i in range(n)]


def answer_of(answer_ids: list[int], mark: int, digits: list[int]) -> str | None:
    """s1.answers.extract_answer, restated: digits after the last "Answer:", else the first run of digits."""
    marks = [i for i, t in enumerate(answer_ids) if t == mark]
    start = marks[-1] + 1 if marks else next((i for i, t in enumerate(answer_ids) if t in digits), len(answer_ids))
    out = ""
    for t in answer_ids[start:]:
        if t not in digits:
            break
        out += str(digits.index(t))
    return out or None


def replay(ref: dict, p: str, b: dict, ids: dict) -> None:
    """One generation, decision by decision (Section 3.1; BudgetConfig's accounting; greedy decoding)."""
    thinking, answer = seq(ref, p + "thinking_ids"), seq(ref, p + "answer_ids")
    greedy_t, greedy_a = seq(ref, p + "greedy_thinking"), seq(ref, p + "greedy_answer")
    wait, prefix = ids["wait"], ids["prefix"]
    j, waits, forced = 0, 0, False
    while True:
        if b["max"] >= 0 and j >= b["max"]:  # maximum: end the thinking here
            forced = True
            equal(len(thinking), j, what=f"{p}: thinking ends at the maximum")
            break
        if greedy_t[j] == ids["end"]:  # the model ends its thinking
            if j >= b["min"] and waits >= b["waits"]:
                equal(len(thinking), j, what=f"{p}: thinking ends where the model ends it")
                break
            equal(thinking[j:j + len(wait)], wait, what=f"{p}: suppressed end replaced by the wait string at {j}")
            waits, j = waits + 1, j + len(wait)
            continue
        equal(thinking[j] if j < len(thinking) else None, greedy_t[j], what=f"{p}: greedy thinking token {j}")
        j += 1
    equal(ref[p + "waits"], waits, what=f"{p}: waits")
    equal(ref[p + "forced_end"], forced, what=f"{p}: forced_end")
    equal(ref[p + "num_thinking_tokens"], len(thinking), what=f"{p}: thinking tokens")
    start = len(prefix) if forced else 0
    equal(answer[:start], prefix[:start] if forced else [], what=f"{p}: answer prefix only when forced")
    generated = answer[start:]
    for k, t in enumerate(generated):
        equal(t, greedy_a[start + k], what=f"{p}: greedy answer token {k}")
    eos_at = [k for k, t in enumerate(generated) if t == ids["eos"]]
    expect(eos_at in ([], [len(generated) - 1]), f"{p}: the answer stops at its first <eos>")
    expect(len(generated) == b["max_answer"] or eos_at, f"{p}: the answer runs to <eos> or to max_answer_tokens")
    expect(len(generated) <= b["max_answer"], f"{p}: at most max_answer_tokens generated answer tokens")
    equal(ref[p + "answer"], answer_of(answer, ids["answer_mark"], ids["digits"]), what=f"{p}: extracted answer")


def case_ids(ref: dict) -> dict:
    return {"wait": seq(ref, "ids.wait"), "prefix": seq(ref, "ids.prefix"), "end": ref["ids.end"],
            "eos": ref["ids.eos"], "answer_mark": ref["ids.answer_mark"], "digits": seq(ref, "ids.digits")}


@check("generation_matches_reference[*]")
def generation_is_budget_forcing(out, ref):
    b = {k: ref[f"budget.{k}"] for k in ("max", "min", "waits", "max_answer")}
    ids = case_ids(ref)
    for i in range(len(seq(ref, "generations"))):
        replay(ref, f"generations.{i}.", b, ids)


@check("prompt_is_not_modified")
def prompt_kept(out, ref):
    equal(seq(out, "prompt"), seq(out, "prompt_ids"), what="Generation.prompt_ids is the question, unchanged")
    equal(out["thinking"], 3, what="maximum 3 thinking tokens")


@check("metrics_match_reference[*]")
def metrics_are_eq1_to_3(out, ref):
    compute, accuracy = seq(ref, "compute"), seq(ref, "accuracy")
    inside = sum(ref["a_min"] <= a <= ref["a_max"] for a in compute)
    close(out["control"], inside / len(compute), **F64, what="Eq. (1)")
    slopes = [(accuracy[j] - accuracy[i]) / (compute[j] - compute[i])
              for i, j in combinations(range(len(compute)), 2)]
    close(out["scaling"], sum(slopes) / len(slopes), **F64, what="Eq. (2)")
    close(out["performance"], max(accuracy), **F64, what="Eq. (3)")


@check("metrics_hand_values")
def metrics_hand_values(out, ref):
    close(out["control_inclusive"], 0.75, **F64, what="4, 8, 16 of 4, 8, 16, 17 lie in [4, 16] (bounds inclusive)")
    close(out["control_none"], 0.0, **F64, what="none in bounds")
    close(out["control_all"], 1.0, **F64, what="a single amount on both bounds")
    # pairs of (1, .1), (2, .3), (4, .2): slopes .2/1, .1/3, -.1/2 -> mean (0.2 + 1/30 - 0.05) / 3 = 0.0611...
    close(out["scaling_three"], (0.2 + 1 / 30 - 0.05) / 3, **F64, what="three settings, all pairs")
    close(out["scaling_unsorted"], (0.2 + 1 / 30 - 0.05) / 3, **F64, what="the same settings, unsorted")
    close(out["scaling_two"], -0.1 / 20, **F64, what="two settings: (0.4 - 0.5) / (30 - 10)")
    close(out["scaling_ints"], 0.5, **F64, what="(3 - 1) / (6 - 2)")
    close(out["performance"], 0.75, **F64, what="max accuracy")
    close(out["performance_one"], 0.125, **F64, what="one setting")


@check("sweep_of_maxima_and_waits")
def sweep_metrics(out, ref):
    for name in ("maximum", "waits"):
        compute, accuracy = seq(ref, f"{name}.compute"), seq(ref, f"{name}.accuracy")
        lo, hi = ref[f"{name}.a_min"], ref[f"{name}.a_max"]
        close(out[f"{name}.control"], sum(lo <= a <= hi for a in compute) / len(compute), **F64, what="Eq. (1)")
        slopes = [(accuracy[j] - accuracy[i]) / (compute[j] - compute[i])
                  for i, j in combinations(range(len(compute)), 2)]
        close(out[f"{name}.scaling"], sum(slopes) / len(slopes), **F64, what="Eq. (2)")
        close(out[f"{name}.performance"], max(accuracy), **F64, what="Eq. (3)")
    maxima = seq(ref, "maximum.compute")
    expect(all(c <= m for c, m in zip(maxima, (2, 6, 12), strict=True)), "a maximum bounds the mean thinking")
    waits = seq(ref, "waits.compute")
    expect(waits[0] < waits[1] < waits[2], "more forced waits, more thinking")
