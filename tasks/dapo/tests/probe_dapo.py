"""Probe for dapo/1: the DAPO core in dapo/algorithm.py. Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_dapo.py add hand-checked values and the paper's properties."""
from __future__ import annotations

from pathlib import Path

import torch

from dapo.algorithm import dapo_policy_loss, dynamic_sampling, group_advantages, overlong_penalty, shaped_rewards
from dapo.config import DAPOConfig
from dapo.rollout import RolloutBatch
from lmrbench_probe import case
from train import build

CASES = torch.load(Path(__file__).parent / "fixtures" / "dapo_cases.pt", weights_only=True)
PENALTY, REWARD, ADVANTAGE, LOSS, SAMPLING = (CASES[k] for k in ("penalty", "reward", "advantage", "loss", "sampling"))
F64 = dict(rtol=1e-12, atol=1e-14)
F32 = dict(rtol=1e-5, atol=2e-6)


def f64(x: torch.Tensor) -> torch.Tensor:
    """Values as float64 (inputs echoed for the checks, and outputs whose dtype other cases judge)."""
    return x.detach().to(torch.float64)


def tag(dtype: torch.dtype) -> str:
    return "f32" if dtype == torch.float32 else "f64"


# ---------------------------------------------------------------- overlong_penalty and shaped_rewards


@case(params=range(len(PENALTY)), **F32)  # float32: the default dtype
def penalty_matches_reference(i):
    c = PENALTY[i]
    out = overlong_penalty(c["lengths"].clone(), c["max_len"], c["buffer_len"])
    return {"penalty": out,
            "lengths": c["lengths"], "max_len": c["max_len"], "buffer_len": c["buffer_len"]}


@case(**F32)
def penalty_hand_values():
    return {"penalty": overlong_penalty(torch.arange(0, 13), 10, 4),
            "paper_setting": overlong_penalty(torch.tensor([16384, 17408, 18432, 20480, 20481]), 20480, 4096)}


@case(params=[(10, 0), (10, 11), (4, -2)], ids=["buffer0", "buffer_over_max", "negative"])
def penalty_rejects_bad_buffer(arg):
    max_len, buffer_len = arg
    return {"result": overlong_penalty(torch.arange(5), max_len, buffer_len)}


@case(params=range(len(REWARD)), **F32)  # float32: the default dtype
def rewards_match_reference(i):
    c = REWARD[i]
    out = shaped_rewards(c["correct"].clone(), c["lengths"].clone(), c["max_len"], c["buffer_len"])
    return {"rewards": out, "correct": c["correct"], "lengths": c["lengths"],
            "max_len": c["max_len"], "buffer_len": c["buffer_len"]}


@case(**F32)
def rewards_hand_values():
    correct = torch.tensor([True, False, True, False, True, False])
    lengths = torch.tensor([3, 3, 7, 7, 12, 12])
    return {"rewards": shaped_rewards(correct, lengths, 10, 4)}


@case(**F64)
def rewards_follow_the_default_dtype():
    c = REWARD[0]
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        penalty = overlong_penalty(c["lengths"].clone(), 12, 5)
        rewards = shaped_rewards(c["correct"].clone(), c["lengths"].clone(), 12, 5)
    finally:
        torch.set_default_dtype(previous)
    return {"penalty": penalty, "rewards": rewards, "correct": c["correct"], "lengths": c["lengths"]}


@case
def rewards_reject_bad_buffer():
    return {"result": shaped_rewards(torch.tensor([True]), torch.tensor([3]), 5, 6)}


# ---------------------------------------------------------------- group_advantages


def adv_id(i: int) -> str:
    c = ADVANTAGE[i]
    return f"{i}-{tuple(c['rewards'].shape)}-{tag(c['rewards'].dtype)}-eps{c['eps']}-unbiased{c['unbiased']}"


@case(params=range(len(ADVANTAGE)), ids=[adv_id(i) for i in range(len(ADVANTAGE))], **F64,
      outputs={"f32.*": F32})
def advantages_match_reference(i):
    c = ADVANTAGE[i]
    out = group_advantages(c["rewards"].clone(), eps=c["eps"], unbiased=c["unbiased"])
    return {f"{tag(c['rewards'].dtype)}.advantages": out, "rewards": f64(c["rewards"]), "eps": c["eps"],
            "unbiased": c["unbiased"]}


@case(**F64)
def advantages_hand_values():
    rewards = torch.tensor([[1.0, -1.0, -1.0, 1.0], [0.5, 0.5, 0.5, 0.5], [1.0, -1.0, -1.0, -1.0]],
                           dtype=torch.float64)
    return {"unbiased": group_advantages(rewards, eps=0.0, unbiased=True)[[0, 2]],
            "population": group_advantages(rewards, eps=0.0, unbiased=False)[[0, 2]],
            "constant_group": group_advantages(rewards, eps=1e-6, unbiased=True)[1],
            "with_eps": group_advantages(rewards[:1], eps=0.5, unbiased=False),
            "defaults": group_advantages(rewards[:1])}


@case(params=[0.0, 1e-6], ids=["eps0", "eps1e-6"], rtol=1e-9, atol=1e-9)
def advantages_affine_invariance(eps):
    g = torch.Generator().manual_seed(3)
    rewards = torch.randn(4, 6, generator=g, dtype=torch.float64)
    return {"eps": eps, "base": group_advantages(rewards, eps=eps), "affine": group_advantages(3.0 * rewards - 2.0, eps=eps),
            "per_group_shift": group_advantages(rewards + torch.arange(4.0, dtype=torch.float64)[:, None], eps=eps),
            "permuted": group_advantages(rewards[[2, 0, 3, 1]][:, [5, 4, 3, 2, 1, 0]], eps=eps)}


@case(params=["1d", "g1"], ids=["1d", "g1"])
def advantages_reject_bad_shape(kind):
    rewards = torch.tensor([1.0, -1.0, 1.0]) if kind == "1d" else torch.tensor([[1.0], [-1.0]])
    return {"result": group_advantages(rewards)}


# ---------------------------------------------------------------- dynamic_sampling


def script(rounds: list[dict]):
    """A `sample_round` that replays the scripted rounds (then repeats the last one) and counts its calls."""
    calls = []

    def sample_round() -> RolloutBatch:
        fields = rounds[min(len(calls), len(rounds) - 1)]
        calls.append(len(calls))
        return RolloutBatch(**{k: v.clone() for k, v in fields.items()})

    return sample_round, calls


@case(params=range(len(SAMPLING)), compare="exact")
def dynamic_sampling_matches_reference(i):
    c = SAMPLING[i]
    sample_round, calls = script(c["rounds"])
    try:
        batch = dynamic_sampling(sample_round, c["batch_size"], c["max_rounds"])
    except RuntimeError as exc:
        return {"raised": type(exc).__name__, "calls": len(calls), "max_rounds": c["max_rounds"]}
    out = {"raised": "", "calls": len(calls), "max_rounds": c["max_rounds"],
           "is_rollout_batch": isinstance(batch, RolloutBatch)}
    for name in ("prompts", "answers", "responses", "lengths", "old_logprobs", "correct", "rewards"):
        out[name] = getattr(batch, name)
    return out


@case(params=[1, 3, 4], ids=["N1", "N3", "N4"], **F32)
def dynamic_sampling_in_the_trainer(n):
    trainer = build(DAPOConfig(train_groups=n, prompts_per_round=2, group_size=6, seed=n))
    batch = dynamic_sampling(trainer.sample_round, n, 20)
    return {"rounds": trainer.rounds, "prompts": batch.prompts, "correct": batch.correct, "lengths": batch.lengths,
            "rewards": batch.rewards, "responses": batch.responses}


# ---------------------------------------------------------------- dapo_policy_loss


def loss_id(i: int) -> str:
    c = LOSS[i]
    return f"{i}-{tuple(c['logprobs'].shape)}-{tag(c['logprobs'].dtype)}-eps{c['eps_low']},{c['eps_high']}"


def pick(shape: tuple[int, ...], eps_high: float) -> dict:
    """The first float64 loss case of that shape and epsilon_high."""
    return next(c for c in LOSS if tuple(c["logprobs"].shape) == shape and c["eps_high"] == eps_high
                and c["logprobs"].dtype == torch.float64)


def loss_and_grad(logprobs, old, adv, mask, eps_low, eps_high):
    logprobs = logprobs.clone().requires_grad_(True)
    loss = dapo_policy_loss(logprobs, old.clone(), adv.clone(), mask.clone(), eps_low, eps_high)
    (grad,) = torch.autograd.grad(loss, logprobs)
    return loss, grad


@case(params=range(len(LOSS)), ids=[loss_id(i) for i in range(len(LOSS))], **F64, outputs={"f32.*": F32})
def loss_matches_reference(i):
    c = LOSS[i]
    loss, grad = loss_and_grad(c["logprobs"], c["old_logprobs"], c["advantages"], c["mask"], c["eps_low"],
                               c["eps_high"])
    p = tag(c["logprobs"].dtype)
    return {f"{p}.loss": loss, f"{p}.grad": grad,
            "ratio": f64(torch.exp(c["logprobs"].double() - c["old_logprobs"].double())),
            "advantages": f64(c["advantages"]), "mask": c["mask"], "eps_low": c["eps_low"], "eps_high": c["eps_high"]}


@case(**F64)
def loss_hand_values():
    # two groups of two responses, T = 2; ratios chosen by hand (see check_dapo.py)
    ratio = torch.tensor([[[1.25, 1.5], [0.5, 0.9]], [[1.0, 0.7], [0.9, 1.1]]], dtype=torch.float64)
    mask = torch.tensor([[[True, True], [True, False]], [[True, True], [True, True]]])
    adv = torch.tensor([[1.0, -1.0], [-0.5, 0.5]], dtype=torch.float64)
    old = torch.tensor([[[-1.0, -2.0], [-0.5, -3.0]], [[-1.5, -0.2], [-2.5, -0.7]]], dtype=torch.float64)
    loss, grad = loss_and_grad(old + torch.log(ratio), old, adv, mask, 0.2, 0.28)
    return {"loss": loss, "grad": grad}


@case(params=[torch.float64, torch.float32], ids=["f64", "f32"], **F64, outputs={"f32.*": F32})
def loss_on_policy(dtype):
    # first update of a step: pi_theta = pi_theta_old, every ratio is 1
    g = torch.Generator().manual_seed(5)
    n, grp, t = 3, 4, 6
    old = torch.log(torch.rand(n, grp, t, generator=g, dtype=torch.float64) * 0.9 + 0.05).to(dtype)
    adv = torch.randn(n, grp, generator=g, dtype=torch.float64).to(dtype)
    lengths = torch.randint(1, t + 1, (n, grp), generator=g)
    mask = torch.arange(t) < lengths.unsqueeze(-1)
    loss, grad = loss_and_grad(old, old, adv, mask, 0.2, 0.28)
    p = tag(dtype)
    return {f"{p}.loss": loss, f"{p}.grad": grad, "advantages": f64(adv), "lengths": lengths}


@case(rtol=1e-12, atol=1e-14)
def loss_ignores_padding():
    c = pick((2, 4, 7), 0.28)
    g = torch.Generator().manual_seed(6)
    noise = torch.randn(c["logprobs"].shape, generator=g, dtype=torch.float64).masked_fill(c["mask"], 0.0)
    base = loss_and_grad(c["logprobs"], c["old_logprobs"], c["advantages"], c["mask"], 0.2, 0.28)
    moved = loss_and_grad(c["logprobs"] + noise, c["old_logprobs"] - 2 * noise, c["advantages"], c["mask"], 0.2, 0.28)
    return {"base.loss": base[0], "base.grad": base[1], "moved.loss": moved[0], "moved.grad": moved[1],
            "mask": c["mask"]}


@case(rtol=1e-12, atol=1e-14)
def loss_permutation_invariance():
    c = pick((3, 5, 11), 0.5)
    args = (c["logprobs"], c["old_logprobs"], c["advantages"], c["mask"], 0.1, 0.5)
    groups, responses = torch.tensor([2, 0, 1]), torch.tensor([4, 1, 3, 0, 2])
    perm = [x[groups][:, responses] for x in args[:4]]
    base = loss_and_grad(*args)
    permuted = loss_and_grad(*perm, 0.1, 0.5)
    return {"base.loss": base[0], "permuted.loss": permuted[0], "base.grad_permuted": base[1][groups][:, responses],
            "permuted.grad": permuted[1]}


@case(**F64)
def loss_token_level_weighting():
    # one group: a 1-token response and a 4-token response, each token with the same ratio and the same
    # advantage sign within a response
    old = torch.full((1, 2, 4), -1.0, dtype=torch.float64)
    mask = torch.tensor([[[True, False, False, False], [True, True, True, True]]])
    out = {}
    for name, adv in (("short_positive", [1.0, -1.0]), ("long_positive", [-1.0, 1.0])):
        loss, grad = loss_and_grad(old, old, torch.tensor([adv], dtype=torch.float64), mask, 0.2, 0.28)
        out[f"{name}.loss"], out[f"{name}.grad"] = loss, grad
    return out


# ---------------------------------------------------------------- the method end to end, through the trainer


def train_steps(dtype: torch.dtype, steps: int, **overrides):
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        cfg = DAPOConfig(prompts_per_round=4, group_size=6, train_groups=3, minibatch_groups=2, **overrides)
        trainer = build(cfg)
        history = [trainer.step() for _ in range(steps)]
        params = torch.cat([p.detach().reshape(-1) for p in trainer.policy.parameters()])
    finally:
        torch.set_default_dtype(previous)
    return {"losses": torch.tensor([x for s in history for x in s.losses], dtype=torch.float64),
            "rounds": [s.rounds for s in history], "accuracy": [s.accuracy for s in history],
            "mean_reward": torch.tensor([s.mean_reward for s in history], dtype=torch.float64),
            "mean_length": [s.mean_length for s in history], "params": f64(params)}


@case(rtol=1e-10, atol=1e-12)
def trainer_steps_float64():
    return train_steps(torch.float64, 3)


@case(rtol=1e-10, atol=1e-12)
def trainer_steps_other_settings():
    return train_steps(torch.float64, 2, clip_eps_low=0.1, clip_eps_high=0.4, max_response_len=8,
                       overlong_buffer_len=6, adv_unbiased_std=False, seed=4)


@case(rtol=2e-4, atol=2e-5)
def trainer_steps_float32():
    return train_steps(torch.float32, 2)


@case
def trainer_sampling_budget_exhausted():
    # no generation round can give an informative group when the batch needs more groups than the rounds allow
    trainer = build(DAPOConfig(train_groups=50, prompts_per_round=2, max_sampling_rounds=3))
    try:
        trainer.step()
    except RuntimeError as exc:
        return {"raised": type(exc).__name__, "rounds": trainer.rounds}
    return {"raised": "", "rounds": trainer.rounds}

