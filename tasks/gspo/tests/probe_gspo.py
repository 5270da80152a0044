"""Probe for gspo/1: the GSPO core in gspo/algorithm.py. Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_gspo.py recompute the paper's equations and check the properties it states. Cheap unit cases
come first, the training runs last."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import torch

from gspo.algorithm import (clip_fraction, gspo_loss, gspo_token_loss, group_advantages, optimise_on_batch, policy_loss,
                            sequence_log_ratio)
from gspo.config import GSPOConfig
from lmrbench_probe import case
from train import build

CASES = torch.load(Path(__file__).parent / "fixtures" / "gspo_cases.pt", weights_only=True)
ADVANTAGE, RATIO, LOSS, TOKEN = (CASES[k] for k in ("advantage", "ratio", "loss", "token"))
F64 = dict(rtol=1e-12, atol=1e-14)
F32 = dict(rtol=1e-5, atol=2e-6)
TOL32 = {"f32.*": F32}


def f64(x: torch.Tensor) -> torch.Tensor:
    """Values as float64 (inputs echoed for the checks)."""
    return x.detach().to(torch.float64)


def tag(dtype: torch.dtype) -> str:
    return "f32" if dtype == torch.float32 else "f64"


# ---------------------------------------------------------------- group_advantages


def adv_id(i: int) -> str:
    c = ADVANTAGE[i]
    return f"{i}-{tuple(c['rewards'].shape)}-{tag(c['rewards'].dtype)}-eps{c['eps']}-unbiased{c['unbiased']}"


@case(params=range(len(ADVANTAGE)), ids=[adv_id(i) for i in range(len(ADVANTAGE))], **F64, outputs=TOL32)
def advantages_match_reference(i):
    c = ADVANTAGE[i]
    out = group_advantages(c["rewards"].clone(), eps=c["eps"], unbiased=c["unbiased"])
    return {f"{tag(c['rewards'].dtype)}.advantages": out, "rewards": f64(c["rewards"]), "eps": c["eps"],
            "unbiased": c["unbiased"]}


@case(**F64)
def advantages_hand_values():
    rewards = torch.tensor([[1.0, 0.0, 0.0, 1.0], [0.5, 0.5, 0.5, 0.5], [1.0, 0.0, 0.0, 0.0]], dtype=torch.float64)
    return {"unbiased": group_advantages(rewards, eps=0.0, unbiased=True)[[0, 2]],
            "population": group_advantages(rewards, eps=0.0, unbiased=False)[[0, 2]],
            "constant_group": group_advantages(rewards, eps=1e-6, unbiased=True)[1],
            "with_eps": group_advantages(rewards[:1], eps=0.5, unbiased=False),
            "defaults": group_advantages(rewards[:1])}


@case(params=["1d", "g1", "3d"])
def advantages_reject_bad_shape(kind):
    rewards = {"1d": torch.tensor([1.0, 0.0, 1.0]), "g1": torch.tensor([[1.0], [0.0]]),
               "3d": torch.zeros(2, 3, 4)}[kind]
    return {"result": group_advantages(rewards)}


# ---------------------------------------------------------------- sequence_log_ratio


def ratio_id(i: int) -> str:
    c = RATIO[i]
    return f"{i}-{tuple(c['logprobs'].shape)}-{tag(c['logprobs'].dtype)}"


@case(params=range(len(RATIO)), ids=[ratio_id(i) for i in range(len(RATIO))], **F64, outputs=TOL32)
def ratio_matches_reference(i):
    c = RATIO[i]
    logprobs = c["logprobs"].clone().requires_grad_(True)
    out = sequence_log_ratio(logprobs, c["old_logprobs"].clone(), c["mask"].clone())
    cot = torch.linspace(-1.0, 2.0, out.numel(), dtype=out.dtype).reshape(out.shape)
    (grad,) = torch.autograd.grad((out * cot).sum(), logprobs)
    p = tag(c["logprobs"].dtype)
    return {f"{p}.log_ratio": out, f"{p}.grad": grad, "logprobs": f64(c["logprobs"]),
            "old_logprobs": f64(c["old_logprobs"]), "mask": c["mask"], "cot": f64(cot)}


@case(**F64)
def ratio_hand_values():
    # response 1: token ratios 2, 1/2, 4 (three tokens); response 2: one token of ratio 3, padding junk after it
    ratios = torch.tensor([[2.0, 0.5, 4.0], [3.0, 7.0, 0.1]], dtype=torch.float64)
    old = torch.tensor([[-1.0, -0.5, -3.0], [-2.0, -0.1, -4.0]], dtype=torch.float64)
    mask = torch.tensor([[True, True, True], [True, False, False]])
    log_ratio = sequence_log_ratio(old + torch.log(ratios), old, mask)
    return {"log_ratio": log_ratio, "ratio": torch.exp(log_ratio)}


@case(params=["shape", "mask_dtype"])
def ratio_rejects(kind):
    x = torch.zeros(2, 3)
    if kind == "shape":
        return {"result": sequence_log_ratio(x, torch.zeros(2, 4), torch.ones(2, 3, dtype=torch.bool))}
    return {"result": sequence_log_ratio(x, x, torch.ones(2, 3))}


# ---------------------------------------------------------------- gspo_loss


def loss_id(cases: list, i: int) -> str:
    c = cases[i]
    return f"{i}-{tuple(c['logprobs'].shape)}-{tag(c['logprobs'].dtype)}-eps{c['eps_low']},{c['eps_high']}"


def loss_and_grad(fn, logprobs, old, adv, mask, eps_low, eps_high):
    logprobs = logprobs.clone().requires_grad_(True)
    loss = fn(logprobs, old.clone(), adv.clone(), mask.clone(), eps_low, eps_high)
    (grad,) = torch.autograd.grad(loss, logprobs)
    return loss, grad


def loss_outputs(fn, c: dict) -> dict:
    loss, grad = loss_and_grad(fn, c["logprobs"], c["old_logprobs"], c["advantages"], c["mask"], c["eps_low"],
                               c["eps_high"])
    p = tag(c["logprobs"].dtype)
    return {f"{p}.loss": loss, f"{p}.grad": grad, "logprobs": f64(c["logprobs"]),
            "old_logprobs": f64(c["old_logprobs"]), "advantages": f64(c["advantages"]), "mask": c["mask"],
            "eps_low": c["eps_low"], "eps_high": c["eps_high"]}


@case(params=range(len(LOSS)), ids=[loss_id(LOSS, i) for i in range(len(LOSS))], **F64, outputs=TOL32)
def loss_matches_reference(i):
    return loss_outputs(gspo_loss, LOSS[i])


@case(**F64)
def loss_hand_values():
    # two groups of two responses, T = 2; the per-token ratios are chosen by hand (see check_gspo.py)
    ratio = torch.tensor([[[1.21, 1.0], [0.25, 0.9]], [[1.21, 1.0], [0.81, 1.0]]], dtype=torch.float64)
    mask = torch.tensor([[[True, True], [True, False]], [[True, True], [True, True]]])
    adv = torch.tensor([[1.0, -1.0], [-0.5, 0.5]], dtype=torch.float64)
    old = torch.tensor([[[-1.0, -2.0], [-0.5, -3.0]], [[-1.5, -0.2], [-2.5, -0.7]]], dtype=torch.float64)
    loss, grad = loss_and_grad(gspo_loss, old + torch.log(ratio), old, adv, mask, 0.2, 0.05)
    return {"loss": loss, "grad": grad}


@case(params=[torch.float64, torch.float32], ids=["f64", "f32"], **F64, outputs=TOL32)
def loss_on_policy(dtype):
    # the first update of an iteration: pi_theta = pi_theta_old, every ratio is 1
    g = torch.Generator().manual_seed(5)
    n, grp, t = 3, 4, 6
    old = torch.log(torch.rand(n, grp, t, generator=g, dtype=torch.float64) * 0.9 + 0.05).to(dtype)
    adv = torch.randn(n, grp, generator=g, dtype=torch.float64).to(dtype)
    lengths = torch.randint(1, t + 1, (n, grp), generator=g)
    mask = torch.arange(t) < lengths.unsqueeze(-1)
    loss, grad = loss_and_grad(gspo_loss, old, old, adv, mask, 3e-4, 4e-4)
    p = tag(dtype)
    return {f"{p}.loss": loss, f"{p}.grad": grad, "advantages": f64(adv), "lengths": lengths}


@case(rtol=1e-12, atol=1e-14)
def loss_length_normalised():
    # every token of a response has the same log-ratio c_i: s_i = exp(c_i) whatever the length
    c = torch.tensor([[0.1, -0.1, 0.02], [0.0, 0.3, -0.02]], dtype=torch.float64)
    adv = torch.tensor([[1.0, -1.0, 0.5], [-0.5, 0.5, -2.0]], dtype=torch.float64)
    out = {}
    for t, lengths in ((1, [[1, 1, 1], [1, 1, 1]]), (9, [[9, 2, 5], [3, 7, 1]])):
        mask = torch.arange(t) < torch.tensor(lengths).unsqueeze(-1)
        old = torch.full((2, 3, t), -1.5, dtype=torch.float64)
        out[f"t{t}.loss"] = gspo_loss(old + c.unsqueeze(-1), old, adv, mask, 0.2, 0.27)
        out[f"t{t}.log_ratio"] = sequence_log_ratio(old + c.unsqueeze(-1), old, mask)
    return out


@case(rtol=1e-12, atol=1e-14)
def loss_ignores_padding():
    c = next(c for c in LOSS if tuple(c["logprobs"].shape) == (3, 5, 11) and c["logprobs"].dtype == torch.float64
             and c["eps_high"] == 0.27)
    g = torch.Generator().manual_seed(6)
    noise = torch.randn(c["logprobs"].shape, generator=g, dtype=torch.float64).masked_fill(c["mask"], 0.0)
    args = (c["advantages"], c["mask"], c["eps_low"], c["eps_high"])
    base = loss_and_grad(gspo_loss, c["logprobs"], c["old_logprobs"], *args)
    moved = loss_and_grad(gspo_loss, c["logprobs"] + noise, c["old_logprobs"] - 2 * noise, *args)
    return {"base.loss": base[0], "base.grad": base[1], "moved.loss": moved[0], "moved.grad": moved[1],
            "mask": c["mask"]}


@case(params=["advantages", "mask_shape"])
def loss_rejects(kind):
    x = torch.zeros(2, 3, 4)
    if kind == "advantages":
        return {"result": gspo_loss(x, x, torch.zeros(2, 3, 4), torch.ones(2, 3, 4, dtype=torch.bool), 0.2, 0.2)}
    return {"result": gspo_loss(x, x, torch.zeros(2, 3), torch.ones(2, 3, 5, dtype=torch.bool), 0.2, 0.2)}


# ---------------------------------------------------------------- clip_fraction (advantages never 0 here)


@case(params=range(len(LOSS)), ids=[loss_id(LOSS, i) for i in range(len(LOSS))], **F64, outputs=TOL32)
def clip_fraction_matches_reference(i):
    c = LOSS[i]
    logprobs = c["logprobs"].clone().requires_grad_(True)
    out = clip_fraction(logprobs, c["old_logprobs"].clone(), c["advantages"].clone(), c["mask"].clone(),
                        c["eps_low"], c["eps_high"])
    p = tag(c["logprobs"].dtype)
    return {f"{p}.fraction": out.detach(), "logprobs": f64(c["logprobs"]), "old_logprobs": f64(c["old_logprobs"]),
            "advantages": f64(c["advantages"]), "mask": c["mask"], "eps_low": c["eps_low"], "eps_high": c["eps_high"]}


@case(**F64)
def clip_fraction_hand_values():
    # the batch of loss_hand_values (see check_gspo.py), and the same with every advantage's sign flipped
    ratio = torch.tensor([[[1.21, 1.0], [0.25, 0.9]], [[1.21, 1.0], [0.81, 1.0]]], dtype=torch.float64)
    mask = torch.tensor([[[True, True], [True, False]], [[True, True], [True, True]]])
    adv = torch.tensor([[1.0, -1.0], [-0.5, 0.5]], dtype=torch.float64)
    old = torch.tensor([[[-1.0, -2.0], [-0.5, -3.0]], [[-1.5, -0.2], [-2.5, -0.7]]], dtype=torch.float64)
    new = old + torch.log(ratio)
    return {"fraction": clip_fraction(new, old, adv, mask, 0.2, 0.05),
            "flipped": clip_fraction(new, old, -adv, mask, 0.2, 0.05),
            "on_policy": clip_fraction(old, old, adv, mask, 3e-4, 4e-4)}


@case
def clip_fraction_rejects_token_advantages():
    x = torch.zeros(2, 3, 4)
    return {"result": clip_fraction(x, x, torch.ones(2, 3, 4), torch.ones(2, 3, 4, dtype=torch.bool), 0.2, 0.2)}


# ---------------------------------------------------------------- gspo_token_loss


@case(params=range(len(TOKEN)), ids=[loss_id(TOKEN, i) for i in range(len(TOKEN))], **F64, outputs=TOL32)
def token_loss_matches_reference(i):
    return loss_outputs(gspo_token_loss, TOKEN[i])


@case(params=[i for i, c in enumerate(LOSS) if c["logprobs"].dtype == torch.float64 and c["logprobs"].shape[-1] > 1],
      rtol=1e-12, atol=1e-14)
def token_loss_with_shared_advantages(i):
    # A_{i,t} = A_i for every token: the same objective and gradient as GSPO (Section 4.3)
    c = LOSS[i]
    shared = c["advantages"].unsqueeze(-1).expand_as(c["logprobs"])
    args = (c["old_logprobs"], c["mask"], c["eps_low"], c["eps_high"])
    seq = loss_and_grad(gspo_loss, c["logprobs"], args[0], c["advantages"], *args[1:])
    tok = loss_and_grad(gspo_token_loss, c["logprobs"], args[0], shared, *args[1:])
    return {"gspo.loss": seq[0], "gspo.grad": seq[1], "token.loss": tok[0], "token.grad": tok[1]}


@case(**F64)
def token_loss_hand_values():
    # one group of two responses of 2 and 3 tokens; see check_gspo.py
    ratio = torch.tensor([[[1.44, 1.0, 1.0], [1.0, 1.0, 0.125]]], dtype=torch.float64)
    mask = torch.tensor([[[True, True, False], [True, True, True]]])
    adv = torch.tensor([[[1.0, -2.0, 9.0], [0.5, -1.0, 3.0]]], dtype=torch.float64)
    old = torch.tensor([[[-1.0, -2.0, -0.3], [-0.5, -3.0, -1.0]]], dtype=torch.float64)
    loss, grad = loss_and_grad(gspo_token_loss, old + torch.log(ratio), old, adv, mask, 0.2, 0.1)
    return {"loss": loss, "grad": grad}


@case
def token_loss_rejects_response_advantages():
    x = torch.zeros(2, 3, 4)
    return {"result": gspo_token_loss(x, x, torch.zeros(2, 3), torch.ones(2, 3, 4, dtype=torch.bool), 0.2, 0.2)}


# ---------------------------------------------------------------- policy_loss and optimise_on_batch, on rollouts


def rollouts(cfg: GSPOConfig, dtype: torch.dtype):
    """A trainer for `cfg` under the default dtype `dtype`, and one rollout batch of its policy."""
    trainer = build(cfg)
    return trainer, trainer.sample_rollouts()


def with_default(dtype: torch.dtype, fn):
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        return fn()
    finally:
        torch.set_default_dtype(previous)


@case(params=["gspo", "gspo_token", "grpo"], rtol=1e-10, atol=1e-12)
def policy_loss_on_rollouts(loss_type):
    def run():
        cfg = GSPOConfig(loss_type=loss_type, clip_eps_low=0.02, clip_eps_high=0.03, seed=3)
        trainer, batch = rollouts(cfg, torch.float64)
        # move the policy a little so that the ratios differ from 1
        with torch.no_grad():
            for k, p in enumerate(trainer.policy.parameters()):
                p.add_(0.05 * torch.cos(torch.arange(p.numel(), dtype=p.dtype) + k).reshape(p.shape))
        advantages = torch.linspace(-1.5, 1.5, batch.rewards.numel(), dtype=torch.float64).reshape(batch.rewards.shape)
        logprobs = trainer.policy_logprobs(batch).detach().requires_grad_(True)
        loss = policy_loss(logprobs, batch, advantages, cfg)
        (grad,) = torch.autograd.grad(loss, logprobs)
        return {"loss_type": loss_type, "loss": loss, "grad": grad, "logprobs": f64(logprobs), "old_logprobs": f64(batch.old_logprobs),
                "advantages": advantages, "mask": batch.response_mask()}
    return with_default(torch.float64, run)


@case
def policy_loss_rejects_unknown_type():
    cfg = GSPOConfig(loss_type="ppo")
    trainer, batch = rollouts(cfg, torch.float32)
    return {"result": policy_loss(trainer.policy_logprobs(batch), batch, torch.zeros(batch.rewards.shape), cfg)}


class Recorder:
    """Wraps the trainer's `policy_logprobs` and optimiser, recording what `optimise_on_batch` asks of them."""

    def __init__(self, trainer) -> None:
        self.trainer = trainer
        self.events: list[str] = []
        self.batches: list[str] = []
        self.param_groups = trainer.optimizer.param_groups

    def policy_logprobs(self, batch):
        self.events.append("logprobs")
        self.batches.append(" ".join(str(x) for x in batch.prompts.reshape(-1).tolist()))
        return self.trainer.policy_logprobs(batch)

    def zero_grad(self, set_to_none: bool = True) -> None:
        self.events.append("zero_grad")
        self.trainer.optimizer.zero_grad(set_to_none=set_to_none)

    def step(self, closure=None):
        self.events.append("step")
        return self.trainer.optimizer.step()


UPDATE_SETTINGS = {
    "gspo": {},
    "gspo-2passes-mb1": dict(updates_per_step=2, minibatch_groups=1),
    "gspo-mb3-population": dict(queries_per_step=5, minibatch_groups=3, adv_unbiased_std=False, adv_eps=0.05),
    "gspo-wide-clip": dict(clip_eps_low=0.05, clip_eps_high=0.1, updates_per_step=2),
    "gspo_token": dict(loss_type="gspo_token", updates_per_step=2),
    "grpo": dict(loss_type="grpo", updates_per_step=2),
}


# the order of zero_grad / forward / step and how the mini-batches are evaluated are left to the implementation:
# only the checks look at them
@case(params=list(UPDATE_SETTINGS), rtol=1e-10, atol=1e-12,
      outputs={"events": {"compare": "none"}, "batches": {"compare": "none"}})
def updates_on_rollouts(name):
    def run():
        cfg = replace(GSPOConfig(seed=7, lr=0.02), **UPDATE_SETTINGS[name])
        trainer, batch = rollouts(cfg, torch.float64)
        recorder = Recorder(trainer)
        losses = optimise_on_batch(batch, recorder.policy_logprobs, recorder, cfg)
        params = torch.cat([p.detach().reshape(-1) for p in trainer.policy.parameters()])
        return {"losses": torch.tensor(losses, dtype=torch.float64), "loss_types": [type(x).__name__ for x in losses],
                "events": ",".join(recorder.events), "batches": " | ".join(recorder.batches), "params": params,
                "rewards": batch.rewards, "lengths": batch.lengths}
    return with_default(torch.float64, run)


def train_steps(steps: int, **overrides):
    def run():
        trainer = build(replace(GSPOConfig(), **overrides))
        history = [trainer.step() for _ in range(steps)]
        params = torch.cat([p.detach().reshape(-1) for p in trainer.policy.parameters()])
        return {"losses": torch.tensor([x for s in history for x in s.losses], dtype=torch.float64),
                "mean_reward": torch.tensor([s.mean_reward for s in history], dtype=torch.float64),
                "mean_length": torch.tensor([s.mean_length for s in history], dtype=torch.float64),
                "params": params}
    return with_default(torch.float64, run)


@case(params=["gspo", "gspo_token", "grpo"], rtol=1e-9, atol=1e-11)
def trainer_steps(loss_type):
    return train_steps(3, loss_type=loss_type, lr=0.01, seed=1)
