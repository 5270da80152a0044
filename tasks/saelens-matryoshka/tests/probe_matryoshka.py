"""Probe for saelens-matryoshka/1: the Matryoshka BatchTopK SAE and its TopK/BatchTopK/JumpReLU family, reached
through sae_lens's public entry points (config classes, `SAE.from_dict`, `TrainingSAE.from_dict`,
`training_forward_pass`, `SAETrainer.step`, `save_model`/`save_inference_model`/`load_from_disk`, the fold
methods, the registry) on tiny SAEs built here with seeded float64 weights and synthetic activations. No model,
no hub. Loss names are the library's own convention, so losses are emitted by value (see check_matryoshka.py)."""

from __future__ import annotations

import tempfile
import warnings

import torch
from lmrbench_probe import case

import sae_lens
from sae_lens import (
    SAE,
    AbsTopKTrainingSAEConfig,
    BatchTopKTrainingSAEConfig,
    MatryoshkaBatchTopKTrainingSAEConfig,
    TopKTrainingSAEConfig,
    TrainingSAE,
)
from sae_lens.config import LoggingConfig, SAETrainerConfig
from sae_lens.registry import get_sae_class, get_sae_training_class
from sae_lens.saes.batchtopk_sae import BatchTopK
from sae_lens.saes.sae import TrainStepInput
from sae_lens.saes.topk_sae import TopK
from sae_lens.training.sae_trainer import SAETrainer

warnings.filterwarnings("ignore")
F64 = torch.float64
D_IN, D_SAE = 6, 16
WIDTHS = [4, 10, 16]


def _set_weights(sae, seed: int) -> None:
    """Seeded weights with decoder rows of norms in [0.5, 1.5] (so the unit-norm treatment matters)."""
    g = torch.Generator().manual_seed(seed)
    d_in, d_sae = sae.cfg.d_in, sae.cfg.d_sae
    with torch.no_grad():
        w = torch.randn(d_sae, d_in, generator=g, dtype=F64)
        w = w / w.norm(dim=-1, keepdim=True) * (0.5 + torch.rand(d_sae, 1, generator=g, dtype=F64))
        sae.W_dec.data.copy_(w)
        sae.W_enc.data.copy_(w.T + 0.3 * torch.randn(d_in, d_sae, generator=g, dtype=F64))
        sae.b_enc.data.copy_(0.1 * torch.randn(d_sae, generator=g, dtype=F64))
        sae.b_dec.data.copy_(0.1 * torch.randn(d_in, generator=g, dtype=F64))


def _acts(n: int, seed: int, d: int = D_IN) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, d, generator=g, dtype=F64) + 0.5


def _matryoshka_cfg(**kw):
    base = dict(d_in=D_IN, d_sae=D_SAE, k=3, matryoshka_widths=list(WIDTHS), dtype="float64")
    base.update(kw)
    return MatryoshkaBatchTopKTrainingSAEConfig(**base)


def _training_sae(cfg):
    return TrainingSAE.from_dict(cfg.to_dict())


def _step(sae, x, dead=None, logging=False):
    return sae.training_forward_pass(TrainStepInput(sae_in=x, coefficients={}, dead_neuron_mask=dead,
                                                    n_training_steps=0, is_logging_step=logging))


def _loss_values(out) -> list[float]:
    """Every non-zero loss term by value, sorted (the names are the library's choice)."""
    vals = sorted(float(v.detach()) for v in out.losses.values())
    return [v for v in vals if v != 0.0]


def _grads(sae) -> dict:
    return {n: (p.grad.detach().clone() if p.grad is not None else torch.zeros_like(p))
            for n, p in sae.named_parameters()}


def _dead_mask(kind: str) -> torch.Tensor | None:
    if kind == "none":
        return None
    m = torch.zeros(D_SAE, dtype=torch.bool)
    if kind == "few":       # 2 dead latents, both in the last level
        m[[11, 14]] = True
    elif kind == "many":    # 9 dead latents over every level (3 in the first, 4 in the second, 2 in the last)
        m[[0, 2, 3, 5, 6, 8, 9, 12, 15]] = True
    elif kind == "one":     # a single dead latent
        m[7] = True
    elif kind == "level2":  # 5 dead latents, all in the second level (>= d_in // 2 of them)
        m[[4, 5, 7, 8, 9]] = True
    return m


# ----------------------------------------------------------------------------------------------- activations


@case(params=[(2.5, (4, 16), 0.0), (1.0, (3, 2, 16), 0.0), (4.0, (5, 16), 0.0), (5.0, (2, 16), -2.0)],
      rtol=1e-12, atol=1e-12)
def batchtopk_activation(p):
    k, shape, shift = p  # the last case has fewer positive entries than k * batch: only zeros fill the rest
    g = torch.Generator().manual_seed(7)
    x = torch.randn(*shape, generator=g, dtype=F64) + shift
    x.requires_grad_(True)
    y = BatchTopK(k)(x)
    (y * torch.arange(y.numel(), dtype=F64).reshape(y.shape)).sum().backward()
    return {"y": y.detach(), "grad": x.grad}


@case(params=[False, True], rtol=1e-12, atol=1e-12)
def topk_activation(sparse):
    g = torch.Generator().manual_seed(8)
    x = torch.randn(2, 3, 16, generator=g, dtype=F64)
    x[0, 1] -= 3.0  # a row whose top values include negatives: the ReLU zeroes them
    y = TopK(4, use_sparse_activations=sparse)(x)
    return {"y": y.to_dense() if y.is_sparse else y, "sparse": bool(y.is_sparse)}


# ------------------------------------------------------------------------------------- configs and registry


@case(compare="exact")
def config_dicts():
    cfg = _matryoshka_cfg(topk_threshold_lr=0.05, use_matryoshka_aux_loss=True)
    d = cfg.to_dict()
    inf = cfg.get_inference_sae_cfg_dict()
    det = cfg.get_training_architecture_details()
    back = TrainingSAE.from_dict(d)
    bt = BatchTopKTrainingSAEConfig(d_in=D_IN, d_sae=D_SAE, k=2.0)
    return {
        "architecture": d["architecture"],
        "keys": sorted(k for k in d if k != "metadata"),
        "widths": d["matryoshka_widths"],
        "k": d["k"], "lr": d["topk_threshold_lr"], "aux": d["use_matryoshka_aux_loss"],
        "rescale": d["rescale_acts_by_decoder_norm"], "aux_coef": d["aux_loss_coefficient"],
        "meta_training_arch": d["metadata"]["training_architecture"],
        "meta_details": sorted(d["metadata"]["training_architecture_details"]),
        "details": sorted(det),
        "inference_arch": inf["architecture"],
        "inference_keys": sorted(k for k in inf if k != "metadata"),
        "inference_meta_arch": inf["metadata"]["training_architecture"],
        "back_class": type(back).__name__, "back_cfg_class": type(back.cfg).__name__,
        "back_widths": back.cfg.matryoshka_widths, "back_lr": back.cfg.topk_threshold_lr,
        "bt_inference_cfg": bt.get_inference_config_class().__name__,
        "bt_arch": bt.architecture(),
        "topk_inference_cfg": TopKTrainingSAEConfig(d_in=4, d_sae=8).get_inference_config_class().__name__,
    }


@case(compare="exact", outputs={"errors.*": {"compare": "none"}})
def registry_dispatch():
    names = ["standard", "topk", "jumprelu", "batchtopk", "matryoshka_batchtopk", "abstopk"]
    inference = {}
    training = {}
    for n in names:
        try:
            inference[n] = [c.__name__ for c in get_sae_class(n)]
        except Exception:  # noqa: BLE001 (which exception is not decided)
            inference[n] = "error"
        try:
            training[n] = [c.__name__ for c in get_sae_training_class(n)]
        except Exception:  # noqa: BLE001
            training[n] = "error"
    sae = SAE.from_dict({"architecture": "topk", "d_in": 4, "d_sae": 8, "k": 2, "dtype": "float64"})
    jr = SAE.from_dict({"architecture": "jumprelu", "d_in": 4, "d_sae": 8, "dtype": "float64"})
    errors = {}
    try:  # a training-only architecture has no inference class
        SAE.from_dict({"architecture": "matryoshka_batchtopk", "d_in": 4, "d_sae": 8})
        errors["inference_only"] = "none"
    except Exception as e:  # noqa: BLE001
        errors["inference_only"] = type(e).__name__
    try:  # the training loader refuses an inference-only class hierarchy mismatch
        TrainingSAE.get_sae_class_for_architecture("topk")
        errors["training_topk"] = "ok"
    except Exception as e:  # noqa: BLE001
        errors["training_topk"] = type(e).__name__
    try:
        sae_lens.register_sae_class("topk", type(sae), type(sae.cfg))
        errors["duplicate"] = "none"
    except Exception as e:  # noqa: BLE001
        errors["duplicate"] = type(e).__name__
    try:
        sae_lens.register_sae_training_class("matryoshka_batchtopk", object, object)
        errors["duplicate_training"] = "none"
    except Exception as e:  # noqa: BLE001
        errors["duplicate_training"] = type(e).__name__
    # a new architecture: registered, then found by name
    sae_lens.register_sae_class("probe_arch_x", type(jr), type(jr.cfg))
    sae_lens.register_sae_training_class("probe_arch_x", object, object)
    return {"inference": inference, "training": training, "topk_class": type(sae).__name__,
            "topk_cfg": type(sae.cfg).__name__, "topk_k": sae.cfg.k, "jumprelu_class": type(jr).__name__,
            "errors": errors, "new": [c.__name__ for c in get_sae_class("probe_arch_x")],
            "new_training": [c.__name__ for c in get_sae_training_class("probe_arch_x")],
            "dtype": str(sae.W_dec.dtype), "threshold_shape": list(jr.threshold.shape)}


@case(params=["append", "decreasing", "equal", "empty", "nonpositive", "single", "ok"], compare="exact",
      outputs={"error": {"compare": "none"}, "warned": {"compare": "none"}, "widths*": {"compare": "none"}})
def matryoshka_validation(kind):
    widths = {"append": [4, 10], "decreasing": [10, 4, 16], "equal": [4, 4, 16], "empty": [],
              "nonpositive": [0, 8, 16], "single": [16], "ok": [4, 10, 16]}[kind]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            sae = _training_sae(_matryoshka_cfg(matryoshka_widths=widths))
            result = {"widths": list(sae.cfg.matryoshka_widths), "error": "none"}
        except Exception as e:  # noqa: BLE001
            result = {"widths": [], "error": type(e).__name__}
    result["kind"] = kind
    result["warned"] = any(issubclass(w.category, UserWarning) for w in caught)
    return result


@case(rtol=1e-12, atol=1e-12)
def fresh_init():
    torch.manual_seed(3)
    sae = _training_sae(_matryoshka_cfg(decoder_init_norm=0.1))
    params = sorted([n, *p.shape] for n, p in sae.named_parameters())
    buffers = sorted([n, float(b)] for n, b in sae.named_buffers())
    return {"params": params, "buffers": buffers, "norms": sae.W_dec.norm(dim=-1).detach(),
            "tied_gap": float((sae.W_enc - sae.W_dec.T).abs().max()),
            "b_enc": sae.b_enc.detach(), "b_dec": sae.b_dec.detach(),
            "dtype": str(sae.W_dec.dtype), "class": type(sae).__name__}


# --------------------------------------------------------------------------------------- training step


FORWARD = [
    # (rescale, matryoshka aux, dead, apply_b_dec_to_input, k)
    (True, False, "none", True, 3),
    (False, False, "none", True, 3),
    (True, False, "many", True, 3),
    (False, False, "few", True, 2.5),
    (True, True, "many", True, 3),
    (False, True, "many", False, 3),
    (True, True, "level2", True, 4),
    (True, True, "few", True, 3),
]


@case(params=FORWARD, rtol=1e-10, atol=1e-12, outputs={"hidden_pre": {"compare": "none"}, "threshold": {"rtol": 1e-6, "dtype": False},
                                                               "loss_terms*": {"compare": "none"}})
def matryoshka_forward(p):
    rescale, maux, dead, b_dec_in, k = p
    cfg = _matryoshka_cfg(rescale_acts_by_decoder_norm=rescale, use_matryoshka_aux_loss=maux,
                          apply_b_dec_to_input=b_dec_in, k=k, aux_loss_coefficient=0.5)
    sae = _training_sae(cfg)
    _set_weights(sae, seed=11)
    x = _acts(8, seed=12)
    out = _step(sae, x, dead=_dead_mask(dead))
    out.loss.backward()
    g = _grads(sae)
    return {"feature_acts": out.feature_acts.detach(), "hidden_pre": out.hidden_pre.detach(),
            "sae_out": out.sae_out.detach(), "loss": out.loss.detach(), "loss_terms": _loss_values(out),
            "threshold": sae.topk_threshold.detach().clone(),
            "grad_W_enc": g["W_enc"], "grad_b_enc": g["b_enc"], "grad_W_dec": g["W_dec"], "grad_b_dec": g["b_dec"],
            "encode": sae.encode(x).detach(), "forward": sae(x).detach(),
            "widths": list(sae.cfg.matryoshka_widths), "W_dec": sae.W_dec.detach(), "x": x, "k": float(k)}


@case(params=[(True, "many"), (False, "few"), (True, "none")], rtol=1e-10, atol=1e-12,
      outputs={"thresholds*": {"rtol": 1e-6, "dtype": False}})
def batchtopk_forward(p):
    rescale, dead = p
    cfg = BatchTopKTrainingSAEConfig(d_in=D_IN, d_sae=D_SAE, k=2.5, dtype="float64",
                                     rescale_acts_by_decoder_norm=rescale, topk_threshold_lr=0.2)
    sae = TrainingSAE.from_dict(cfg.to_dict())
    _set_weights(sae, seed=21)
    thresholds = []
    for i in range(4):
        out = _step(sae, _acts(6, seed=30 + i), dead=_dead_mask(dead))
        thresholds.append(float(sae.topk_threshold))
    out.loss.backward()
    g = _grads(sae)
    return {"class": type(sae).__name__, "feature_acts": out.feature_acts.detach(),
            "loss": out.loss.detach(), "loss_terms": _loss_values(out), "thresholds": thresholds,
            "grad_W_enc": g["W_enc"], "grad_W_dec": g["W_dec"], "grad_b_dec": g["b_dec"]}


@case(params=[(False, "many"), (True, "many"), (True, "few"), (False, "none")], rtol=1e-10, atol=1e-12,
      outputs={"hidden_pre": {"compare": "none"}, "sparse": {"compare": "none"}})
def topk_training_forward(p):
    sparse, dead = p
    cfg = TopKTrainingSAEConfig(d_in=D_IN, d_sae=D_SAE, k=3, dtype="float64", use_sparse_activations=sparse,
                                aux_loss_coefficient=2.0)
    sae = TrainingSAE.from_dict(cfg.to_dict())
    _set_weights(sae, seed=41)
    x = _acts(5, seed=42)
    out = _step(sae, x, dead=_dead_mask(dead))
    if not sparse:  # torch has no backward for this sparse path on CPU; the dense case checks the gradients
        out.loss.backward()
    g = _grads(sae)
    acts = out.feature_acts
    return {"class": type(sae).__name__, "sparse": bool(acts.is_sparse),
            "feature_acts": (acts.to_dense() if acts.is_sparse else acts).detach(),
            "hidden_pre": out.hidden_pre.detach(), "sae_out": out.sae_out.detach(), "loss": out.loss.detach(),
            "loss_terms": _loss_values(out), "grad_W_enc": g["W_enc"], "grad_W_dec": g["W_dec"],
            "grad_b_enc": g["b_enc"], "grad_b_dec": g["b_dec"]}


@case(params=["many", "few", "one", "none"], rtol=1e-10, atol=1e-12)
def abstopk_aux(dead):
    cfg = AbsTopKTrainingSAEConfig(d_in=D_IN, d_sae=D_SAE, k=3, dtype="float64")
    sae = TrainingSAE.from_dict(cfg.to_dict())
    _set_weights(sae, seed=51)
    out = _step(sae, _acts(5, seed=52), dead=_dead_mask(dead))
    out.loss.backward()
    g = _grads(sae)
    return {"loss": out.loss.detach(), "loss_terms": _loss_values(out), "grad_W_dec": g["W_dec"],
            "grad_W_enc": g["W_enc"]}


# ------------------------------------------------------------------------------------------ trainer


@case(params=[False, True], rtol=1e-8, atol=1e-10,
      outputs={"thresholds*": {"rtol": 1e-6, "dtype": False}, "losses*": {"compare": "none"}})
def trainer_steps(maux):
    torch.manual_seed(0)
    cfg = _matryoshka_cfg(use_matryoshka_aux_loss=maux, k=2, topk_threshold_lr=0.1)
    sae = _training_sae(cfg)
    _set_weights(sae, seed=71)
    with torch.no_grad():  # three latents that never fire at first (large negative bias): dead after 3 steps
        sae.b_enc.data[[1, 6, 13]] = -5.0
    tcfg = SAETrainerConfig(total_training_samples=16 * 12, train_batch_size_samples=16, lr=1e-2, lr_end=1e-2,
                            dead_feature_window=3, feature_sampling_window=1000,
                            logger=LoggingConfig(log_to_wandb=False))
    trainer = SAETrainer(cfg=tcfg, sae=sae, data_provider=iter([]))
    losses, thresholds, dead = [], [], []
    for i in range(12):
        out = trainer.step(_acts(16, seed=100 + i))
        trainer.n_training_steps += 1
        losses.append(_loss_values(out))
        thresholds.append(float(sae.topk_threshold))
        dead.append(int(trainer.dead_neurons.sum()))
    return {"losses": losses, "thresholds": thresholds, "dead": dead,
            "W_enc": sae.W_enc.detach(), "W_dec": sae.W_dec.detach(), "b_enc": sae.b_enc.detach(),
            "b_dec": sae.b_dec.detach()}


# ------------------------------------------------------------------------------------- save and load


@case(params=[(True, True), (False, True), (True, False)], rtol=1e-10, atol=1e-12,
      outputs={"threshold": {"rtol": 1e-6, "dtype": False}, "theta": {"rtol": 1e-6, "dtype": False}, "fold_threshold": {"rtol": 1e-6, "dtype": False}, "h_train": {"compare": "none"}})
def save_inference_roundtrip(p):
    rescale, b_dec_in = p
    cfg = _matryoshka_cfg(rescale_acts_by_decoder_norm=rescale, apply_b_dec_to_input=b_dec_in,
                          topk_threshold_lr=0.3)
    sae = _training_sae(cfg)
    _set_weights(sae, seed=81)
    for i in range(3):
        _step(sae, _acts(8, seed=82 + i))
    theta = float(sae.topk_threshold)
    x = _acts(7, seed=90)
    with tempfile.TemporaryDirectory() as tmp:
        paths = sae.save_inference_model(tmp)
        names = sorted(q.name for q in paths)
        loaded = SAE.load_from_disk(tmp, dtype="float64")
    # cloned: the fold below may update the loaded SAE's tensors in place or replace them (either is fine)
    state = {k: v.detach().clone() for k, v in loaded.state_dict().items()}
    acts = loaded.encode(x).detach()
    recon = loaded.decode(acts).detach()
    # the same weights through the training SAE's own encoder, with the JumpReLU rule in its units
    with torch.no_grad():
        _, h_train = sae.encode_with_hidden_pre(x)
        train_recon_of_loaded = sae.decode(acts)
    result = {"files": names, "class": type(loaded).__name__, "cfg_class": type(loaded.cfg).__name__,
              "architecture": loaded.cfg.architecture(), "state_keys": sorted(state),
              "threshold": state["threshold"], "W_enc": state["W_enc"], "W_dec": state["W_dec"],
              "b_enc": state["b_enc"], "b_dec": state["b_dec"], "theta": theta, "acts": acts, "recon": recon,
              "h_train": h_train.detach(), "train_recon_of_loaded": train_recon_of_loaded.detach(),
              "apply_b_dec_to_input": loaded.cfg.apply_b_dec_to_input, "d_sae": loaded.cfg.d_sae,
              "meta_training_arch": loaded.cfg.metadata.training_architecture, "x": x}
    # folding the decoder norms of the inference SAE keeps its codes (scaled) and outputs
    before = loaded(x).detach()
    loaded.fold_W_dec_norm()
    result["fold_out_diff"] = float((loaded(x).detach() - before).abs().max())
    result["fold_threshold"] = loaded.threshold.detach().clone()
    result["fold_norms"] = loaded.W_dec.norm(dim=-1).detach()
    return result


@case(params=[True, False], rtol=1e-12, atol=1e-12,
      outputs={"inference_refused": {"compare": "none"}, "threshold_*": {"rtol": 1e-6, "dtype": False}})
def save_training_roundtrip(maux):
    cfg = _matryoshka_cfg(use_matryoshka_aux_loss=maux, topk_threshold_lr=0.25)
    sae = _training_sae(cfg)
    _set_weights(sae, seed=91)
    for i in range(2):
        _step(sae, _acts(8, seed=92 + i))
    x = _acts(5, seed=99)
    with tempfile.TemporaryDirectory() as tmp:
        saved = [q.name for q in sae.save_model(tmp)]
        loaded = TrainingSAE.load_from_disk(tmp)
        other = _training_sae(_matryoshka_cfg(use_matryoshka_aux_loss=maux))
        other.load_weights_from_checkpoint(tmp)
        refused = "none"
        try:
            SAE.load_from_disk(tmp)
        except Exception as e:  # noqa: BLE001
            refused = type(e).__name__
    th_loaded, th_other, th_orig = float(loaded.topk_threshold), float(other.topk_threshold), float(sae.topk_threshold)
    out_a = _step(loaded, x, dead=_dead_mask("many"))
    out_b = _step(sae, x, dead=_dead_mask("many"))
    return {"saved": saved, "class": type(loaded).__name__, "widths": list(loaded.cfg.matryoshka_widths),
            "aux": loaded.cfg.use_matryoshka_aux_loss, "lr": loaded.cfg.topk_threshold_lr,
            "state_keys": sorted(loaded.state_dict()),
            "threshold_loaded": th_loaded, "threshold_other": th_other, "threshold_orig": th_orig,
            "loss_loaded": out_a.loss.detach(), "loss_orig": out_b.loss.detach(),
            "acts_loaded": out_a.feature_acts.detach(), "inference_refused": refused}


# ------------------------------------------------------------------------------------------ folds


@case(params=[(True, "none"), (False, "none"), (True, "layer_norm")], rtol=1e-10, atol=1e-12,
      outputs={"fold": {"compare": "none"}})
def topk_inference(p):
    rescale, norm = p
    sae = SAE.from_dict({"architecture": "topk", "d_in": D_IN, "d_sae": D_SAE, "k": 3, "dtype": "float64",
                         "rescale_acts_by_decoder_norm": rescale, "normalize_activations": norm})
    _set_weights(sae, seed=111)
    x = _acts(6, seed=112)
    acts = sae.encode(x).detach()
    out = sae(x).detach()
    res = {"class": type(sae).__name__, "acts": acts, "out": out}
    try:
        sae.fold_W_dec_norm()
        res["fold"] = "ok"
        res["fold_acts"] = sae.encode(x).detach()
        res["fold_out"] = sae(x).detach()
        res["fold_norms"] = sae.W_dec.norm(dim=-1).detach()
    except Exception as e:  # noqa: BLE001
        res["fold"] = type(e).__name__
    return res


@case(params=[True, False], rtol=1e-10, atol=1e-12, outputs={"fold": {"compare": "none"}, "theta*": {"rtol": 1e-6, "dtype": False}})
def batchtopk_folds(rescale):
    cfg = BatchTopKTrainingSAEConfig(d_in=D_IN, d_sae=D_SAE, k=2.0, dtype="float64",
                                     rescale_acts_by_decoder_norm=rescale, topk_threshold_lr=0.5)
    sae = TrainingSAE.from_dict(cfg.to_dict())
    _set_weights(sae, seed=121)
    for i in range(2):
        _step(sae, _acts(8, seed=122 + i))
    res = {"theta": float(sae.topk_threshold)}
    sae.fold_activation_norm_scaling_factor(2.5)
    res["theta_scaled"] = float(sae.topk_threshold)
    res["W_dec_scaled"] = sae.W_dec.detach().clone()
    x = _acts(5, seed=130)
    before = sae.encode(x).detach()
    try:
        sae.fold_W_dec_norm()
        res["fold"] = "ok"
        res["fold_norms"] = sae.W_dec.norm(dim=-1).detach()
        res["fold_acts_diff"] = float((sae.encode(x).detach() - before).abs().max())
    except Exception as e:  # noqa: BLE001
        res["fold"] = type(e).__name__
    return res


@case(params=[(True, True), (False, True), (True, False)], rtol=1e-10, atol=1e-12,
      outputs={"rescale_after": {"compare": "none"}})
def topk_whitening_fold(p):
    rescale, training = p
    if training:
        cfg = TopKTrainingSAEConfig(d_in=D_IN, d_sae=D_SAE, k=3, dtype="float64",
                                    rescale_acts_by_decoder_norm=rescale)
        sae = TrainingSAE.from_dict(cfg.to_dict())
    else:
        sae = SAE.from_dict({"architecture": "topk", "d_in": D_IN, "d_sae": D_SAE, "k": 3, "dtype": "float64",
                             "rescale_acts_by_decoder_norm": rescale})
    _set_weights(sae, seed=141)
    g = torch.Generator().manual_seed(142)
    mean = torch.randn(D_IN, generator=g, dtype=F64) * 0.2
    M = torch.diag(torch.tensor([0.05, 8.0, 1.0, 0.1, 4.0, 0.5], dtype=F64)) \
        + 0.05 * torch.randn(D_IN, D_IN, generator=g, dtype=F64)
    Minv = torch.linalg.inv(M)
    x = _acts(6, seed=143)
    z = (x - mean) @ M
    want = sae(z).detach() @ Minv + mean
    sae.fold_activation_whitening(mean, M, Minv)
    return {"out": sae(x).detach(), "want": want, "rescale_after": sae.cfg.rescale_acts_by_decoder_norm}


@case(rtol=1e-10, atol=1e-12)
def jumprelu_inference():
    sae = SAE.from_dict({"architecture": "jumprelu", "d_in": D_IN, "d_sae": D_SAE, "dtype": "float64"})
    _set_weights(sae, seed=151)
    with torch.no_grad():
        sae.threshold.data.copy_(torch.linspace(0.0, 0.6, D_SAE, dtype=F64))
        sae.W_enc.data[:, 3] = 0.0  # h_3 = b_enc_3 = threshold_3 exactly for every input: the strict gate shuts it
        sae.b_enc.data[3] = 0.25
        sae.threshold.data[3] = 0.25
    x = _acts(6, seed=152)
    acts = sae.encode(x).detach()
    out = sae(x).detach()
    sae.fold_W_dec_norm()
    return {"acts": acts, "out": out, "fold_acts": sae.encode(x).detach(), "fold_out": sae(x).detach(),
            "fold_threshold": sae.threshold.detach(), "fold_b_enc": sae.b_enc.detach()}


# ------------------------------------------------------------------------------------------ hand cases


def _hand_weights(sae):
    with torch.no_grad():
        sae.W_enc.data.copy_(torch.tensor([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5]], dtype=F64))
        sae.W_dec.data.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], dtype=F64))
        sae.b_enc.data.zero_()
        sae.b_dec.data.zero_()


@case(rtol=1e-12, atol=1e-12)
def hand_topk_aux():
    cfg = TopKTrainingSAEConfig(d_in=2, d_sae=3, k=1, dtype="float64", rescale_acts_by_decoder_norm=False)
    sae = TrainingSAE.from_dict(cfg.to_dict())
    _hand_weights(sae)
    out = _step(sae, torch.tensor([[2.0, 1.0]], dtype=F64), dead=torch.tensor([False, True, True]))
    return {"loss": out.loss.detach(), "loss_terms": _loss_values(out), "acts": out.feature_acts.detach()}


@case(rtol=1e-12, atol=1e-12, outputs={"threshold": {"rtol": 1e-6, "dtype": False}})
def hand_matryoshka():
    cfg = MatryoshkaBatchTopKTrainingSAEConfig(d_in=2, d_sae=3, k=1, dtype="float64", matryoshka_widths=[1, 3],
                                               rescale_acts_by_decoder_norm=False, topk_threshold_lr=0.01)
    sae = TrainingSAE.from_dict(cfg.to_dict())
    _hand_weights(sae)
    out = _step(sae, torch.tensor([[2.0, 1.0], [0.0, 3.0]], dtype=F64))
    return {"loss": out.loss.detach(), "loss_terms": _loss_values(out), "acts": out.feature_acts.detach(),
            "threshold": float(sae.topk_threshold)}


@case(params=[True, False], rtol=1e-10, atol=1e-12, outputs={"hooked_sparse": {"compare": "none"}})
def topk_3d(sparse):
    """3-D activations (batch, position, d_in) through the TopK training SAE: sparse decode, aux loss, hooks."""
    cfg = TopKTrainingSAEConfig(d_in=D_IN, d_sae=D_SAE, k=3, dtype="float64", use_sparse_activations=sparse)
    sae = TrainingSAE.from_dict(cfg.to_dict())
    _set_weights(sae, seed=161)
    x = _acts(6, seed=162).reshape(2, 3, D_IN)
    acts = sae.encode(x)
    recon = sae.decode(acts)
    out = _step(sae, x, dead=_dead_mask("many"))
    seen = []
    sae.hook_sae_acts_post.add_hook(lambda t, hook: seen.append((bool(t.is_sparse), float(t.to_dense().sum()))))
    hooked = sae(x).detach()
    sae.reset_hooks()
    return {"acts": (acts.to_dense() if acts.is_sparse else acts).detach(), "recon": recon.detach(),
            "loss": out.loss.detach(), "loss_terms": _loss_values(out), "hooked": hooked,
            "hooked_sparse": seen[0][0], "hooked_sum": seen[0][1]}
