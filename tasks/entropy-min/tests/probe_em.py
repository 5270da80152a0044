"""Probe for entropy-min/1: the EM-FT and EM-RL objectives and EM-INF in emr/entropy.py.
Runs in the sandbox; emits outputs only, never compares."""
from __future__ import annotations

from pathlib import Path

import torch
from emr.config import LOSS_AGG_MODES, REWARD_KINDS, InfConfig, ModelConfig
from emr.entropy import (aggregate_loss, em_ft_loss, em_inf_generate, em_inf_logits, em_rl_loss, entropy_rewards,
                         rloo_advantages, token_entropy)
from emr.model import TinyLM
from lmrbench_probe import case

CASES = torch.load(Path(__file__).parent / "fixtures" / "em_cases.pt", weights_only=True)
TOKEN, INF, DECODE = CASES["token"], CASES["inf"], CASES["decode"]
F64 = dict(rtol=1e-9, atol=1e-11)
F32 = dict(rtol=5e-5, atol=5e-6)
RL_VALUE = {"out.rl.*": {"compare": "none"}}  # the loss value: either reading, judged by the checks


# ---------------------------------------------------------------- cheap hand cases first


@case(**F64)
def hand_values():
    # uniform over 4 -> log 4; dyadic (1/2, 1/4, 1/8, 1/8) -> 1.75 log 2
    logits = torch.log(torch.tensor([[0.25] * 4, [0.5, 0.25, 0.125, 0.125]], dtype=torch.float64))
    values = torch.tensor([[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]], dtype=torch.float64)
    mask = torch.tensor([[False, True, True, True], [False, False, False, True]])
    ids = torch.tensor([[0, 1, 2, 3], [0, 0, 1, 2]])
    seq_logits = logits.unsqueeze(0).expand(2, 2, 4)   # (B=2, T=2, V=4)
    seq_ids = torch.tensor([[0, 1], [2, 3]])
    seq_mask = torch.tensor([[True, True], [False, True]])
    return {"entropy": token_entropy(logits),
            "agg": {m: aggregate_loss(values, mask, m) for m in LOSS_AGG_MODES},
            "ft": {m: em_ft_loss(seq_logits, seq_mask, m) for m in LOSS_AGG_MODES},
            "rewards": {k: entropy_rewards(seq_logits, seq_ids, seq_mask, k) for k in REWARD_KINDS},
            "rloo": rloo_advantages(torch.tensor([1.0, 2.0, 6.0, 0.0, 4.0, 5.0], dtype=torch.float64), 3),
            "ids": ids}


@case(params=["mean", "sum", ""])
def aggregate_rejects_unknown_mode(mode):
    return {"loss": aggregate_loss(torch.ones(2, 3), torch.ones(2, 3, dtype=torch.bool), mode)}


@case
def ft_rejects_unknown_mode():
    return {"loss": em_ft_loss(torch.zeros(1, 2, 3), torch.ones(1, 2, dtype=torch.bool), "token-sum")}


@case
def rewards_reject_unknown_kind():
    return {"r": entropy_rewards(torch.zeros(1, 2, 3), torch.zeros(1, 2, dtype=torch.long),
                                 torch.ones(1, 2, dtype=torch.bool), "trajectory")}


@case(params=[(torch.ones(4), 1), (torch.ones(6), 4), (torch.ones(3), 2), (torch.ones(5), 0)])
def rloo_rejects_bad_group(args):
    rewards, k = args
    return {"a": rloo_advantages(rewards, k)}


@case
def rl_rejects_unknown_mode():
    return {"loss": em_rl_loss(torch.zeros(1, 2, 3), torch.zeros(1, 2, dtype=torch.long),
                               torch.ones(1, 2, dtype=torch.bool), torch.ones(1), "seq-sum")}


@case(**F64)
def entropy_extremes():
    logits = torch.tensor([[0.0, 0.0, 0.0], [60.0, 0.0, -60.0], [-50.0, -50.0, 200.0], [3.0, 3.0, -300.0]],
                          dtype=torch.float64)
    return {"h": token_entropy(logits), "h3d": token_entropy(logits.reshape(2, 2, 3))}


# ---------------------------------------------------------------- random batches


F64_TOKEN = [i for i in range(len(TOKEN)) if TOKEN[i]["logits"].dtype == torch.float64]
F32_TOKEN = [i for i in range(len(TOKEN)) if TOKEN[i]["logits"].dtype == torch.float32]


@case(params=F64_TOKEN, **F64)
def losses_match_reference_f64(i):
    return _losses(TOKEN[i])


@case(params=F32_TOKEN, **F32)
def losses_match_reference_f32(i):
    return _losses(TOKEN[i])


def _losses(c: dict) -> dict:
    out = {"entropy": token_entropy(c["logits"])}
    for m in LOSS_AGG_MODES:
        v = c["values"].clone().requires_grad_(True)
        agg = aggregate_loss(v, c["mask"], m)
        agg.backward()
        out[f"agg.{m}"], out[f"agg_grad.{m}"] = agg.detach(), v.grad
        z = c["logits"].clone().requires_grad_(True)
        ft = em_ft_loss(z, c["mask"], m)
        ft.backward()
        out[f"ft.{m}"], out[f"ft_grad.{m}"] = ft.detach(), z.grad
    return {"out": out, "mask": c["mask"], "values": c["values"].double(), "logits": c["logits"].double(),
            "dtype": str(c["logits"].dtype)}


@case(params=F64_TOKEN, outputs=RL_VALUE, **F64)
def rl_matches_reference_f64(i):
    return _rl(TOKEN[i])


@case(params=F32_TOKEN, outputs=RL_VALUE, **F32)
def rl_matches_reference_f32(i):
    return _rl(TOKEN[i])


def _rl(c: dict) -> dict:
    logits, ids, mask, k = c["logits"], c["input_ids"], c["mask"], c["group_size"]
    rewards = {kind: entropy_rewards(logits.clone().requires_grad_(True), ids, mask, kind) for kind in REWARD_KINDS}
    out = {"rewards": {kind: r.detach() for kind, r in rewards.items()},
           "rewards_grad": {kind: bool(r.requires_grad) for kind, r in rewards.items()}}
    if k >= 2:
        out["rloo"] = rloo_advantages(c["advantages"], k)
    for m in LOSS_AGG_MODES:
        z = logits.clone().requires_grad_(True)
        adv = c["advantages"].clone().requires_grad_(True)
        loss = em_rl_loss(z, ids, mask, adv, m)
        loss.backward()
        out[f"rl.{m}"], out[f"rl_grad.{m}"] = loss.detach(), z.grad
        out[f"adv_grad_none.{m}"] = adv.grad is None or bool((adv.grad == 0).all())
    return {"out": out, "logits": logits.double(), "ids": ids, "mask": mask,
            "advantages": c["advantages"].double(), "group_size": k}


@case(params=[i for i in range(len(INF)) if INF[i]["logits"].dtype == torch.float64], **F64)
def inf_matches_reference_f64(i):
    return _inf(INF[i])


@case(params=[i for i in range(len(INF)) if INF[i]["logits"].dtype == torch.float32], rtol=2e-4, atol=2e-5)
def inf_matches_reference_f32(i):
    return _inf(INF[i])


def _inf(c: dict) -> dict:
    logits = c["logits"].clone()
    cfg = InfConfig(**c["cfg"])
    adjusted, steps = em_inf_logits(logits, cfg)
    return {"adjusted": adjusted, "steps": steps, "input_after": logits.double(),
            "requires_grad": bool(adjusted.requires_grad), "logits": c["logits"].double(),
            "threshold": cfg.threshold, "max_steps": cfg.max_steps, "optimizer": cfg.optimizer, "lr": cfg.lr}


@case(params=range(len(DECODE)), compare="exact")
def decode_matches_reference(i):
    c = DECODE[i]
    model = TinyLM(ModelConfig(seed=c["model_seed"]))
    cfg = InfConfig(**c["cfg"])
    tokens = em_inf_generate(model, c["prompts"].clone(), cfg, c["temperature"],
                             torch.Generator().manual_seed(c["draw_seed"]))
    params_after = torch.cat([p.detach().flatten() for p in model.parameters()])
    return {"tokens": tokens, "params_after": params_after}
