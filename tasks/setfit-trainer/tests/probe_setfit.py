"""Probe for setfit-trainer/1: SetFit's two-stage training (pair sampler + contrastive fine-tuning of the
Sentence Transformer body, then the classification head), reached through the package's public entry points:
the samplers, `TrainingArguments`, `Trainer` (train, train_classifier, evaluate, column mapping), `SetFitModel`
(from_pretrained of a local folder, encode, predict/predict_proba, freeze/unfreeze, save_pretrained) and
`SetFitHead`. A tiny BERT is built here in code (a vocabulary file written here, seeded random weights saved with
`save_pretrained`); no hub, no download.

Outputs are mostly summaries computed from the candidate's own objects (counts, consistency gaps); the checks in
check_setfit.py decide what is right (see NOTES.md for what decides each)."""

from __future__ import annotations

import json
import logging
import os
import tempfile
import warnings
from collections import Counter

import numpy as np
import torch
from datasets import Dataset
from lmrbench_probe import case
from sentence_transformers import losses as st_losses
from setfit import SetFitHead, SetFitModel, Trainer, TrainingArguments
from setfit.sampler import ContrastiveDataset, ContrastiveDistillationDataset, shuffle_combinations
from sklearn.linear_model import LogisticRegression
from transformers import BertConfig, BertModel, BertTokenizerFast

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
os.environ.setdefault("WANDB_DISABLED", "true")

WORDS = (
    "the a cat dog sat on mat ran in park bird sang tree sun is warm cold rain fell city car drove fast "
    "slow road book read old new house big small red blue green river water fish swim"
).split()
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *dict.fromkeys(WORDS)]
# three classes of sizes 3, 2, 2
TEXTS = [
    "the cat sat on the mat",
    "a dog ran in the park",
    "the bird sang in the tree",
    "sun is warm",
    "cold rain fell",
    "a red car drove fast",
    "the old city road",
]
LABELS = [0, 0, 0, 1, 1, 2, 2]
_DIRS: dict[str, str] = {}


def _bert_dir(hidden: int = 16) -> str:
    key = f"bert-{hidden}"
    if key not in _DIRS:
        folder = tempfile.mkdtemp(prefix=f"setfit-{key}-")
        path = os.path.join(folder, "vocab.txt")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(VOCAB) + "\n")
        tok = BertTokenizerFast(vocab=path, do_lower_case=True)
        cfg = BertConfig(
            vocab_size=len(VOCAB),
            hidden_size=hidden,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=32,
            max_position_embeddings=32,
            initializer_range=0.3,
            hidden_dropout_prob=0.0,
            attention_probs_dropout_prob=0.0,
        )
        torch.manual_seed(1234)
        BertModel(cfg).save_pretrained(folder)
        tok.save_pretrained(folder)
        _DIRS[key] = folder
    return _DIRS[key]


def _model(**kw) -> SetFitModel:
    return SetFitModel.from_pretrained(_bert_dir(), device="cpu", **kw)


def _args(**kw) -> TrainingArguments:
    base = dict(
        output_dir=tempfile.mkdtemp(prefix="setfit-out-"),
        report_to="none",
        show_progress_bar=False,
        save_strategy="no",
        logging_strategy="no",
        seed=7,
    )
    base.update(kw)
    return TrainingArguments(**base)


def _key(a, b):
    return tuple(sorted((a, b)))


def _raises(fn) -> str:
    try:
        fn()
    except Exception as exc:  # the exception type is the solver's choice
        return f"raised:{type(exc).__name__}"
    return "ok"


def _params(module) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1).double().clone() for p in module.parameters()])


def _linear(head) -> torch.nn.Linear:
    return next(m for m in head.modules() if isinstance(m, torch.nn.Linear))


def _np(x):
    return x.detach().cpu().double().numpy() if isinstance(x, torch.Tensor) else np.asarray(x, dtype=np.float64)


# ---------------------------------------------------------------- samplers


@case(compare="none")
def shuffled_combinations():
    items = list(range(5))
    with_rep = sorted(tuple(sorted(p)) for p in shuffle_combinations(items))
    without = sorted(tuple(sorted(p)) for p in shuffle_combinations(items, replacement=False))
    return {"with_rep": [list(p) for p in with_rep], "without": [list(p) for p in without]}


def _pair_summary(ds, label_of):
    pairs = list(ds)
    pos = [p for p in pairs if float(p["label"]) == 1.0]
    neg = [p for p in pairs if float(p["label"]) == 0.0]
    bad = sum(
        1 for p in pairs if (label_of[p["sentence_1"]] == label_of[p["sentence_2"]]) != (float(p["label"]) == 1.0)
    )
    cpos = Counter(_key(p["sentence_1"], p["sentence_2"]) for p in pos)
    cneg = Counter(_key(p["sentence_1"], p["sentence_2"]) for p in neg)
    return {
        "len": len(ds),
        "n_iter": len(pairs),
        "n_pos": len(pos),
        "n_neg": len(neg),
        "other": len(pairs) - len(pos) - len(neg),
        "bad": bad,
        "distinct_pos": len(cpos),
        "distinct_neg": len(cneg),
        "self_pairs": sum(1 for p in pairs if p["sentence_1"] == p["sentence_2"]),
        "max_rep_pos": max(cpos.values()),
        "min_rep_pos": min(cpos.values()),
        "max_rep_neg": max(cneg.values()),
        "min_rep_neg": min(cneg.values()),
    }


@case(params=["oversampling", "undersampling", "unique", "iter2"], compare="none")
def sampler(strategy):
    label_of = dict(zip(TEXTS, LABELS, strict=True))
    if strategy == "iter2":
        ds = ContrastiveDataset(TEXTS, LABELS, multilabel=False, num_iterations=2, sampling_strategy="unique")
    else:
        ds = ContrastiveDataset(TEXTS, LABELS, multilabel=False, sampling_strategy=strategy)
    return _pair_summary(ds, label_of)


@case(compare="none")
def sampler_max_pairs():
    ds = ContrastiveDataset(TEXTS, LABELS, multilabel=False, sampling_strategy="unique", max_pairs=6)
    return {"len": len(ds)}


@case(compare="none")
def sampler_bad_strategy():
    return {"r": _raises(lambda: ContrastiveDataset(TEXTS, LABELS, multilabel=False, sampling_strategy="balanced"))}


@case(compare="none")
def sampler_multilabel():
    labels = [[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 0, 1]]
    vec = dict(zip(TEXTS, labels, strict=True))
    ds = ContrastiveDataset(TEXTS, labels, multilabel=True, sampling_strategy="oversampling")
    pairs = list(ds)
    bad_same = bad_disjoint = 0
    for p in pairs:
        a, b = np.asarray(vec[p["sentence_1"]]), np.asarray(vec[p["sentence_2"]])
        if (a == b).all() and float(p["label"]) != 1.0:
            bad_same += 1
        if not (a & b).any() and float(p["label"]) != 0.0:
            bad_disjoint += 1
    n_pos = sum(1 for p in pairs if float(p["label"]) == 1.0)
    return {
        "bad_same": bad_same,
        "bad_disjoint": bad_disjoint,
        "n_pos": n_pos,
        "n_neg": len(pairs) - n_pos,
        "len": len(ds),
    }


@case(params=[None, 3], compare="none")
def distillation_sampler(num_iterations):
    rng = np.random.default_rng(3)
    sim = torch.tensor(rng.uniform(-1, 1, size=(len(TEXTS), len(TEXTS))), dtype=torch.float64)
    sim = (sim + sim.T) / 2
    ds = ContrastiveDistillationDataset(TEXTS, sim, num_iterations=num_iterations)
    pairs = list(ds)
    return {
        "len": len(ds),
        "n_iter": len(pairs),
        "distinct": len({_key(p["sentence_1"], p["sentence_2"]) for p in pairs}),
    }


# ---------------------------------------------------------------- training arguments


@case(compare="exact")
def training_arguments():
    a = _args(batch_size=8, num_epochs=3, body_learning_rate=3e-4)
    b = _args(batch_size=(8, 2), num_epochs=(1, 5), body_learning_rate=(2e-4, 1e-5))
    return {
        "a": [
            a.embedding_batch_size,
            a.classifier_batch_size,
            a.embedding_num_epochs,
            a.classifier_num_epochs,
            a.body_embedding_learning_rate,
            a.body_classifier_learning_rate,
        ],
        "b": [
            b.embedding_batch_size,
            b.classifier_batch_size,
            b.embedding_num_epochs,
            b.classifier_num_epochs,
            b.body_embedding_learning_rate,
            b.body_classifier_learning_rate,
        ],
    }


@case(compare="none")
def training_arguments_refusals():
    return {
        "warmup_high": _raises(lambda: _args(warmup_proportion=1.5)),
        "warmup_neg": _raises(lambda: _args(warmup_proportion=-0.1)),
        "best_mismatch": _raises(
            lambda: _args(load_best_model_at_end=True, eval_strategy="epoch", save_strategy="steps")
        ),
        "valid": _raises(lambda: _args(warmup_proportion=1.0)),
        "best_steps_ok": _raises(
            lambda: _args(load_best_model_at_end=True, eval_strategy="steps", save_strategy="steps", eval_steps=5,
                          save_steps=10)
        ),
        "best_steps_bad": _raises(
            lambda: _args(load_best_model_at_end=True, eval_strategy="steps", save_strategy="steps", eval_steps=4,
                          save_steps=10)
        ),
        "no_logging_zero_steps": _raises(lambda: _args(logging_strategy="no", logging_steps=0)),
        "eval_steps_default": _args(eval_strategy="steps", logging_steps=7).eval_steps,
        "deprecated_eval": str(getattr(_args(evaluation_strategy="epoch").eval_strategy, "value",
                                       _args(evaluation_strategy="epoch").eval_strategy)),
    }


# ---------------------------------------------------------------- full two-stage training

_SEEN: list = []


class RecordingCosineLoss(st_losses.CosineSimilarityLoss):
    """The cosine-similarity loss that records the pair targets each training batch carries."""

    def forward(self, sentence_features, labels):
        _SEEN.append(labels.detach().cpu().double().tolist())
        return super().forward(sentence_features, labels)


@case(params=["int", "str"], compare="none")
def train_two_stage(kind):
    _SEEN.clear()
    labels = LABELS if kind == "int" else [["animal", "weather", "road"][y] for y in LABELS]
    ds = Dataset.from_dict({"text": TEXTS, "label": labels})
    model = _model()
    before = _params(model.model_body)
    args = _args(
        batch_size=(8, 2),
        num_epochs=(1, 1),
        body_learning_rate=(5e-3, 1e-5),
        loss=RecordingCosineLoss,
        sampling_strategy="oversampling",
        warmup_proportion=0.0,
    )
    trainer = Trainer(model=model, args=args, train_dataset=ds, eval_dataset=ds)  # eval unused: strategy "no"
    trainer.train()
    st_args = trainer.st_trainer.args
    seen = [v for batch in _SEEN for v in batch]
    emb = model.encode(TEXTS)
    ref = LogisticRegression().fit(_np(emb), labels)
    proba = model.predict_proba(TEXTS, as_numpy=True)
    pred = list(model.predict(TEXTS))
    classes = list(model.model_head.classes_)  # the fitted logistic regression's own class order
    pred_from_proba = [str(classes[i]) for i in np.asarray(proba).argmax(1)]
    pred = [p if isinstance(p, str) else str(int(p)) for p in pred]
    return {
        "steps": trainer.st_trainer.state.global_step,
        "n_batches": len(_SEEN),
        "n_seen": len(seen),
        "n_pos_seen": sum(1 for v in seen if v == 1.0),
        "n_neg_seen": sum(1 for v in seen if v == 0.0),
        "st_lr": float(st_args.learning_rate),
        "st_bs": int(st_args.per_device_train_batch_size),
        "st_epochs": float(st_args.num_train_epochs),
        "body_delta": float((before - _params(model.model_body)).abs().max()),
        "head_gap": float(np.abs(np.asarray(proba, dtype=np.float64) - ref.predict_proba(_np(emb))).max()),
        "proba_shape": list(np.asarray(proba).shape),
        "labels": [str(v) for v in (model.labels or [])],
        "pred_consistent": pred == pred_from_proba,
    }


@case(compare="none")
def train_max_steps():
    _SEEN.clear()
    ds = Dataset.from_dict({"text": TEXTS, "label": LABELS})
    model = _model()
    args = _args(batch_size=(4, 2), num_epochs=(1, 1), max_steps=2, loss=RecordingCosineLoss, num_iterations=5)
    trainer = Trainer(model=model, args=args, train_dataset=ds)
    trainer.train_embeddings(TEXTS, LABELS, args=args)
    return {
        "steps": trainer.st_trainer.state.global_step,
        "n_batches": len(_SEEN),
        "st_max_steps": int(trainer.st_trainer.args.max_steps),
        "st_bs": int(trainer.st_trainer.args.per_device_train_batch_size),
    }


# ---------------------------------------------------------------- differentiable head


@case(params=[False, True], compare="none")
def torch_head_classifier(end_to_end):
    torch.manual_seed(5)
    model = _model(use_differentiable_head=True, head_params={"out_features": 3})
    body0, head0 = _params(model.model_body), _params(model.model_head)
    lin = _linear(model.model_head)

    def ce():
        p = model.predict_proba(TEXTS).double()
        return float(-torch.log(p[torch.arange(len(LABELS)), torch.tensor(LABELS)]).mean())

    ce0 = ce()
    trainer = Trainer(
        model=model,
        args=_args(
            batch_size=(4, 4),
            num_epochs=(1, 6),
            head_learning_rate=5e-2,
            body_learning_rate=(1e-5, 1e-3),
            end_to_end=end_to_end,
            max_length=16,
        ),
        train_dataset=Dataset.from_dict({"text": TEXTS, "label": LABELS}),
    )
    trainer.train_classifier(TEXTS, LABELS)
    emb = model.encode(TEXTS)
    logits = emb.double() @ lin.weight.detach().double().T + lin.bias.detach().double()
    proba = model.predict_proba(TEXTS)
    return {
        "ce0": ce0,
        "ce1": ce(),
        "body_delta": float((body0 - _params(model.model_body)).abs().max()),
        "head_delta": float((head0 - _params(model.model_head)).abs().max()),
        "all_trainable": all(p.requires_grad for p in model.model_body.parameters())
        and all(p.requires_grad for p in model.model_head.parameters()),
        "proba": _np(proba),
        "softmax": torch.softmax(logits, -1).numpy(),
        "emb_type": type(emb).__name__,
        "pred": _np(model.predict(TEXTS)),
        "in_features": lin.in_features,
        "out_features": lin.out_features,
    }


@case(compare="none")
def setfit_head_direct():
    torch.manual_seed(0)
    x = torch.randn(5, 4)
    res = {}
    for name, kw in {
        "t1": dict(temperature=1.0),
        "t2": dict(temperature=2.0),
        "mt": dict(multitarget=True, out_features=3),
        "one": dict(out_features=1),
    }.items():
        args = {"in_features": 4, "out_features": 3, "device": "cpu", **kw}
        head = SetFitHead(**args)
        lin = _linear(head)
        with torch.no_grad():
            lin.weight.copy_(torch.linspace(-1, 1, lin.weight.numel()).reshape(lin.weight.shape))
            lin.bias.copy_(torch.linspace(-0.3, 0.2, lin.bias.numel()))
        res[name + ".proba"] = head.predict_proba(x).detach()
        res[name + ".pred"] = head.predict(x).detach().double()
        res[name + ".out"] = lin.out_features
        res[name + ".loss"] = type(head.get_loss_fn()).__name__
    res["x"] = x
    return res


# ---------------------------------------------------------------- model: heads, encode, save/load


@case(compare="none")
def head_kinds():
    res = {}
    for strat in [None, "one-vs-rest", "multi-output", "classifier-chain"]:
        m = _model(multi_target_strategy=strat, head_params={"C": 0.5})
        head = m.model_head
        inner = getattr(head, "estimator", getattr(head, "base_estimator", head))
        res[str(strat)] = [
            type(head).__name__,
            type(inner).__name__,
            float(getattr(inner, "C", -1.0)),
            m.has_differentiable_head,
        ]
    for strat in [None, "one-vs-rest", "multi-output"]:
        m = _model(use_differentiable_head=True, multi_target_strategy=strat, head_params={"out_features": 3})
        res["torch." + str(strat)] = [
            type(m.model_head).__name__,
            # independent targets (sigmoid) iff the rows of probabilities do not sum to one
            bool(float((m.model_head.predict_proba(torch.randn(4, 16)).sum(-1) - 1).abs().max()) > 1e-3),
            _linear(m.model_head).in_features,
            m.has_differentiable_head,
        ]
    res["bad"] = _raises(lambda: _model(multi_target_strategy="nonsense"))
    return res


@case(params=["one-vs-rest", "multi-output", "classifier-chain"], compare="none")
def multilabel_head(strat):
    y = [[1, 0, 0], [1, 0, 1], [1, 0, 0], [0, 1, 0], [0, 1, 1], [0, 0, 1], [1, 0, 1]]
    model = _model(multi_target_strategy=strat)
    trainer = Trainer(model=model, args=_args(), train_dataset=Dataset.from_dict({"text": TEXTS, "label": y}))
    trainer.train_classifier(TEXTS, y)
    pred = np.asarray(model.predict(TEXTS, as_numpy=True))
    return {
        "pred_shape": list(pred.shape),
        "binary": bool(np.isin(pred, [0, 1]).all()),
        "single_shape": list(np.asarray(model.predict(TEXTS[0], as_numpy=True)).shape),
    }


@case(params=["lr", "torch"], compare="none")
def encode_predict_types(kind):
    model = _model(
        use_differentiable_head=(kind == "torch"),
        normalize_embeddings=True,
        **({"head_params": {"out_features": 3}} if kind == "torch" else {}),
    )
    if kind == "lr":
        model.model_head.fit(model.encode(TEXTS), LABELS)
    emb = model.encode(TEXTS)
    single = model.predict_proba(TEXTS[1])
    many = model.predict_proba(TEXTS)
    as_np = model.predict_proba(TEXTS, as_numpy=True)
    return {
        "emb_type": type(emb).__name__,
        "norms": np.linalg.norm(_np(emb), axis=1),
        "proba_type": type(many).__name__,
        "np_type": type(as_np).__name__,
        "single_shape": list(np.asarray(_np(single)).shape),
        "many_shape": list(np.asarray(_np(many)).shape),
        "single_gap": float(np.abs(_np(single) - _np(many)[1]).max()),
        "call_eq_predict": [str(v) for v in np.asarray(_np(model(TEXTS))).tolist()]
        == [str(v) for v in np.asarray(_np(model.predict(TEXTS))).tolist()],
        "to_self": model.to("cpu") is model,
        "device": str(model.device),
    }


@case(compare="none")
def labels_mapping():
    model = _model(labels=["animal", "weather", "road"])
    model.model_head.fit(model.encode(TEXTS), LABELS)
    pred = model.predict(TEXTS)
    raw = model.predict(TEXTS, use_labels=False, as_numpy=True)
    return {
        "pred": [str(p) for p in pred],
        "raw": [int(v) for v in raw],
        "id2label": {str(k): v for k, v in model.id2label.items()},
        "label2id": model.label2id,
        "single": str(model.predict(TEXTS[0])),
    }


@case(params=["lr", "torch"], compare="none")
def save_load(kind):
    model = _model(
        use_differentiable_head=(kind == "torch"),
        normalize_embeddings=True,
        labels=["x", "y", "z"],
        **({"head_params": {"out_features": 3}} if kind == "torch" else {}),
    )
    if kind == "lr":
        model.model_head.fit(model.encode(TEXTS), LABELS)
    out = tempfile.mkdtemp(prefix="setfit-save-")
    model.save_pretrained(out)
    files = sorted(os.listdir(out))
    with open(os.path.join(out, "config_setfit.json"), encoding="utf-8") as fh:
        cfg = json.load(fh)
    again = SetFitModel.from_pretrained(out, device="cpu")
    over = SetFitModel.from_pretrained(out, device="cpu", labels=["p", "q", "r"])
    p0, p1 = _np(model.predict_proba(TEXTS)), _np(again.predict_proba(TEXTS))
    return {
        "has_head": "model_head.pkl" in files,
        "has_cfg": "config_setfit.json" in files,
        "cfg_norm": cfg.get("normalize_embeddings"),
        "cfg_labels": cfg.get("labels"),
        "gap": float(np.abs(p0 - p1).max()),
        "norm_again": bool(again.normalize_embeddings),
        "labels_again": list(again.labels or []),
        "labels_over": list(over.labels or []),
        "pred_again": [str(v) for v in again.predict(TEXTS)],
        "pred": [str(v) for v in model.predict(TEXTS)],
        "head_type": type(again.model_head).__name__,
    }


@case(compare="none")
def freeze_unfreeze():
    model = _model(use_differentiable_head=True, head_params={"out_features": 3})

    def state():
        return [
            all(not p.requires_grad for p in model.model_body.parameters()),
            all(not p.requires_grad for p in model.model_head.parameters()),
        ]

    model.freeze("body")
    a = state()
    model.unfreeze()
    b = state()
    model.freeze()
    c = state()
    model.unfreeze("head")
    d = state()
    lr_model = _model()
    lr_model.freeze("head")
    lr_model.freeze()
    e = all(not p.requires_grad for p in lr_model.model_body.parameters())
    model.freeze()
    model.unfreeze(keep_body_frozen=True)
    f = state()
    return {"a": a, "b": b, "c": c, "d": d, "e": e, "f": f}


# ---------------------------------------------------------------- trainer: column mapping, evaluate


@case(compare="none")
def column_mapping_and_evaluate():
    ds = Dataset.from_dict({"sentence": TEXTS, "y": LABELS, "extra": list(range(len(TEXTS)))})
    model = _model()
    trainer = Trainer(
        model=model,
        args=_args(),
        train_dataset=ds,
        column_mapping={"sentence": "text", "y": "label"},
        metric=lambda y_pred, y_test: {"hits": sum(int(a) == int(b) for a, b in zip(y_pred, y_test, strict=False))},
    )
    cols = sorted(trainer.train_dataset.column_names)
    trainer.train_classifier(list(trainer.train_dataset["text"]), list(trainer.train_dataset["label"]))
    res = trainer.evaluate(ds)
    own = int(sum(int(a) == int(b) for a, b in zip(model.predict(TEXTS, as_numpy=True), LABELS, strict=True)))
    names = ["animal", "weather", "road"]
    ds_str = Dataset.from_dict({"text": TEXTS, "label": [names[y] for y in LABELS]})
    str_model = _model()
    str_model.model_head.fit(str_model.encode(TEXTS), [names[y] for y in LABELS])
    res_str = Trainer(
        model=str_model,
        args=_args(),
        train_dataset=ds_str,
        metric=lambda y_pred, y_test: {"hits": sum(str(a) == str(b) for a, b in zip(y_pred, y_test, strict=False))},
    ).evaluate(ds_str)
    own_str = sum(str(a) == names[y] for a, y in zip(str_model.predict(TEXTS), LABELS, strict=True))
    return {
        "str_hits": res_str.get("hits"),
        "str_own": int(own_str),
        "cols": cols,
        "hits": res.get("hits"),
        "own": own,
        "keys": sorted(res),
        "missing": _raises(lambda: Trainer(model=model, args=_args(), train_dataset=ds)),
        "bad_map": _raises(
            lambda: Trainer(model=model, args=_args(), train_dataset=ds, column_mapping={"sentence": "text"})
        ),
        "no_eval": _raises(lambda: trainer.evaluate()),
    }
