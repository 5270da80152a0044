"""Probe for less-select/1: LESS in less/select.py. Runs in the sandbox; emits outputs only, never compares.
Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_less.py add hand-checked values and the paper's properties."""
from __future__ import annotations

from pathlib import Path

import torch

from less.checkpoints import AdamState, Checkpoint, warmup_train
from less.config import ModelConfig, WarmupConfig
from less.data import Example, make_pool, make_validation
from less.model import TinyLoRALM
from less.projection import random_projection
from less.select import adam_directions, checkpoint_features, example_gradients, influence_scores, less_select
from lmrbench_probe import case

CASES = torch.load(Path(__file__).parent / "fixtures" / "less_cases.pt", weights_only=True)
SETUPS, ADAM, INFLUENCE = CASES["setups"], CASES["adam"], CASES["influence"]
F64 = dict(rtol=1e-9, atol=1e-11)
F32 = dict(rtol=2e-4, atol=1e-5)


def model_of(s: dict, dtype: torch.dtype = torch.float64) -> TinyLoRALM:
    v, d, r, seed = s["config"]
    return TinyLoRALM(ModelConfig(vocab_size=v, dim=d, rank=r, seed=seed), dtype=dtype)


def pool_of(rows: list[dict]) -> list[Example]:
    return [Example(z["input_ids"].clone(), z["labels"].clone(), z["family"]) for z in rows]


def validation_of(s: dict) -> dict[str, list[Example]]:
    return {k: pool_of(v) for k, v in s["validation"].items()}


def checkpoint_of(c: dict) -> Checkpoint:
    adam = AdamState({k: v.clone() for k, v in c["exp_avg"].items()}, {k: v.clone() for k, v in c["exp_avg_sq"].items()},
                     int(c["step"]), (float(c["betas"][0]), float(c["betas"][1])), float(c["eps"]))
    return Checkpoint({k: v.clone() for k, v in c["params"].items()}, adam, float(c["lr"]), int(c["epoch"]))


def fd_gradient(model: TinyLoRALM, example: Example, h: float = 1e-6) -> torch.Tensor:
    """Central finite differences of model.loss (repository code) in the flattening order (for the checks)."""
    out = []
    with torch.no_grad():
        for p in model.trainable_parameters():
            flat = p.view(-1)
            for k in range(flat.numel()):
                old = float(flat[k])
                flat[k] = old + h
                up = float(model.loss(example))
                flat[k] = old - h
                down = float(model.loss(example))
                flat[k] = old
                out.append((up - down) / (2 * h))
    return torch.tensor(out, dtype=torch.float64)


# ---------------------------------------------------------------- example_gradients

GRADS = [(s, c, dt) for s in range(len(SETUPS)) for c in (0, len(SETUPS[s]["checkpoints"]) - 1)
         for dt in ("f64", "f32")]


# "fd" (central differences, h = 1e-6) carries rounding error of about 1e-10 whatever the BLAS: FD_TOL covers it.
FD_TOL = dict(rtol=1e-6, atol=1e-8)


@case(params=range(len(GRADS)), ids=[f"setup{s}-ck{c}-{dt}" for s, c, dt in GRADS], **F64,
      outputs={"f32.*": F32, "fd": FD_TOL})
def gradients_match_reference(i):
    s, c, dt = GRADS[i]
    dtype = torch.float64 if dt == "f64" else torch.float32
    model = model_of(SETUPS[s], dtype)
    model.load_trainable({k: v.to(dtype) for k, v in SETUPS[s]["checkpoints"][c]["params"].items()})
    pool = pool_of(SETUPS[s]["pool"])[:6]
    grads = example_gradients(model, pool)
    out = {f"{dt}.grads": grads.detach(),
           "grad_fields_untouched": all(p.grad is None for p in model.trainable_parameters())}
    if dt == "f64":
        out["fd"] = torch.stack([fd_gradient(model, z) for z in pool[:2]])
    return out


@case(**F64, outputs={"fd": FD_TOL})
def gradients_of_one_example():
    model = model_of(SETUPS[1])
    model.load_trainable(SETUPS[1]["checkpoints"][1]["params"])
    z = pool_of(SETUPS[1]["pool"])[3]
    return {"grads": example_gradients(model, [z]).detach(), "fd": fd_gradient(model, z).unsqueeze(0)}


# ---------------------------------------------------------------- adam_directions


@case(params=range(len(ADAM)), **F64)
def adam_matches_reference(i):
    c = ADAM[i]
    state = AdamState({k: v.clone() for k, v in c["exp_avg"].items()}, {k: v.clone() for k, v in c["exp_avg_sq"].items()},
                      int(c["step"]), (float(c["betas"][0]), float(c["betas"][1])), float(c["eps"]))
    names = list(c["names"])
    m = torch.cat([c["exp_avg"][k].reshape(-1) for k in names])
    v = torch.cat([c["exp_avg_sq"][k].reshape(-1) for k in names])
    return {"gamma": adam_directions(c["grads"].clone(), state, names), "grads": c["grads"], "m": m, "v": v,
            "step": int(c["step"]), "betas": list(c["betas"]), "eps": float(c["eps"])}


@case(**F32)
def adam_keeps_float32():
    c = ADAM[0]
    state = AdamState(c["exp_avg"], c["exp_avg_sq"], int(c["step"]), (0.9, 0.999), 1e-8)
    return {"gamma": adam_directions(c["grads"].float(), state, list(c["names"]))}


# ---------------------------------------------------------------- checkpoint_features

FEATS = [(s, c) for s in range(len(SETUPS)) for c in range(len(SETUPS[s]["checkpoints"]))]


@case(params=range(len(FEATS)), ids=[f"setup{s}-ck{c}" for s, c in FEATS], **F64)
def features_match_reference(i):
    s, c = FEATS[i]
    setup = SETUPS[s]
    model = model_of(setup)
    ck = checkpoint_of(setup["checkpoints"][c])
    proj = random_projection(model.num_trainable(), 8, seed=s)
    pool, validation = pool_of(setup["pool"]), validation_of(setup)
    train_feats, val_feats = checkpoint_features(model, ck, pool, validation, proj)
    model.load_trainable(ck.params)
    val_grads = {k: example_gradients(model, v).detach() for k, v in validation.items()}
    return {"train": train_feats.detach(), "val": val_feats.detach(), "proj": proj,
            "lora_A_after": model.lora_A.detach().clone(),
            "val_grads": [val_grads[k] for k in validation], "ck_lora_A": ck.params["lora_A"]}


# ---------------------------------------------------------------- influence_scores


@case(params=range(len(INFLUENCE)), **F64)
def influence_matches_reference(i):
    c = INFLUENCE[i]
    return {"scores": influence_scores(c["train"].clone(), c["val"].clone(), c["lrs"].clone()),
            "train": c["train"], "val": c["val"], "lrs": c["lrs"]}


@case(**F64)
def influence_hand_values():
    train = torch.tensor([[[3.0, 4.0], [0.0, 2.0], [-1.0, 0.0]]], dtype=torch.float64)  # one checkpoint, n = 3
    val = torch.tensor([[[1.0, 0.0], [0.0, 5.0]]], dtype=torch.float64)  # J = 2
    return {"scores": influence_scores(train, val, torch.tensor([0.5], dtype=torch.float64)),
            "two_checkpoints": influence_scores(torch.cat([train, 2 * train]), torch.cat([val, -val]),
                                                torch.tensor([0.5, 0.25], dtype=torch.float64))}


@case(**F64)
def influence_ignores_feature_norms():
    c = INFLUENCE[2]
    g = torch.Generator().manual_seed(5)
    scale_t = torch.rand(c["train"].shape[:2] + (1,), generator=g, dtype=torch.float64) * 100 + 0.01
    scale_v = torch.rand(c["val"].shape[:2] + (1,), generator=g, dtype=torch.float64) * 100 + 0.01
    return {"base": influence_scores(c["train"], c["val"], c["lrs"]),
            "rescaled": influence_scores(c["train"] * scale_t, c["val"] * scale_v, c["lrs"])}


# ---------------------------------------------------------------- less_select

SELECT = [(0, 0.25), (0, 0.05), (0, 0.3), (1, 0.5), (1, 1.0), (2, 0.1), (2, 0.3)]


def run_select(s: int, fraction: float, pool_rows=None, proj_dim: int = 8):
    setup = SETUPS[s]
    model = model_of(setup)
    cks = [checkpoint_of(c) for c in setup["checkpoints"]]
    proj = random_projection(model.num_trainable(), proj_dim, seed=10 + s)
    pool = pool_of(pool_rows if pool_rows is not None else setup["pool"])
    return less_select(model, cks, pool, validation_of(setup), proj, fraction)


def selection_out(sel, **extra) -> dict:
    return {"indices": sel.indices, "scores": sel.scores.detach(), "per_subtask": sel.per_subtask.detach(), **extra}


@case(params=range(len(SELECT)), ids=[f"setup{s}-frac{f}" for s, f in SELECT], **F64)
def select_matches_reference(i):
    s, fraction = SELECT[i]
    return selection_out(run_select(s, fraction), fraction=fraction, n=len(SETUPS[s]["pool"]))


# Duplicated rows score equally only up to the host's BLAS (an AVX2 MKL sums a batch's rows in another order and
# can split a duplicate pair by one ulp), so the positions are judged against the candidate's own scores by the
# trusted check (equal scores: lower position first), not copied from the reference's run.
@case(outputs={"indices": {"compare": "none"}}, **F64)
def select_breaks_ties_by_position():
    rows = SETUPS[0]["pool"]
    pool = [rows[5], rows[2], rows[5], rows[9], rows[2], rows[9], rows[5], rows[0]]  # duplicates score equally
    return selection_out(run_select(0, 0.75, pool_rows=pool), fraction=0.75, n=len(pool))


@case(**F64)
def select_one_checkpoint_matches_features():
    """A single checkpoint: the scores follow from checkpoint_features and influence_scores directly."""
    setup = SETUPS[2]
    model = model_of(setup)
    ck = checkpoint_of(setup["checkpoints"][1])
    proj = random_projection(model.num_trainable(), 8, seed=3)
    pool, validation = pool_of(setup["pool"]), validation_of(setup)
    sel = less_select(model, [ck], pool, validation, proj, 0.2)
    return selection_out(sel, lr=ck.lr, fraction=0.2, n=len(pool))


@case(params=["no_checkpoint", "no_subtask", "empty_pool", "fraction0", "fraction_over_1"])
def select_rejects(kind):
    setup = SETUPS[1]
    model = model_of(setup)
    cks = [checkpoint_of(c) for c in setup["checkpoints"]]
    proj = random_projection(model.num_trainable(), 8, seed=0)
    pool, validation, fraction = pool_of(setup["pool"]), validation_of(setup), 0.5
    if kind == "no_checkpoint":
        cks = []
    elif kind == "no_subtask":
        validation = {}
    elif kind == "empty_pool":
        pool = []
    else:
        fraction = 0.0 if kind == "fraction0" else 1.5
    return {"result": less_select(model, cks, pool, validation, proj, fraction)}


# ---------------------------------------------------------------- end to end: warmup training, then LESS


@case(params=["float64", "float32"], **F64, outputs={"f32.*": F32}, dtype=False)  # dtype of scores not pinned
def warmup_then_select(dtype_name):
    dtype = torch.float64 if dtype_name == "float64" else torch.float32
    config = ModelConfig(seed=7)
    model = TinyLoRALM(config, dtype=dtype)
    pool = make_pool(24, seed=7)
    validation = make_validation(("sort", "const"), per_task=2, seed=8)
    cks = warmup_train(model, pool[:6], WarmupConfig(epochs=3, batch_size=2, seed=7))
    proj = random_projection(model.num_trainable(), 12, seed=7, dtype=dtype)
    sel = less_select(model, cks, pool, validation, proj, 0.25)
    tag = "f64" if dtype == torch.float64 else "f32"
    out = {f"{tag}.scores": sel.scores.detach(), f"{tag}.per_subtask": sel.per_subtask.detach()}
    if dtype == torch.float64:
        out["indices"] = sel.indices
    else:
        out["f32_indices_count"] = len(sel.indices)
    return out
