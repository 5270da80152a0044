"""Probe for trl-gold/1: trl's GOLDTrainer reached through its public entry points (GOLDConfig + GOLDTrainer,
evaluate / train, the generalized JSD loss, the ULD loss across two tokenizers).

Everything is built here: two ByteLevel BPE tokenizers made in code (the student's pieces are single characters,
the teacher's vocabulary adds merged pieces and lists its tokens in another order), 2-layer Llamas (hidden 16)
with seeded float64 weights, tiny `datasets.Dataset`s whose examples tokenize to the same length inside a batch
(so no padding side is involved), runs of a few SGD steps on CPU in a temporary folder. The per-token
log-probabilities of the completions are computed here as well, straight from the models' logits, so that
check_gold.py can rebuild the same-tokenizer loss from the paper's equations."""

from __future__ import annotations

import logging
import tempfile
import warnings

import torch
from lmrbench_probe import case

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

from datasets import Dataset, disable_progress_bars  # noqa: E402
from tokenizers import Tokenizer, decoders, models, pre_tokenizers  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast  # noqa: E402
from transformers.utils import logging as hf_logging  # noqa: E402
from trl.experimental.gold import GOLDConfig, GOLDTrainer  # noqa: E402

disable_progress_bars()
hf_logging.set_verbosity_error()

LETTERS = list("abcdefgh")
SPECIAL = ["<pad>", "<eos>"]


def _bpe(pieces, merges):
    vocab = {p: i for i, p in enumerate(pieces)}
    tk = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tk.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<eos>", pad_token="<pad>")
    return tok


def student_tokenizer(extra=0):
    # single characters (and the space marker), plus pieces the teacher does not have ("\u0120ef" and two unused;
    # `extra` more unused ones make the student's vocabulary larger than the teacher's)
    pieces = [*SPECIAL, *LETTERS, "\u0120", *["\u0120" + c for c in LETTERS], "<s1>", "<s2>", "\u0120ef",
              *[f"<x{i}>" for i in range(extra)]]
    merges = [*[("\u0120", c) for c in LETTERS], ("\u0120e", "f")]
    return _bpe(pieces, merges)


def teacher_tokenizer():
    # a different order, and merged pieces the student does not have ("ab", "cd", "\u0120ab", "ef")
    base = ["\u0120" + c for c in reversed(LETTERS)] + list(reversed(LETTERS)) + ["\u0120"]
    merged = ["ab", "cd", "ef", "\u0120ab", "\u0120cd"]
    pieces = ["<eos>", "<pad>", *base, *merged]
    # merge order: "\u0120a" before "ab" would keep "\u0120ab" from forming; list the pair merges first
    merges = [("a", "b"), ("c", "d"), ("e", "f")] + [("\u0120", c) for c in LETTERS] + [
        ("\u0120", "ab"), ("\u0120", "cd")]
    return _bpe(pieces, merges)


def llama(vocab_size, seed, pad_id, eos_id):
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=vocab_size, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
                      pad_token_id=pad_id, eos_token_id=eos_id, bos_token_id=eos_id)
    model = LlamaForCausalLM(cfg).to(torch.float64)
    with torch.no_grad():
        model.lm_head.weight.normal_(0.0, 0.7)
    return model


def config(out: str, **kw) -> GOLDConfig:
    base = dict(output_dir=out, report_to="none", use_cpu=True, bf16=False, fp16=False,
                gradient_checkpointing=False, save_strategy="no", logging_steps=1, seed=0,
                per_device_train_batch_size=2, per_device_eval_batch_size=2, max_steps=1,
                dataset_num_proc=None, disable_tqdm=True, lmbda=0.0, max_length=None,
                max_completion_length=8, log_completions=False)
    base.update(kw)
    return GOLDConfig(**base)


# Same tokenizer: prompts and completions of equal token counts inside each batch of two.
SAME = {"prompt": ["a b", "c d", "e f", "g h"], "completion": [" c d e", " f g h", " a b c", " d e f"]}
# Cross-tokenizer: each batch of two tokenizes to equal lengths under each tokenizer.
CROSS = {"prompt": ["ab c", "cd e"], "completion": [" ab c ef", " ef c ab"]}


def completion_logps(model, tok, prompts, completions):
    """Per-token log-probability vectors (softmax over the vocabulary, temperature applied) that predict each
    completion token (the completion, then the end-of-sequence token), straight from the logits."""
    rows = []
    with torch.no_grad():
        for p, c in zip(prompts, completions, strict=True):
            p_ids = tok(p, add_special_tokens=False)["input_ids"]
            ids = tok(p + c, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
            logits = model(torch.tensor([ids])).logits[0]
            rows.append(logits[len(p_ids) - 1:-1])
    return torch.cat(rows)


def same_run(beta, temperature, train_steps=0, lr=0.5, **kw):
    tok = student_tokenizer()
    student = llama(len(tok), 0, tok.pad_token_id, tok.eos_token_id)
    teacher = llama(len(tok), 1, tok.pad_token_id, tok.eos_token_id)
    res = {"student_logits": completion_logps(student, tok, SAME["prompt"], SAME["completion"]),
           "teacher_logits": completion_logps(teacher, tok, SAME["prompt"], SAME["completion"])}
    before = {n: p.detach().clone() for n, p in student.named_parameters()}
    ds = Dataset.from_dict(SAME)
    with tempfile.TemporaryDirectory() as d:
        args = config(d, beta=beta, temperature=temperature, max_steps=max(train_steps, 1), learning_rate=lr,
                      lr_scheduler_type="constant", optim="sgd", weight_decay=0.0, max_grad_norm=1e9, **kw)
        trainer = GOLDTrainer(model=student, teacher_model=teacher, args=args, train_dataset=ds, eval_dataset=ds,
                              processing_class=tok)
        res["eval_loss"] = trainer.evaluate()["eval_loss"]
        if train_steps:
            trainer.train()
            delta = torch.cat([(p.detach() - before[n]).flatten() for n, p in trainer.model.named_parameters()])
            res["update_norm"] = delta.norm()
            res["update_head"] = (trainer.model.lm_head.weight.detach() - before["lm_head.weight"])[:6].sum(-1)
            fresh = llama(len(tok), 1, tok.pad_token_id, tok.eos_token_id)
            res["teacher_change"] = max(float((p.detach() - q).abs().max()) for p, q in zip(
                teacher.parameters(), fresh.parameters(), strict=True))
            res.update(logged(trainer))
    return res


LOGGED = ("loss", "on_policy_loss", "off_policy_loss", "matched_loss", "unmatched_loss")


def logged(trainer):
    """The per-step training logs: each key's values (-1 where a step did not log it)."""
    steps = [h for h in trainer.state.log_history if "loss" in h and "train_runtime" not in h]
    return {f"log_{k}": torch.tensor([float(h.get(k, -1.0)) for h in steps], dtype=torch.float64)
            for k in LOGGED}


# the logged losses are checked by meaning (check_gold.py): which keys appear and what they equal
LOG_NONE = {f"log_{k}": {"compare": "none"} for k in LOGGED}


SAME_RUNS = {"beta05_t1": (0.5, 1.0), "beta02_t2": (0.2, 2.0), "beta0_t1": (0.0, 1.0), "beta1_t07": (1.0, 0.7)}


# The loss is computed in the models' dtype (float64) by every reading; the Trainer reports it through float32.
@case(params=list(SAME_RUNS), ids=list(SAME_RUNS), rtol=1e-5, atol=1e-8,
      outputs={"student_logits": {"rtol": 1e-9}, "teacher_logits": {"rtol": 1e-9}})
def same_tokenizer_loss(name):
    beta, t = SAME_RUNS[name]
    res = same_run(beta, t)
    res["beta"], res["temperature"] = beta, t
    return res


TRAIN_RUNS = {"beta05": dict(beta=0.5), "beta1": dict(beta=1.0),
              "beta03_accumulated": dict(beta=0.3, per_device_train_batch_size=1, gradient_accumulation_steps=2,
                                         train_steps=1)}


# update_norm: compared by the checks (the head rows of the unaccumulated runs pin the update's size against the
# release; the accumulated run's size is checked there, where two readings are accepted).
@case(params=list(TRAIN_RUNS), ids=list(TRAIN_RUNS), rtol=1e-6, atol=1e-9,
      outputs={"student_logits": {"compare": "none"}, "teacher_logits": {"compare": "none"},
               "eval_loss": {"rtol": 1e-5}, "update_norm": {"compare": "none"}, **LOG_NONE})
def same_tokenizer_training(name):
    kw = dict(TRAIN_RUNS[name])
    res = same_run(kw.pop("beta"), 1.0, **{"train_steps": 2, **kw})
    if kw.get("gradient_accumulation_steps", 1) > 1:
        # With accumulation the release divides each slice's summed divergence by the count the Trainer hands it,
        # which counts the repeated generation batch once per slice (twice the accumulated batch's completion
        # tokens here); paper.md section 2 says the accumulated batch's completion tokens. Both readings give the
        # same update direction after one SGD step, so the head rows are compared as a direction and the size is
        # checked for either reading (check_gold.py).
        res["update_head"] = res["update_head"] / res["update_norm"]
    return res


@case(params=["b0", "b03", "b1"], ids=["beta0", "beta03", "beta1"], rtol=1e-9, atol=1e-12)
def jsd_static(which):
    """GOLDTrainer.generalized_jsd_loss on its own: masked batchmean, sum, and the global-count divisor."""
    beta = {"b0": 0.0, "b03": 0.3, "b1": 1.0}[which]
    g = torch.Generator().manual_seed(3)
    s = torch.randn(2, 4, 7, generator=g, dtype=torch.float64) * 2
    t = torch.randn(2, 4, 7, generator=g, dtype=torch.float64) * 2
    labels = torch.tensor([[-100, 3, 1, 5], [2, -100, -100, 6]])
    out = {"s": s, "t": t, "labels": labels, "beta": beta}
    out["batchmean"] = GOLDTrainer.generalized_jsd_loss(s, t, labels=labels, beta=beta, temperature=1.5)
    out["sum"] = GOLDTrainer.generalized_jsd_loss(s, t, labels=labels, beta=beta, temperature=1.5, reduction="sum")
    out["global"] = GOLDTrainer.generalized_jsd_loss(s, t, labels=labels, beta=beta, temperature=1.5,
                                                     num_items_in_batch=torch.tensor(10))
    out["unmasked"] = GOLDTrainer.generalized_jsd_loss(s[0], t[0], beta=beta, temperature=1.0)
    out["global_int"] = GOLDTrainer.generalized_jsd_loss(s, t, labels=labels, beta=beta, temperature=1.5,
                                                         num_items_in_batch=10)
    # "mean": the mean over every element of the per-token, per-vocabulary-entry divergence (torch's convention,
    # as the GKD trainer's loss that the package shows)
    out["elementwise_mean"] = GOLDTrainer.generalized_jsd_loss(s, t, labels=labels, beta=beta, temperature=1.5,
                                                               reduction="mean")
    return out


# ---------------------------------------------------------------- cross-tokenizer (ULD)

# A chat template whose rendering stays inside the tokenizers' alphabet: "h" opens a user turn, "g" an
# assistant turn.
CHAT_TEMPLATE = ("{% for m in messages %}{% if m['role'] == 'user' %}h{% else %}g{% endif %} {{ m['content'] }} "
                 "{% endfor %}{% if add_generation_prompt %}g{% endif %}")


def _turn(role, text):
    return {"role": role, "content": text}


DATASETS = {
    "plain": CROSS,
    "conversational": {"prompt": [[_turn("user", p)] for p in CROSS["prompt"]],
                       "completion": [[_turn("assistant", c.strip())] for c in CROSS["completion"]]},
    "messages": {"messages": [[_turn("user", p), _turn("assistant", c.strip())]
                              for p, c in zip(CROSS["prompt"], CROSS["completion"], strict=True)]},
}


def cross_run(train_steps=0, data="plain", student_extra=0, **kw):
    stok, ttok = student_tokenizer(student_extra), teacher_tokenizer()
    stok.chat_template = CHAT_TEMPLATE
    student = llama(len(stok), 0, stok.pad_token_id, stok.eos_token_id)
    teacher = llama(len(ttok), 1, ttok.pad_token_id, ttok.eos_token_id)
    before = {n: p.detach().clone() for n, p in student.named_parameters()}
    ds = Dataset.from_dict(DATASETS[data])
    res = {}
    with tempfile.TemporaryDirectory() as d:
        ttok.save_pretrained(f"{d}/teacher_tok")
        args = config(d, use_uld_loss=True, teacher_tokenizer_name_or_path=f"{d}/teacher_tok",
                      max_steps=max(train_steps, 1), learning_rate=0.5, lr_scheduler_type="constant", optim="sgd",
                      weight_decay=0.0, max_grad_norm=1e9, **kw)
        trainer = GOLDTrainer(model=student, teacher_model=teacher, args=args, train_dataset=ds, eval_dataset=ds,
                              processing_class=stok)
        res["eval_loss"] = trainer.evaluate()["eval_loss"]
        if train_steps:
            trainer.train()
            delta = torch.cat([(p.detach() - before[n]).flatten() for n, p in trainer.model.named_parameters()])
            res["update_norm"] = delta.norm()
            res.update(logged(trainer))
    return res


CROSS_RUNS = {
    "positional": dict(use_extended_uld=False),
    "positional_bayesian": dict(use_extended_uld=False, uld_token_merge_strategy="bayesian"),
    "observed": dict(),
    "bayesian": dict(uld_token_merge_strategy="bayesian"),
    "observed_temps_ce": dict(uld_student_temperature=0.7, uld_teacher_temperature=1.5, uld_crossentropy_weight=0.3,
                              uld_distillation_weight=2.0),
    "keep_eos": dict(uld_skip_student_eos=False, uld_skip_teacher_eos=False),
    "hybrid_adaptive": dict(uld_use_hybrid_loss=True, beta=0.5),
    "hybrid_fixed": dict(uld_use_hybrid_loss=True, uld_hybrid_matched_weight=0.7, uld_hybrid_unmatched_weight=0.2,
                         beta=0.3),
    "conversational": dict(data="conversational"),
    "conversational_bayesian_hybrid": dict(data="conversational", uld_token_merge_strategy="bayesian",
                                           uld_use_hybrid_loss=True),
    "messages": dict(data="messages", uld_crossentropy_weight=0.4),
    "messages_positional": dict(data="messages", use_extended_uld=False),
    "big_student_positional": dict(student_extra=4, use_extended_uld=False),
    "big_student_observed": dict(student_extra=4),
    "big_student_hybrid": dict(student_extra=4, uld_use_hybrid_loss=True, beta=0.5),
    "hybrid_bayesian_keep_eos": dict(uld_use_hybrid_loss=True, uld_token_merge_strategy="bayesian",
                                     uld_skip_teacher_eos=False, beta=0.0),
}


@case(params=list(CROSS_RUNS), ids=list(CROSS_RUNS), rtol=1e-5, atol=1e-8)
def uld_loss(name):
    return cross_run(**CROSS_RUNS[name])


@case(params=["observed", "hybrid"], ids=["observed", "hybrid"], rtol=1e-6, atol=1e-9,
      outputs={"eval_loss": {"rtol": 1e-5}, **LOG_NONE})
def uld_training(name):
    kw = {"observed": dict(uld_crossentropy_weight=0.5), "hybrid": dict(uld_use_hybrid_loss=True)}[name]
    return cross_run(train_steps=2, **kw)


# ---------------------------------------------------------------- config refusals (GOLDConfig.__post_init__)

REFUSALS = {
    "lmbda_above_one": dict(lmbda=1.5),
    "beta_negative": dict(beta=-0.1),
    "completion_fills_max_length": dict(max_length=8, max_completion_length=8),
    "num_generations_zero": dict(num_generations=0),
    "generations_do_not_partition": dict(num_generations=3, gradient_accumulation_steps=2),
    "generation_batch_does_not_partition": dict(generation_batch_size=3),
    "uld_student_temperature_zero": dict(use_uld_loss=True, uld_student_temperature=0.0),
    "uld_teacher_temperature_zero": dict(use_uld_loss=True, uld_teacher_temperature=0.0),
    "uld_ce_weight_negative": dict(use_uld_loss=True, uld_crossentropy_weight=-0.5),
    "uld_unknown_merge": dict(use_uld_loss=True, uld_token_merge_strategy="greedy"),
    "hybrid_one_weight": dict(use_uld_loss=True, uld_use_hybrid_loss=True, uld_hybrid_matched_weight=0.5),
    "hybrid_negative_weight": dict(use_uld_loss=True, uld_use_hybrid_loss=True, uld_hybrid_matched_weight=-0.5,
                                   uld_hybrid_unmatched_weight=0.5),
}


@case(params=list(REFUSALS), ids=list(REFUSALS))
def config_refusal(name):
    with tempfile.TemporaryDirectory() as d:
        config(d, **REFUSALS[name])
    return {"built": True}


ACCEPTED = {
    "edges": dict(lmbda=1.0, beta=0.0),
    "uld_ok": dict(use_uld_loss=True, uld_use_hybrid_loss=True, uld_crossentropy_weight=0.0),
    "two_generations": dict(num_generations=2, lmbda=1.0),
}


@case(params=list(ACCEPTED), ids=list(ACCEPTED))
def config_accepted(name):
    with tempfile.TemporaryDirectory() as d:
        cfg = config(d, **ACCEPTED[name])
    return {"generation_batch_size": cfg.generation_batch_size}


# ---------------------------------------------------------------- on-policy completions

ON_POLICY = {
    # prompts of equal length, two stop tokens
    "greedy": dict(prompts=[["a b"], ["g h"], ["c d"]], stops=["g", "<eos>"]),
    # left-padded prompts (their attention mask has zeros), the end-of-sequence token as the only stop
    "padded": dict(prompts=[["a b c"], ["<pad>", "d e"], ["<pad>", "<pad>", "f"]], stops=["<eos>"]),
    # no stop token: the whole completion is kept
    "no_stop": dict(prompts=[["a b"], ["e f"]], stops=None),
}


@case(params=list(ON_POLICY), ids=list(ON_POLICY),
      outputs={"new_input_ids": {"compare": "none"}, "attention_mask": {"compare": "none"},
               "labels": {"compare": "none"}, "n_completion_texts": {"compare": "none"},
               "completion_text_lens": {"compare": "none"}, "decoded_completions_lens": {"compare": "none"},
               "decoded_completions_lens_plain": {"compare": "none"}})
def on_policy_outputs(which):
    """GOLDTrainer.generate_on_policy_outputs with a greedy generation config and a set of stop tokens: the
    returned sequences, their masks and labels, and the decoded prompt / completion texts."""
    from transformers import GenerationConfig

    spec = ON_POLICY[which]
    tok = student_tokenizer()
    student = llama(len(tok), 0, tok.pad_token_id, tok.eos_token_id)
    teacher = llama(len(tok), 1, tok.pad_token_id, tok.eos_token_id)
    ds = Dataset.from_dict(SAME)
    stops = None if spec["stops"] is None else [tok.convert_tokens_to_ids(t) for t in spec["stops"]]
    rows = []
    for parts in spec["prompts"]:
        ids = []
        for part in parts:
            ids += [tok.pad_token_id] if part == "<pad>" else tok(part, add_special_tokens=False)["input_ids"]
        rows.append(ids)
    with tempfile.TemporaryDirectory() as d:
        trainer = GOLDTrainer(model=student, teacher_model=teacher, args=config(d), train_dataset=ds,
                              processing_class=tok)
        prompts = torch.tensor(rows)
        prompt_mask = (prompts != tok.pad_token_id).long()
        inputs = {"prompts": prompts, "prompt_attention_mask": prompt_mask}
        gen = GenerationConfig(do_sample=False, max_new_tokens=5, eos_token_id=stops, pad_token_id=tok.pad_token_id)
        ids, mask, labels, p_texts, c_texts = trainer.generate_on_policy_outputs(student, inputs, gen)
    kept = [[t for t, lab in zip(row.tolist(), lrow.tolist(), strict=True) if lab != -100]
            for row, lrow in zip(ids, labels, strict=True)]
    return {"new_input_ids": ids, "attention_mask": mask.long(), "labels": labels, "prompts": prompts,
            "prompt_attention_mask": prompt_mask, "prompt_texts": list(p_texts),
            "stops": torch.tensor(stops if stops is not None else [-1]), "n_completion_texts": len(c_texts),
            "completion_text_lens": torch.tensor([len(c) for c in c_texts]),
            "decoded_completions_lens": torch.tensor([len(tok.decode(k)) for k in kept]),
            "decoded_completions_lens_plain": torch.tensor([len(tok.decode(k, skip_special_tokens=True))
                                                            for k in kept])}


@case(params=["same", "cross"], ids=["same_tokenizer", "cross_tokenizer"], rtol=1e-6, atol=1e-9,
      outputs={"update_norm": {"compare": "none"}, "eval_loss": {"rtol": 1e-5}, **LOG_NONE})
def on_policy_training(which):
    """Two SGD steps with lmbda = 1: every slice is sampled from the student (which samples is not compared)."""
    if which == "same":
        res = same_run(0.5, 1.0, train_steps=2, lmbda=1.0, max_completion_length=3)
        return {"eval_loss": res["eval_loss"], "update_norm": res["update_norm"],
                "teacher_change": res["teacher_change"], **{k: v for k, v in res.items() if k.startswith("log_")}}
    return cross_run(train_steps=2, lmbda=1.0, max_completion_length=3)


COLLATOR = {
    # each conversation tokenizes to the same length: no padding involved (compared with the release)
    "messages": DATASETS["messages"]["messages"],
    # different lengths: padded (checked by meaning, whatever the padding side)
    "padded": [[_turn("user", "ab c"), _turn("assistant", "ef")], [_turn("user", "a"), _turn("assistant", "cd e ab")]],
}


def _wordlevel_tokenizer():
    words = ["<pad>", "<eos>", "h", "g", "ab", "c", "cd", "e", "ef"]
    tk = Tokenizer(models.WordLevel(vocab={w: i for i, w in enumerate(words)}, unk_token="<pad>"))
    tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<eos>", pad_token="<pad>")


@case(params=["messages", "padded", "wordlevel"], ids=["messages", "padded", "wordlevel"],
      outputs={"byte_offsets": {"compare": "none"}, "got_byte_offsets": {"compare": "none"},
               "has_byte_offsets": {"compare": "none"}})
def chatml_collator(which):
    """DataCollatorForChatML on raw conversations (its own tokenization path): ids, the completion labels, the
    prompts and the completion-relative byte offsets. The probe also records each conversation's own
    tokenization (full text, prompt with the generation prompt) so that padded batches are checked by meaning."""
    from trl.experimental.utils import DataCollatorForChatML

    tok = _wordlevel_tokenizer() if which == "wordlevel" else student_tokenizer()
    tok.chat_template = CHAT_TEMPLATE
    convs = COLLATOR.get(which, COLLATOR["messages"])
    batch = dict(DataCollatorForChatML(tokenizer=tok)([{"messages": m} for m in convs]))
    # Whether the collator computes byte offsets for raw conversations (examples that carry none) is decided by
    # nothing a solver sees (GOLD's own batches come from the prepared dataset, which carries them): an empty
    # tensor stands for "not returned", and the check reads the offsets only where they are returned.
    has_offsets = "byte_offsets" in batch
    if not has_offsets:
        batch["byte_offsets"] = torch.zeros(0, dtype=torch.long)
    keys = ("input_ids", "attention_mask", "labels", "prompts", "prompt_attention_mask", "byte_offsets")
    if which == "padded":
        out = {f"got_{k}": batch[k] for k in keys}
    else:
        out = {k: batch[k] for k in keys}
    out["has_byte_offsets"] = has_offsets
    for r, m in enumerate(convs):
        full = tok.apply_chat_template(m, tokenize=False)
        prompt = tok.apply_chat_template(m[:-1], tokenize=False, add_generation_prompt=True)
        enc = tok(full, add_special_tokens=False, return_offsets_mapping=True)
        out[f"full_{r}"] = torch.tensor(enc["input_ids"])
        out[f"prompt_{r}"] = torch.tensor(tok(prompt, add_special_tokens=False)["input_ids"])
        out[f"offsets_{r}"] = torch.tensor(enc["offset_mapping"]) - len(prompt)
    return out


@case(params=["extended", "positional"], ids=["extended", "positional"], compare="none")
def teacher_inputs(which):
    """build_teacher_inputs_from_texts on prompts of different lengths (so padding is involved), checked by its
    docstring's contract; the probe records each row's own tokenization."""
    from trl.experimental.gold.gold_trainer import build_teacher_inputs_from_texts

    tok = teacher_tokenizer()
    prompts, completions = ["ab c", "a"], [" ef c", " cd e ab"]
    ids, labels, mask, offs = build_teacher_inputs_from_texts(tok, prompts, completions,
                                                              use_extended_uld=which == "extended")
    out = {"input_ids": ids, "labels": labels, "attention_mask": mask.long(), "byte_offsets": offs,
           "eos": tok.eos_token_id}
    for r, (p, c) in enumerate(zip(prompts, completions, strict=True)):
        out[f"prompt_{r}"] = torch.tensor(tok(p, add_special_tokens=True)["input_ids"])
        enc = tok(c, add_special_tokens=False, return_offsets_mapping=True)
        out[f"completion_{r}"] = torch.tensor(enc["input_ids"])
        out[f"offsets_{r}"] = torch.tensor(enc["offset_mapping"])
        out[f"content_len_{r}"] = len(c.encode("utf-8"))
    return out
