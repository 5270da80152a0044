"""Trusted checks for trl-a2po/1 (never enter the sandbox).

The probe records every (prompt, completion) the reward functions were shown, in call order, with the trainer's
step at the time, and the completions' log-probabilities under the policy each step started from, under the
reference (the initial model) and under the final policy (computed by the probe straight from the logits). From
these the checks rebuild with paper.md's equations:

- Stage 1 (paper.md section 2): the first N * P records are the N reference samples of each of the P training
  prompts; V*(x) = beta1 * log((1/N) sum_i exp(r_i / beta1)); with filtering, prompts whose N rewards are all zero
  are never trained on (and, with it off, every prompt is);
- Stage 2 (section 3): one completion per prompt per step, the loss of each step
  (beta2 * (log pi - log pi_ref) - (r - V*))^2 averaged over the batch or summed (section 3: either), the first
  SGD update of the output head, and the evaluation loss after training.

The rewards are recomputed here from the recorded strings with the same binary functions the probe hands to the
trainer (weighted sum, weights 1 by default: the config docstring)."""

from __future__ import annotations

import json
import math

import numpy as np

from lmrbench.checks import check, close, expect

# V* reaches the loss through whatever float type an implementation keeps it in (the release: float32), so the
# losses are compared at float32-level tolerances
LOSS_RTOL, LOSS_ATOL = 1e-5, 2e-6


def _parity(prompt, completion, solution):
    return float(sum(map(ord, completion)) % 2 == 0)


def _contains(prompt, completion, solution):
    return float(solution in completion)


def _parity_but_def(prompt, completion, solution):
    return 0.0 if prompt == "def" else _parity(prompt, completion, solution)


FUNCS = {"parity": _parity, "contains": _contains, "parity_but_def": _parity_but_def}


def _reward(cfg, prompt, completion):
    solution = dict(zip(cfg["prompts"], cfg["solutions"], strict=True))[prompt]
    weights = cfg["reward_weights"] or [1.0] * len(cfg["rewards"])
    return sum(w * FUNCS[name](prompt, completion, solution) for name, w in zip(cfg["rewards"], weights, strict=True))


def _v_star(rewards, beta1):
    r = np.asarray(rewards, dtype=np.float64) / beta1
    m = r.max()
    return beta1 * (m + math.log(np.exp(r - m).sum()) - math.log(len(rewards)))


class Run:
    def __init__(self, out, ref):
        self.cfg = json.loads(ref["cfg"])
        self.rows = json.loads(out["records"])
        cfg = self.cfg
        n, prompts = cfg["num_value_samples"], cfg["prompts"]
        stage1 = self.rows[: n * len(prompts)]
        expect(len(stage1) == n * len(prompts), f"{len(stage1)} reward records, want {n * len(prompts)} for Stage 1")
        counts = {p: sum(r["prompt"] == p for r in stage1) for p in prompts}
        expect(all(c == n for c in counts.values()) and sum(counts.values()) == len(stage1),
               f"Stage 1 must score {n} reference samples of each training prompt: {counts}")
        expect(all(r["phase"] == "train" and r["step"] == 0 for r in stage1), "Stage 1 must run before training")
        self.stage1 = {p: [_reward(cfg, p, r["completion"]) for r in stage1 if r["prompt"] == p] for p in prompts}
        self.stage1_completions = {p: [r["completion"] for r in stage1 if r["prompt"] == p] for p in prompts}
        self.v_star = {p: _v_star(rs, cfg["beta1"]) for p, rs in self.stage1.items()}
        self.all_zero = {p for p, rs in self.stage1.items() if all(x == 0 for x in rs)}
        self.stage2 = [r for r in self.rows[n * len(prompts):] if r["phase"] == "train"]
        self.eval = [r for r in self.rows[n * len(prompts):] if r["phase"] == "eval"]
        for r in self.rows:
            expect(len(r["completion"]) <= cfg["max_completion_length"],
                   f"completion {r['completion']!r} longer than max_completion_length")

    def steps(self):
        by = {}
        for r in self.stage2:
            by.setdefault(r["step"], []).append(r)
        return [by[k] for k in sorted(by)]

    def sq_errors(self, rows):
        b2 = self.cfg["beta2"]
        return np.array([(b2 * (r["logp"] - r["logp_ref"]) - (_reward(self.cfg, r["prompt"], r["completion"])
                                                               - self.v_star[r["prompt"]])) ** 2 for r in rows])


def _mean_or_sum(got, sq, what):
    """paper.md section 3: the loss is a sum over the batch; averaging only rescales it: both accepted."""
    mean, total = float(sq.mean()), float(sq.sum())
    ok = [abs(float(got) - w) <= LOSS_ATOL + LOSS_RTOL * abs(w) for w in (mean, total)]
    expect(any(ok), f"{what}: {float(got)!r}, want the batch mean {mean!r} (or the sum {total!r})")


@check("a2po_run[*]")
def one_generation_per_prompt_each_step(out, ref):
    run = Run(out, ref)
    steps = run.steps()
    expect(len(steps) == run.cfg["steps"], f"on-policy generations at {len(steps)} steps, want {run.cfg['steps']}")
    for k, rows in enumerate(steps):
        prompts = [r["prompt"] for r in rows]
        expect(1 <= len(rows) <= run.cfg["batch"] and len(set(prompts)) == len(prompts),
               f"step {k + 1}: one completion per prompt of a batch of at most {run.cfg['batch']}, got {prompts}")


@check("a2po_run[*]")
def each_step_loss(out, ref):
    run = Run(out, ref)
    logged = np.atleast_1d(np.asarray(out["logged_loss"], dtype=np.float64))
    steps = run.steps()
    expect(len(logged) == len(steps), f"{len(logged)} logged losses for {len(steps)} steps")
    for k, rows in enumerate(steps):
        _mean_or_sum(logged[k], run.sq_errors(rows), f"logged loss of step {k + 1}")


@check("a2po_run[*]")
def first_update_of_the_head(out, ref):
    """At the first step the policy is the reference, so the implicit reward is zero and (plain SGD, learning rate
    lr) the head moves by lr * c * 2 * beta2 * sum_i (r_i - V*_i) * d log pi(y_i|x_i) / d head, c = 1/B or 1."""
    run = Run(out, ref)
    rows = run.steps()[0]
    grads = np.asarray(out["first_step_grads"], dtype=np.float64)
    expect(grads.shape[0] == len(rows), f"{grads.shape[0]} gradients for {len(rows)} first-step completions")
    adv = np.array([_reward(run.cfg, r["prompt"], r["completion"]) - run.v_star[r["prompt"]] for r in rows])
    direction = 2.0 * run.cfg["beta2"] * run.cfg["lr"] * np.tensordot(adv, grads, axes=1)
    got = np.asarray(out["first_update"], dtype=np.float64)
    scale = float(np.abs(direction).max()) + 1e-12
    ok = [float(np.abs(got - c * direction).max()) <= 2e-5 * c * scale + 1e-12 for c in (1.0 / len(rows), 1.0)]
    expect(any(ok), f"first update of the head differs from the regression's gradient step "
                    f"(max |got| {float(np.abs(got).max())}, want {float(np.abs(direction).max()) / len(rows)} "
                    f"(batch mean) or {float(np.abs(direction).max())} (sum))")


@check("a2po_run[*]")
def training_prompts_after_filtering(out, ref):
    """paper.md section 2 / the config docstring: with filter_all_incorrect, prompts whose N reference samples all
    scored zero are dropped from training; without it every prompt is trained on. The runs take enough steps to go
    over every remaining prompt."""
    run = Run(out, ref)
    seen = {r["prompt"] for r in run.stage2}
    allowed = set(run.cfg["prompts"]) - (run.all_zero if run.cfg["filter"] else set())
    expect(seen == allowed, f"trained on prompts {sorted(seen)}, want {sorted(allowed)} "
                            f"(all-incorrect under the reference: {sorted(run.all_zero)})")


@check("a2po_run[keep_all_incorrect]")
@check("a2po_run[filter_all_incorrect]")
def def_is_all_incorrect(out, ref):
    run = Run(out, ref)
    expect("def" in run.all_zero, "the prompt 'def' scores 0 on every sample")


@check("a2po_run[*]")
def evaluation_loss(out, ref):
    run = Run(out, ref)
    if ref["eval_loss"] is None:
        return
    expect(sorted(r["prompt"] for r in run.eval) == sorted(run.cfg["prompts"]),
           f"evaluation must generate one completion per evaluation prompt: {[r['prompt'] for r in run.eval]}")
    _mean_or_sum(out["eval_loss"], run.sq_errors(run.eval), "evaluation loss")


@check("a2po_run[[!g]*]")
def reference_samples_are_sampled(out, ref):
    """paper.md section 2: the N reference responses of a prompt are independent samples (temperature 1 here), not
    one greedy answer: over the four prompts at least one prompt's samples differ."""
    run = Run(out, ref)
    expect(any(len(set(cs)) > 1 for cs in run.stage1_completions.values()),
           f"every prompt's {run.cfg['num_value_samples']} reference samples are identical: "
           f"{run.stage1_completions}")


@check("a2po_run[greedy_*]")
def greedy_generation(out, ref):
    """top_k=1, a tiny top_p or a tiny temperature make both stages' sampling greedy: the N reference samples of a
    prompt are one completion, so V* = r (a mean inside the log, paper.md section 2), every advantage of the (still
    reference) policy is 0 and the loss is exactly 0 (hand value) at every step and in evaluation."""
    run = Run(out, ref)
    for p, cs in run.stage1_completions.items():
        expect(len(set(cs)) == 1, f"greedy reference samples of {p!r} differ: {cs}")
    close(out["logged_loss"], np.zeros(run.cfg["steps"]), atol=1e-12, what="losses with zero advantages")
    close(out["eval_loss"], 0.0, atol=1e-12, what="evaluation loss with zero advantages")
