"""Probe for kimi-k15/1: the RL algorithm in kimi/rl.py. Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted checks
in check_kimi.py add hand-checked values and the properties the method description states. Cheap cases first."""
from __future__ import annotations

from pathlib import Path

import torch

from kimi.config import ObjectiveConfig, PolicyConfig, SamplerConfig, TrainConfig
from kimi.data import make_problems
from kimi.policy import ToyPolicy
from kimi.rl import (
    PrioritizedSampler,
    length_penalty,
    log_partition,
    mirror_descent_loss,
    mirror_descent_update,
    rl_iteration,
    shaped_rewards,
)
from kimi.rollout import RolloutBatch, collect
from lmrbench_probe import case
from train import run

CASES = torch.load(Path(__file__).parent / "fixtures" / "kimi_cases.pt", weights_only=True)
F64, F32 = torch.float64, torch.float32
DTYPES = {"float64": F64, "float32": F32}
# tolerances measured in NOTES.md
TOL64 = dict(rtol=1e-10, atol=1e-12)
TOL32 = {"f32.*": dict(rtol=1e-4, atol=1e-6)}


def prefix(dtype: torch.dtype) -> str:
    return "f32." if dtype == F32 else ""


def batch_of(c: dict) -> RolloutBatch:
    n = c["lengths"].shape[0]
    correct = c["rewards"] > 0.5
    return RolloutBatch(torch.arange(n), torch.zeros(n, 3, dtype=torch.long), c["responses"], c["lengths"],
                        c["ref"], correct)


# ---------------------------------------------------------------- length reward and shaped rewards


@case(params=range(len(CASES["length"])), **TOL64, outputs=TOL32)
def length_penalty_matches_reference(i):
    c = CASES["length"][i]
    dtype = DTYPES[c["dtype"]]
    out = length_penalty(c["lengths"].clone(), c["correct"].clone(), dtype)
    return {f"{prefix(dtype)}reward": out, "lengths": c["lengths"], "correct": c["correct"]}


@case(rtol=1e-12, atol=1e-14)
def length_penalty_hand_values():
    lengths = torch.tensor([[2, 4, 6, 10], [3, 3, 3, 3], [7, 1, 4, 1]])
    correct = torch.tensor([[True, False, True, False], [True, False, True, True], [False, False, True, True]])
    return {"reward": length_penalty(lengths, correct)}


@case(params=["shape", "one_dim"])
def length_penalty_rejects(kind):
    if kind == "shape":
        return {"result": length_penalty(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 4, dtype=torch.bool))}
    return {"result": length_penalty(torch.ones(3, dtype=torch.long), torch.ones(3, dtype=torch.bool))}


# (iteration, length_penalty_weight, length_warmup_iters)
WARMUP = [(0, 0.2, 2), (1, 0.2, 2), (2, 0.2, 2), (5, 0.2, 2), (0, 0.5, 0), (3, 0.0, 1), (4, 1.0, 4)]


@case(params=WARMUP, **TOL64, outputs=TOL32)
def shaped_rewards_around_warmup(param):
    iteration, weight, warmup = param
    c = CASES["length"][0]
    n, k = c["lengths"].shape
    batch = RolloutBatch(torch.arange(n), torch.zeros(n, 2, dtype=torch.long), torch.ones(n, k, 40, dtype=torch.long),
                         c["lengths"], torch.zeros(n, k, 40, dtype=F64), c["correct"])
    cfg = ObjectiveConfig(length_penalty_weight=weight, length_warmup_iters=warmup)
    return {"rewards": shaped_rewards(batch, cfg, iteration), "lengths": c["lengths"], "correct": c["correct"],
            "iteration": iteration, "weight": weight, "warmup": warmup,
            "f32.rewards": shaped_rewards(batch, cfg, iteration, F32)}


# ---------------------------------------------------------------- tau log Z


@case(params=range(len(CASES["logz"])), **TOL64, outputs=TOL32)
def log_partition_matches_reference(i):
    c = CASES["logz"][i]
    out = log_partition(c["rewards"].clone(), c["tau"], c["estimate"])
    p = prefix(c["rewards"].dtype)
    return {f"{p}log_z": out, "rewards": c["rewards"].to(F64), "tau": c["tau"], "estimate": c["estimate"]}


@case(rtol=1e-10, atol=1e-12)
def log_partition_hand_values():
    r = torch.tensor([[1.0, 0.0], [0.5, 0.5]], dtype=F64)
    return {"mean": log_partition(r, 1.0, "mean_reward"), "lme": log_partition(r, 1.0, "log_mean_exp"),
            "lme_small_tau": log_partition(r, 0.01, "log_mean_exp"),
            "lme_large_tau": log_partition(r, 1e3, "log_mean_exp")}


@case(params=["tau_zero", "tau_negative", "unknown_estimate", "no_samples"])
def log_partition_rejects(kind):
    r = torch.ones(2, 3, dtype=F64)
    if kind == "tau_zero":
        return {"result": log_partition(r, 0.0, "mean_reward")}
    if kind == "tau_negative":
        return {"result": log_partition(r, -1.0, "log_mean_exp")}
    if kind == "unknown_estimate":
        return {"result": log_partition(r, 1.0, "max")}
    return {"result": log_partition(torch.ones(2, 0, dtype=F64), 1.0, "mean_reward")}


# ---------------------------------------------------------------- the loss


def loss_and_grad(c: dict) -> dict:
    logprobs = c["logprobs"].clone().requires_grad_(True)
    cfg = ObjectiveConfig(tau=c["tau"], log_z_estimate=c["estimate"])
    loss = mirror_descent_loss(logprobs, batch_of(c), c["rewards"].clone(), cfg)
    loss.backward()
    p = prefix(c["logprobs"].dtype)
    return {f"{p}loss": loss.detach(), f"{p}grad": logprobs.grad, "logprobs": c["logprobs"].to(F64),
            "ref": c["ref"].to(F64), "lengths": c["lengths"], "rewards": c["rewards"].to(F64), "tau": c["tau"],
            "estimate": c["estimate"]}


@case(params=range(len(CASES["loss"])), **TOL64, outputs=TOL32)
def loss_matches_reference(i):
    return loss_and_grad(CASES["loss"][i])


@case(rtol=1e-12, atol=1e-14)
def loss_hand_values():
    # one problem, k = 2 responses of 2 and 1 tokens (T = 3), tau = 0.5
    ref = torch.tensor([[[-1.0, -2.0, 0.0], [-0.5, 0.0, 0.0]]], dtype=F64)
    logprobs = torch.tensor([[[-0.8, -2.1, -9.0], [-0.9, -7.0, -3.0]]], dtype=F64)
    c = {"logprobs": logprobs, "ref": ref, "lengths": torch.tensor([[2, 1]]),
         "responses": torch.tensor([[[5, 6, 0], [7, 0, 0]]]), "rewards": torch.tensor([[1.0, 0.0]], dtype=F64),
         "tau": 0.5, "estimate": "mean_reward"}
    out = loss_and_grad(c)
    lme = loss_and_grad({**c, "estimate": "log_mean_exp"})
    return {"loss": out["loss"], "grad": out["grad"], "lme_loss": lme["loss"], "lme_grad": lme["grad"]}


@case(params=[0, 5, 8], **TOL64, outputs=TOL32)
def loss_at_reference(i):
    # the policy being trained equals the reference: every log-ratio is 0
    c = CASES["loss"][i]
    mask = torch.arange(c["ref"].shape[-1]) < c["lengths"].unsqueeze(-1)
    return loss_and_grad({**c, "logprobs": torch.where(mask, c["ref"], c["logprobs"])})


@case(params=["logprobs", "rewards"])
def loss_rejects(kind):
    c = CASES["loss"][0]
    cfg = ObjectiveConfig()
    if kind == "logprobs":
        return {"result": mirror_descent_loss(c["logprobs"][:, :, :-1], batch_of(c), c["rewards"], cfg)}
    return {"result": mirror_descent_loss(c["logprobs"], batch_of(c), c["rewards"][:, :-1], cfg)}


# ---------------------------------------------------------------- prioritised sampler


def recorded_sampler() -> PrioritizedSampler:
    sampler = PrioritizedSampler(6)
    sampler.update(torch.tensor([0, 2, 2, 5]), torch.tensor(
        [[True, True, False], [True, False, False], [True, True, True], [False, False, False]]))
    sampler.update(torch.tensor([2, 1]), torch.tensor([[False, False, False], [True, True, True]]))
    return sampler


@case(rtol=1e-12, atol=1e-14)
def sampler_bookkeeping():
    fresh = PrioritizedSampler(4)
    sampler = recorded_sampler()
    rates = sampler.success_rates().clone()
    rejected = "none"
    try:
        sampler.update(torch.tensor([1, 6]), torch.ones(2, 3, dtype=torch.bool))
    except ValueError:
        rejected = "ValueError"
    after_bad_update = sampler.success_rates().clone()
    restored = PrioritizedSampler(6)
    restored.load_state_dict(sampler.state_dict())
    restored.update(torch.tensor([3, 2]), torch.tensor([[True, False], [True, True]]))
    sampler.update(torch.tensor([3, 2]), torch.tensor([[True, False], [True, True]]))
    one = PrioritizedSampler(1)
    one.update(torch.tensor([0]), torch.tensor([[False, True]]))
    single = PrioritizedSampler(3)
    single.update(torch.tensor([0, 2]), torch.tensor([[True], [False]]))
    return {"fresh_rates": fresh.success_rates(), "fresh_probs": fresh.probabilities(), "rates": rates,
            "one_rates": one.success_rates(), "one_probs": one.probabilities(),
            "k1_rates": single.success_rates(), "k1_probs": single.probabilities(),
            "pool0_probs": recorded_sampler().probabilities(torch.tensor([0, 3])),
            "probs": recorded_sampler().probabilities(),
            "pool_probs": recorded_sampler().probabilities(torch.tensor([4, 1, 2])),
            "after_bad_update": after_bad_update, "rejected": rejected,
            "restored_rates": restored.success_rates(), "continued_rates": sampler.success_rates(),
            "restored_probs": restored.probabilities()}


@case(params=["no_problems", "id_out_of_range", "negative_id", "rows_disagree", "all_solved", "pool_all_solved",
              "empty_pool", "pool_out_of_range", "load_wrong_size"])
def sampler_rejects(kind):
    if kind == "no_problems":
        return {"result": PrioritizedSampler(0)}
    sampler = recorded_sampler()
    if kind == "id_out_of_range":
        return {"result": sampler.update(torch.tensor([6]), torch.ones(1, 2, dtype=torch.bool))}
    if kind == "negative_id":
        return {"result": sampler.update(torch.tensor([-1]), torch.ones(1, 2, dtype=torch.bool))}
    if kind == "rows_disagree":
        return {"result": sampler.update(torch.tensor([0, 1]), torch.ones(3, 2, dtype=torch.bool))}
    if kind == "all_solved":
        solved = PrioritizedSampler(2)
        solved.update(torch.tensor([0, 1]), torch.ones(2, 4, dtype=torch.bool))
        return {"result": solved.probabilities()}
    if kind == "pool_all_solved":
        return {"result": sampler.probabilities(torch.tensor([1]))}
    if kind == "empty_pool":
        return {"result": sampler.probabilities(torch.zeros(0, dtype=torch.long))}
    if kind == "pool_out_of_range":
        return {"result": sampler.probabilities(torch.tensor([0, 6]))}
    return {"result": sampler.load_state_dict(PrioritizedSampler(5).state_dict())}


@case(compare="none")
def sampler_draws():
    sampler = recorded_sampler()
    g = torch.Generator().manual_seed(3)
    draws = sampler.sample(6000, g)
    pool_draws = sampler.sample(3000, g, torch.tensor([4, 1, 2]))
    single = torch.stack([sampler.sample(1, g) for _ in range(200)]).squeeze(1)
    return {"draws": draws, "pool_draws": pool_draws, "single": single, "probs": sampler.probabilities(),
            "pool_probs": sampler.probabilities(torch.tensor([4, 1, 2]))}


# ---------------------------------------------------------------- the update and a whole run (expensive: last)


def tiny_rollouts(seed: int, n: int, k: int, hidden: int) -> tuple[ToyPolicy, RolloutBatch]:
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    problems = make_problems(10, 3, g)
    policy = ToyPolicy(hidden).to(F64)
    batch = collect(policy, problems, torch.randint(0, 10, (n,), generator=g), k, 6, g)
    return policy, batch


def flat_params(policy: ToyPolicy) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in policy.parameters()])


@case(params=[(0, 3, 4, 2, 0.5, "mean_reward"), (1, 2, 5, 3, 0.2, "log_mean_exp"), (2, 1, 1, 1, 1.0, "mean_reward")],
      rtol=1e-8, atol=1e-10)
def update_matches_reference(param):
    seed, n, k, steps, tau, estimate = param
    policy, batch = tiny_rollouts(seed, n, k, 8)
    before = flat_params(policy)
    rewards = batch.correct.to(F64) + 0.1 * (batch.lengths.to(F64) - 3.0) / 3.0
    cfg = TrainConfig(objective=ObjectiveConfig(tau=tau, log_z_estimate=estimate), inner_steps=steps, lr=0.01)
    losses = mirror_descent_update(policy, batch, rewards, cfg)
    return {"losses": torch.tensor(losses, dtype=F64), "params": flat_params(policy), "before": before,
            "rewards": rewards, "tau": tau, "estimate": estimate, "steps": steps,
            "n_losses": len(losses), "loss_type": type(losses[0]).__name__ if losses else "none"}


def tiny_config(strategy: str, iterations: int) -> TrainConfig:
    return TrainConfig(policy=PolicyConfig(hidden_size=8, max_response_len=6),
                      objective=ObjectiveConfig(tau=0.5, length_penalty_weight=0.3, length_warmup_iters=1),
                      sampler=SamplerConfig(strategy=strategy, curriculum_iters=2), num_problems=12,
                      problems_per_iter=4, samples_per_problem=4, iterations=iterations, inner_steps=2, lr=0.01)


@case(params=[("uniform", 0), ("uniform", 1), ("curriculum", 3)], rtol=1e-7, atol=1e-9)
def iteration_matches_reference(param):
    strategy, iteration = param
    cfg = tiny_config(strategy, 1)
    g = torch.Generator().manual_seed(11)
    torch.manual_seed(11)
    problems = make_problems(cfg.num_problems, 3, g)
    policy = ToyPolicy(cfg.policy.hidden_size).to(F64)
    sampler = PrioritizedSampler(len(problems))
    stats = rl_iteration(cfg, policy, problems, sampler, iteration, g)
    return {"ids": stats.problem_ids, "accuracy": stats.accuracy, "mean_length": stats.mean_length,
            "mean_reward": stats.mean_reward, "losses": torch.tensor(stats.losses, dtype=F64),
            "rates": sampler.success_rates(), "params": flat_params(policy), "k": cfg.samples_per_problem}


def tiny_run(strategy: str, iterations: int) -> dict:
    cfg = tiny_config(strategy, iterations)
    policy, sampler, stats = run(cfg, F64)
    return {"params": flat_params(policy), "losses": torch.tensor([s.losses for s in stats], dtype=F64),
            "rewards": torch.tensor([s.mean_reward for s in stats], dtype=F64),
            "rates": sampler.success_rates(), "ids": torch.stack([s.problem_ids for s in stats]),
            "accuracy": torch.tensor([s.accuracy for s in stats], dtype=F64)}


@case(params=["uniform", "curriculum"], rtol=1e-7, atol=1e-9)
def train_run_matches_reference(strategy):
    return tiny_run(strategy, 2)
