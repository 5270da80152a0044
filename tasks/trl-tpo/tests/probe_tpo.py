"""Probe for trl-tpo/1: trl's TPOTrainer reached through its public entry points (TPOConfig + TPOTrainer,
train / evaluate, the triple-preference collator) and the helpers on its data and loss path (pad,
selective_log_softmax, entropy_from_logits, selective_log_softmax_and_entropy, extract_prompt,
common_prefix_length, is_conversational, create_model_from_path, disable_dropout_in_model).

Everything is built here: a word-level tokenizer made in code, a 2-layer Llama (hidden 16) with seeded float64
weights, tiny `datasets.Dataset`s, runs of a few steps on CPU into a temporary folder. The log-likelihoods a
loss is made of are computed here as well, straight from the model's logits, so that check_tpo.py can rebuild
each loss from the paper's equations."""

from __future__ import annotations

import logging
import tempfile
import warnings

import torch
from lmrbench_probe import case

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

from datasets import Dataset, disable_progress_bars  # noqa: E402
from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast  # noqa: E402
from transformers.utils import logging as hf_logging  # noqa: E402
from trl.data_utils import common_prefix_length, extract_prompt, is_conversational  # noqa: E402
from trl.experimental.tpo import TPOConfig, TPOTrainer  # noqa: E402
from trl.experimental.tpo.tpo_trainer import DataCollatorForTriplePreference  # noqa: E402
from trl.trainer.utils import (  # noqa: E402
    create_model_from_path,
    entropy_from_logits,
    pad,
    selective_log_softmax,
    selective_log_softmax_and_entropy,
)

disable_progress_bars()
hf_logging.set_verbosity_error()

WORDS = [chr(ord("a") + i) for i in range(24)]
VOCAB = {"<pad>": 0, "<eos>": 1, **{w: i + 2 for i, w in enumerate(WORDS)}}
CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }} {{ m['content'] }} {% endfor %}"
    "{% if add_generation_prompt %}a {% endif %}"
)


def tokenizer(pad_token: bool = True, chat: bool = False) -> PreTrainedTokenizerFast:
    tk = Tokenizer(models.WordLevel(dict(VOCAB), unk_token="<pad>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    kwargs = {"eos_token": "<eos>"}
    if pad_token:
        kwargs["pad_token"] = "<pad>"
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, **kwargs)
    if chat:
        tok.chat_template = CHAT_TEMPLATE
    return tok


def llama(seed: int = 0) -> LlamaForCausalLM:
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=len(VOCAB), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
                      pad_token_id=0, eos_token_id=1, bos_token_id=1)
    model = LlamaForCausalLM(cfg).to(torch.float64)
    with torch.no_grad():  # make the logits spread a little so the losses are far from their init values
        model.lm_head.weight.normal_(0.0, 0.6)
    return model


def config(out: str, **kw) -> TPOConfig:
    base = dict(output_dir=out, report_to="none", use_cpu=True, bf16=False, fp16=False,
                gradient_checkpointing=False, save_strategy="no", logging_steps=1, seed=0,
                per_device_train_batch_size=3, per_device_eval_batch_size=3, max_steps=1,
                dataset_num_proc=None, disable_tqdm=True)
    base.update(kw)
    return TPOConfig(**base)


# Three triples with an explicit prompt; completions of different lengths.
TRIPLES = {
    "prompt": ["c d", "e", "f g h"],
    "chosen": [" i j", " k", " l m n"],
    "rejected": [" o", " p q r", " s t"],
    "reference": [" u v", " w", " i k m"],
}


def sequence_logps(model, tok, prompts, completions):
    """Per-example token log-probabilities, predictive entropies and top-1 hits of `completion + eos` given
    `prompt`, straight from the logits."""
    out, ent, top1 = [], [], []
    with torch.no_grad():
        for p, c in zip(prompts, completions, strict=True):
            p_ids = tok(p)["input_ids"]
            ids = tok(p + c + tok.eos_token)["input_ids"]
            logps = model(torch.tensor([ids])).logits[0].log_softmax(-1)[len(p_ids) - 1:-1]
            tgt = torch.tensor(ids[len(p_ids):])
            out.append(logps.gather(-1, tgt[:, None])[:, 0])
            ent.append(-(logps.exp() * logps).sum(-1))
            top1.append((logps.argmax(-1) == tgt).to(torch.float64))
    return out, ent, top1


def evaluate_run(loss_type, beta=0.5, alpha=1.0, gamma=0.5, smoothing=0.0, data=None):
    """One evaluation pass of an untrained model on one batch: the loss and metrics of TPO at the start."""
    data = data or TRIPLES
    tok = tokenizer()
    model = llama()
    both = {k: sequence_logps(model, tok, data["prompt"], data[k]) for k in ("chosen", "rejected", "reference")}
    logps = {k: v[0] for k, v in both.items()}
    ds = Dataset.from_dict(data)
    with tempfile.TemporaryDirectory() as d:
        args = config(d, loss_type=loss_type, beta=beta, tpo_alpha=alpha, tpo_l_gamma=gamma,
                      label_smoothing=smoothing)
        trainer = TPOTrainer(model=model, args=args, train_dataset=ds, eval_dataset=ds, processing_class=tok)
        metrics = trainer.evaluate()
    res = {"eval_loss": metrics["eval_loss"]}
    for key in ("rewards/chosen", "rewards/rejected", "rewards/margins", "rewards/accuracies"):
        res[key] = metrics.get(f"eval_{key}")
    for key in ("logits/chosen", "logits/rejected", "mean_token_accuracy"):
        res[key] = metrics.get(f"eval_{key}")
    res["entropy"] = metrics.get("eval_entropy")
    res["_logps/chosen"] = metrics.get("eval_logps/chosen")
    res["_logps/rejected"] = metrics.get("eval_logps/rejected")
    for k, v in logps.items():
        res[f"tok_logps_{k}"] = torch.cat(v)
        res[f"tok_entropy_{k}"] = torch.cat(both[k][1])
        res[f"tok_top1_{k}"] = torch.cat(both[k][2])
        res[f"len_{k}"] = torch.tensor([len(t) for t in v])
    return res


LOSS_RUNS = {
    "sigmoid": dict(loss_type="sigmoid"),
    "sigmoid_alpha0": dict(loss_type="sigmoid", alpha=0.0),
    "sigmoid_beta2_alpha03": dict(loss_type="sigmoid", beta=2.0, alpha=0.3),
    "sigmoid_smoothing": dict(loss_type="sigmoid", smoothing=0.2),
    "tpo_l": dict(loss_type="tpo-l", gamma=0.7),
    "tpo_l_alpha0_smoothing": dict(loss_type="tpo-l", alpha=0.0, gamma=0.3, smoothing=0.1),
    "hinge": dict(loss_type="hinge", beta=0.3, alpha=0.0),
    "ipo": dict(loss_type="ipo", beta=0.8, alpha=0.0),
}


# Whether the loss and its metrics are computed in the model's dtype (float64 here) or in float32 is not decided,
# so the metrics are compared at a float32-compatible tolerance (the margin is a difference of two rewards).
@case(params=list(LOSS_RUNS), ids=list(LOSS_RUNS), rtol=1e-5, atol=1e-9,
      outputs={"eval_loss": {"compare": "none"}, "entropy": {"compare": "none"},
               "rewards/margins": {"rtol": 1e-5, "atol": 1e-5},
               # not named by the paper: compared with the release by the check only when logged
               "logits/chosen": {"compare": "none"}, "logits/rejected": {"compare": "none"},
               "mean_token_accuracy": {"compare": "none"}})
def loss_at_start(name):
    spec = dict(LOSS_RUNS[name])
    res = evaluate_run(**spec)
    res["beta"] = spec.get("beta", 0.5)
    res["alpha"] = spec.get("alpha", 1.0)
    res["gamma"] = spec.get("gamma", 0.5)
    res["smoothing"] = spec.get("smoothing", 0.0)
    res["loss_type"] = spec["loss_type"]
    if spec["loss_type"] in ("sigmoid", "hinge"):  # summed log-likelihoods, as DPO/CPO log them
        res["logps/chosen"] = res.pop("_logps/chosen")
        res["logps/rejected"] = res.pop("_logps/rejected")
    else:
        del res["_logps/chosen"], res["_logps/rejected"]
    if spec["loss_type"] == "ipo":  # whether IPO's logged rewards are length-normalised is not decided
        for key in ("rewards/chosen", "rewards/rejected", "rewards/margins", "rewards/accuracies"):
            del res[key]
    return res


EQUAL_PAIR = {"prompt": ["c d", "e"], "chosen": [" i j", " k"], "rejected": [" i j", " k"],
              "reference": [" u v", " w"]}


@case(params=["sigmoid", "hinge", "ipo", "tpo-l"], ids=["sigmoid", "hinge", "ipo", "tpo_l"], rtol=1e-6, atol=1e-9)
def equal_pair(loss_type):
    """Preferred == dispreferred, no NLL term: the preference gap is zero, so the loss has a closed form."""
    res = evaluate_run(loss_type, beta=0.5, alpha=0.0, gamma=0.5, data=EQUAL_PAIR)
    return {"eval_loss": res["eval_loss"], "rewards/margins": res["rewards/margins"]}


def train_run(loss_type, alpha, steps=3, lr=0.2, data=None, **kw):
    tok = tokenizer()
    model = llama(seed=1)
    ds = Dataset.from_dict(data or TRIPLES)
    with tempfile.TemporaryDirectory() as d:
        args = config(d, loss_type=loss_type, beta=0.5, tpo_alpha=alpha, max_steps=steps, learning_rate=lr,
                      lr_scheduler_type="constant", per_device_train_batch_size=3, optim="sgd", **kw)
        trainer = TPOTrainer(model=model, args=args, train_dataset=ds, processing_class=tok)
        trainer.train()
        hist = [h for h in trainer.state.log_history if "loss" in h]
    data = data or TRIPLES
    seq_tokens = {k: sum(len(tok(p + c + tok.eos_token)["input_ids"]) for p, c in zip(data["prompt"], data[k],
                                                                                      strict=True))
                  for k in ("chosen", "rejected", "reference")}
    return {
        "num_tokens": torch.tensor([h["num_tokens"] for h in hist], dtype=torch.float64),
        "seq_tokens": seq_tokens,
        "losses": torch.tensor([h["loss"] for h in hist], dtype=torch.float64),
        "params": torch.cat([p.detach().flatten() for p in trainer.model.parameters()]),
        "margins": torch.tensor([h["rewards/margins"] for h in hist], dtype=torch.float64),
    }


# Gold responses of a single token (EOS only) so that every way of averaging the NLL agrees.
ONE_TOKEN_GOLD = dict(TRIPLES, reference=["", "", ""])


# Plain SGD rather than AdamW: Adam divides each gradient entry by its own scale, so near-zero entries computed in
# float32 (not excluded: the dtype of the loss is not decided) move parameters by O(lr); SGD keeps the float32
# rounding of the gradient at its own size (about 1e-7 of the update, against atol 1e-6 on the parameters).
TRAIN_SPEC = dict(rtol=1e-6, atol=1e-6, outputs={"losses": {"rtol": 1e-5}, "margins": {"rtol": 1e-5},
                                                 "num_tokens": {"compare": "none"}})


@case(params=["sigmoid", "tpo-l"], ids=["sigmoid", "tpo_l"], **TRAIN_SPEC)
def training_steps(loss_type):
    """Three SGD steps on the whole batch: the gradient of the whole objective reaches every parameter."""
    return train_run(loss_type, alpha=1.0, data=ONE_TOKEN_GOLD)


@case(**TRAIN_SPEC)
def training_steps_alpha0():
    """tpo_alpha=0: no NLL term; the gold response plays no part (a garbage gold changes nothing)."""
    a = train_run("sigmoid", alpha=0.0)
    b = train_run("sigmoid", alpha=0.0, data=dict(TRIPLES, reference=[" b b b", " d", " a"]))
    return {"params": a["params"], "losses": a["losses"], "params_other_gold": b["params"],
            "num_tokens": a["num_tokens"], "seq_tokens": a["seq_tokens"]}


@case(**TRAIN_SPEC)
def training_steps_extra_column():
    """A dataset with an extra column trains (unused columns are removed by default)."""
    data = dict(ONE_TOKEN_GOLD, note=["a", "b", "c"])
    return train_run("sigmoid", alpha=1.0, steps=2, data=data)


@case(compare="exact")
def dataset_preparation():
    """Implicit prompt (no `prompt` column): it is extracted from chosen/rejected and stripped from the gold."""
    tok = tokenizer()
    data = {
        "chosen": ["c d i j", "e k"],
        "rejected": ["c d o", "e p q"],
        "reference": ["c d u v", "e w"],
    }
    with tempfile.TemporaryDirectory() as d:
        trainer = TPOTrainer(model=llama(), args=config(d), train_dataset=Dataset.from_dict(data),
                             processing_class=tok)
        ds = trainer.train_dataset
        return {k: [list(r) for r in ds[k]] for k in ("prompt_ids", "chosen_ids", "rejected_ids", "reference_ids")}


@case(compare="exact")
def dataset_preparation_conversational():
    """Conversational triples: the prompt is rendered with the generation prompt, which the full conversation
    does not contain, so the completion starts where the two token sequences diverge."""
    tok = tokenizer(chat=True)
    data = {
        "prompt": [[{"role": "b", "content": "c d"}], [{"role": "b", "content": "e"}]],
        "chosen": [[{"role": "f", "content": "i j"}], [{"role": "f", "content": "k"}]],
        "rejected": [[{"role": "f", "content": "o"}], [{"role": "f", "content": "p q"}]],
        "reference": [[{"role": "f", "content": "u"}], [{"role": "f", "content": "w x"}]],
    }
    with tempfile.TemporaryDirectory() as d:
        trainer = TPOTrainer(model=llama(), args=config(d), train_dataset=Dataset.from_dict(data),
                             processing_class=tok)
        ds = trainer.train_dataset
        out = {k: [list(r) for r in ds[k]] for k in ("prompt_ids", "chosen_ids", "rejected_ids", "reference_ids")}
        batch = next(iter(trainer.get_train_dataloader()))
        out["batch_rows"] = int(batch["input_ids"].shape[0])
        return out


@case(compare="exact")
def collated_batch_from_trainer():
    """The trainer's default collator and the config's max_length / truncation / pad_to_multiple_of."""
    tok = tokenizer()
    out = {}
    for name, kw in {"full": {}, "alpha0": {"tpo_alpha": 0.0},
                     "trunc": {"max_length": 4, "truncation_mode": "keep_end", "pad_to_multiple_of": 3}}.items():
        with tempfile.TemporaryDirectory() as d:
            trainer = TPOTrainer(model=llama(), args=config(d, **kw), train_dataset=Dataset.from_dict(TRIPLES),
                                 processing_class=tok)
            rows = [trainer.train_dataset[i] for i in range(3)]
            batch = trainer.data_collator(rows)
        for k in ("input_ids", "attention_mask", "completion_mask"):
            out[f"{name}.{k}"] = batch[k]
    return out


COLLATOR_EXAMPLES = [
    {"prompt_ids": [1, 2, 3], "chosen_ids": [4, 5], "rejected_ids": [6], "reference_ids": [7, 8]},
    {"prompt_ids": [9, 10], "chosen_ids": [11], "rejected_ids": [12, 13, 14, 15], "reference_ids": [16]},
]
COLLATOR_CONFIGS = {
    "default": {},
    "no_reference": {"include_reference": False},
    "keep_start_4": {"max_length": 4},
    "keep_end_4": {"max_length": 4, "truncation_mode": "keep_end"},
    "multiple_4": {"pad_to_multiple_of": 4},
    "long_max": {"max_length": 50, "pad_to_multiple_of": 3},
}


@case(params=list(COLLATOR_CONFIGS), ids=list(COLLATOR_CONFIGS), compare="exact")
def collator(name):
    coll = DataCollatorForTriplePreference(pad_token_id=99, **COLLATOR_CONFIGS[name])
    out = coll([dict(e) for e in COLLATOR_EXAMPLES])
    return {k: out[k] for k in ("input_ids", "attention_mask", "completion_mask")}


@case
def collator_bad_truncation_mode():
    coll = DataCollatorForTriplePreference(pad_token_id=0, max_length=3, truncation_mode="middle")
    return {"out": coll([dict(e) for e in COLLATOR_EXAMPLES])["input_ids"]}


@case(params=["reference", "rejected"], ids=["reference", "rejected"], compare="exact")
def missing_column_refused(column):
    """A dataset without one of the three completions is refused (the exception type is not decided)."""
    data = {k: v for k, v in TRIPLES.items() if k != column}
    try:
        with tempfile.TemporaryDirectory() as d:
            TPOTrainer(model=llama(), args=config(d), train_dataset=Dataset.from_dict(data),
                       processing_class=tokenizer())
    except Exception:
        return {"refused": True}
    return {"refused": False}


@case
def gold_without_implicit_prompt_raises():
    data = {"chosen": ["c d i"], "rejected": ["c d j"], "reference": ["f g h"]}
    with tempfile.TemporaryDirectory() as d:
        TPOTrainer(model=llama(), args=config(d), train_dataset=Dataset.from_dict(data), processing_class=tokenizer())
    return {"ok": True}


@case(compare="exact")
def peft_config_refused():
    """A `peft_config` that cannot be used (peft is not installed here, and this is no PeftConfig) is refused."""
    try:
        with tempfile.TemporaryDirectory() as d:
            TPOTrainer(model=llama(), args=config(d), train_dataset=Dataset.from_dict(TRIPLES),
                       processing_class=tokenizer(), peft_config=object())
    except Exception:
        return {"refused": True}
    return {"refused": False}


@case(rtol=1e-6, atol=1e-6, outputs={"losses": {"rtol": 1e-5}})
def iterable_dataset():
    """Training from an IterableDataset (prepared lazily, without the map options only Dataset supports)."""
    tok = tokenizer()
    model = llama(seed=1)
    ds = Dataset.from_dict(dict(TRIPLES, reference=["", "", ""])).to_iterable_dataset()
    with tempfile.TemporaryDirectory() as d:
        args = config(d, max_steps=2, learning_rate=0.2, lr_scheduler_type="constant", beta=0.5, optim="sgd")
        trainer = TPOTrainer(model=model, args=args, train_dataset=ds, processing_class=tok)
        trainer.train()
        hist = [h for h in trainer.state.log_history if "loss" in h]
    return {"losses": torch.tensor([h["loss"] for h in hist], dtype=torch.float64),
            "params": torch.cat([p.detach().flatten() for p in trainer.model.parameters()])}


@case
def unknown_loss_type_raises():
    with tempfile.TemporaryDirectory() as d:
        trainer = TPOTrainer(model=llama(), args=config(d, loss_type="hingeless"),
                             train_dataset=Dataset.from_dict(TRIPLES), processing_class=tokenizer())
        trainer.train()
    return {"ok": True}


@case
def train_dataset_required():
    with tempfile.TemporaryDirectory() as d:
        TPOTrainer(model=llama(), args=config(d), train_dataset=None, processing_class=tokenizer())
    return {"ok": True}


@case(compare="exact")
def pad_token_falls_back_to_eos():
    tok = tokenizer(pad_token=False)
    model = llama()
    with tempfile.TemporaryDirectory() as d:
        trainer = TPOTrainer(model=model, args=config(d), train_dataset=Dataset.from_dict(TRIPLES),
                             processing_class=tok)
        batch = trainer.data_collator([trainer.train_dataset[i] for i in range(3)])
    return {"pad_token": tok.pad_token, "model_pad_id": model.config.pad_token_id, "input_ids": batch["input_ids"]}


@case(params=[True, False], ids=["disabled", "kept"], compare="exact")
def dropout(disable):
    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=len(VOCAB), n_positions=32, n_embd=16, n_layer=1, n_head=2,
                     resid_pdrop=0.3, embd_pdrop=0.2, attn_pdrop=0.1, eos_token_id=1, bos_token_id=1)
    model = GPT2LMHeadModel(cfg)
    with tempfile.TemporaryDirectory() as d:
        trainer = TPOTrainer(model=model, args=config(d, disable_dropout=disable),
                             train_dataset=Dataset.from_dict(TRIPLES), processing_class=tokenizer())
    ps = [m.p for m in trainer.model.modules() if isinstance(m, torch.nn.Dropout)]
    return {"p": torch.tensor(ps, dtype=torch.float64)}


@case(rtol=1e-6, atol=1e-8)
def model_from_path():
    """A model given by its local folder is loaded (float32 by default; dtype strings are accepted)."""
    src = llama()
    src = src.to(torch.float32)
    with tempfile.TemporaryDirectory() as d:
        src.save_pretrained(f"{d}/m")
        tokenizer().save_pretrained(f"{d}/m")
        m32 = create_model_from_path(f"{d}/m")
        m16 = create_model_from_path(f"{d}/m", dtype="bfloat16")
        with tempfile.TemporaryDirectory() as o:
            trainer = TPOTrainer(model=f"{d}/m", args=config(o), train_dataset=Dataset.from_dict(TRIPLES))
            tm = trainer.model
            loaded_ids = [list(r) for r in trainer.train_dataset["chosen_ids"]]
    flat = torch.cat([p.detach().flatten().double() for p in src.parameters()])
    return {
        "class": type(m32).__name__, "dtype32": str(m32.dtype), "dtype16": str(m16.dtype),
        "trainer_class": type(tm).__name__, "trainer_dtype": str(tm.dtype), "chosen_ids": loaded_ids,
        "same_weights": torch.cat([p.detach().flatten().double() for p in m32.parameters()]) - flat,
        "trainer_weights": torch.cat([p.detach().flatten().double() for p in tm.parameters()]) - flat,
    }


@case
def model_from_path_bad_dtype():
    src = llama().to(torch.float32)
    with tempfile.TemporaryDirectory() as d:
        src.save_pretrained(f"{d}/m")
        create_model_from_path(f"{d}/m", dtype="float64")
    return {"ok": True}


@case(compare="exact")
def pad_helper():
    a, b, c = torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor([6])
    m = [torch.tensor([[1.5, 2.0], [3.0, 4.0]]), torch.tensor([[5.0, 6.0]])]
    return {
        "right": pad([a, b, c]),
        "left": pad([a, b, c], padding_value=-1, padding_side="left"),
        "multiple": pad([a, b], padding_value=7, pad_to_multiple_of=4),
        "multiple_left": pad([a, c], padding_side="left", pad_to_multiple_of=2),
        "exact_multiple": pad([a, b], pad_to_multiple_of=3),
        "matrix": pad(m, padding_value=0.5),
        "matrix_left": pad(m, padding_side="left"),
    }


@case
def pad_bad_side():
    return {"out": pad([torch.tensor([1, 2]), torch.tensor([3])], padding_side="middle")}


def _logits(dtype=torch.float64):
    g = torch.Generator().manual_seed(3)
    return (torch.randn(2, 5, 7, generator=g, dtype=torch.float64) * 2.0).to(dtype)


@case(rtol=1e-10, atol=1e-12, outputs={"*bf16*": {"rtol": 2e-2, "atol": 2e-2}})
def log_softmax_helpers():
    logits = _logits()
    g = torch.Generator().manual_seed(4)
    index = torch.randint(0, 7, (2, 5), generator=g)
    topk = torch.randint(0, 7, (2, 5, 3), generator=g)
    mask = torch.tensor([[1, 1, 0, 1, 0], [0, 1, 1, 1, 1]])
    lp, _ = selective_log_softmax_and_entropy(logits, index, temperature=0.7, row_mask=mask)
    lp_t2, _ = selective_log_softmax_and_entropy(logits, index, temperature=2.0)
    logits4 = logits.reshape(2, 5, 7)[:, None].expand(2, 3, 5, 7) * torch.tensor([1.0, 0.5, 2.0])[None, :, None, None]
    _, ent = selective_log_softmax_and_entropy(logits, index, row_mask=mask)
    lp2, ent2 = selective_log_softmax_and_entropy(logits.clone().requires_grad_(), index,
                                                  entropy_requires_grad=False)
    return {
        "plain": selective_log_softmax(logits, index),
        "topk": selective_log_softmax(logits, topk),
        "temp_masked": selective_log_softmax(logits, index, temperature=2.5, row_mask=mask),
        "bf16": selective_log_softmax(logits.to(torch.bfloat16), index).double(),
        "bf16_4d": selective_log_softmax(logits4.to(torch.bfloat16), index[:, None].expand(2, 3, 5)).double(),
        "joint_t2_logps": lp_t2,
        "entropy": entropy_from_logits(logits),
        "entropy_chunks": entropy_from_logits(logits, chunk_size=3),
        "joint_logps": lp, "joint_entropy": ent,
        "joint_plain_logps": lp2.detach(), "joint_plain_entropy": ent2.detach(),
        "logps_grad": lp2.requires_grad, "entropy_grad": ent2.requires_grad,
    }


# No case for a non-positive temperature: neither helper docstring says whether it raises or what it returns.


@case(compare="exact")
def data_helpers():
    conv = {
        "chosen": [{"role": "user", "content": "sky?"}, {"role": "assistant", "content": "blue"}],
        "rejected": [{"role": "user", "content": "sky?"}, {"role": "assistant", "content": "green"}],
    }
    ex = extract_prompt(conv)
    text = extract_prompt({"chosen": "abcXY", "rejected": "abcZ"})
    return {
        "conv_prompt": str(ex["prompt"]), "conv_chosen": str(ex["chosen"]), "conv_rejected": str(ex["rejected"]),
        "text": [text["prompt"], text["chosen"], text["rejected"]],
        "cpl": [common_prefix_length([1, 2, 3], [1, 2, 4, 5]), common_prefix_length([1, 2], [1, 2, 3]),
                common_prefix_length([], [1]), common_prefix_length([5, 1], [4, 1]),
                common_prefix_length([1, 2, 3], [1, 2, 3])],
        "conv": [is_conversational({"prompt": [{"role": "user", "content": "x"}]}),
                 is_conversational({"chosen": conv["chosen"], "rejected": conv["rejected"]}),
                 is_conversational({"prompt": "x", "chosen": "y"}),
                 is_conversational({"messages": [{"role": "user", "content": "x"}]}),
                 is_conversational({"completion": [{"from": "user", "value": "x"}]})],
    }


@case(compare="none")
def extract_prompt_at_space():
    """Strings that diverge right after a space: where the space goes is not decided (the check accepts both)."""
    out = extract_prompt({"chosen": "b c d", "rejected": "b c e f"})
    return {"prompt": out["prompt"], "chosen": out["chosen"], "rejected": out["rejected"]}
