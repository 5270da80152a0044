"""Probe for trl-a2po/1: trl's A2POTrainer (A*-PO) reached through its public entry points (A2POConfig +
A2POTrainer, train / evaluate, reward functions, a callback).

Everything is built here: a ByteLevel BPE tokenizer made in code whose pieces are single letters (its end-of-sequence
token is also its padding token), a 2-layer Llama (hidden 16) with seeded float64 weights, tiny `datasets.Dataset`s
whose prompts tokenize to the same length (so no padding side is involved), plain SGD runs on CPU in a temporary
folder.

Generation samples, so what the trainer sees depends on how an implementation draws its random numbers. The probe
therefore records what the reward functions are shown (every prompt and completion, in call order, with the
trainer's step at the time), the weights before and after every optimizer step (a callback), and computes the
completions' log-probabilities itself, straight from the models' logits. check_a2po.py rebuilds from these
records, with paper.md's equations, the optimal values of Stage 1, each step's loss, the first update and the
evaluation loss, and compares them with what the trainer reports."""

from __future__ import annotations

import copy
import json
import logging
import tempfile
import warnings

import torch
from lmrbench_probe import case

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

from datasets import Dataset, disable_progress_bars  # noqa: E402
from tokenizers import Tokenizer, decoders, models, pre_tokenizers  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast, TrainerCallback  # noqa: E402
from transformers.utils import logging as hf_logging  # noqa: E402
from trl.experimental.a2po import A2POConfig, A2POTrainer  # noqa: E402

disable_progress_bars()
hf_logging.set_verbosity_error()

LETTERS = list("abcdefgh")


def tokenizer():
    pieces = ["<eos>", *LETTERS]
    tk = Tokenizer(models.BPE(vocab={p: i for i, p in enumerate(pieces)}, merges=[]))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tk.decoder = decoders.ByteLevel()
    return PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<eos>", pad_token="<eos>", padding_side="left",
                                   truncation_side="left")


def llama(vocab_size, eos_id, seed=0):
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=vocab_size, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
                      pad_token_id=eos_id, eos_token_id=eos_id, bos_token_id=eos_id)
    model = LlamaForCausalLM(cfg).to(torch.float64)
    with torch.no_grad():
        model.lm_head.weight.normal_(0.0, 0.7)
    return model


# ------------------------------------------------------------------ reward functions (binary), recomputed by the check


def parity(prompts, completions, **kwargs):
    """1 when the completion's character codes sum to an even number."""
    return [float(sum(map(ord, c)) % 2 == 0) for c in completions]


def contains(prompts, completions, solution, **kwargs):
    """1 when the completion contains the example's `solution` letter (a dataset column)."""
    return [float(s in c) for c, s in zip(completions, solution, strict=True)]


def parity_but_def(prompts, completions, **kwargs):
    """parity, except that every completion of the prompt "def" scores 0 (all of its samples are incorrect)."""
    return [0.0 if p == "def" else float(sum(map(ord, c)) % 2 == 0) for p, c in zip(prompts, completions, strict=True)]


REWARDS = {"parity": parity, "contains": contains, "parity_but_def": parity_but_def}


class Recorder:
    """Wraps the first reward function: records each (phase, trainer step, prompt, completion) it is shown."""

    def __init__(self, fn):
        self.fn, self.rows, self.phase, self.trainer = fn, [], "train", None
        self.__name__ = fn.__name__

    def __call__(self, prompts, completions, **kwargs):
        step = self.trainer.state.global_step if self.trainer is not None else -1
        for p, c in zip(prompts, completions, strict=True):
            self.rows.append({"phase": self.phase, "step": int(step), "prompt": p, "completion": c})
        return self.fn(prompts, completions, **kwargs)


class Snapshots(TrainerCallback):
    """The policy's weights after every optimizer step."""

    def __init__(self):
        self.states = []

    def on_step_end(self, args, state, control, model=None, **kwargs):
        self.states.append({k: v.detach().clone() for k, v in model.state_dict().items()})


def seq_logp(model, tok, prompt, completion, max_prompt_length, max_completion_length):
    """log pi(y | x) summed over the completion's tokens (its end-of-sequence token included when it ended on one),
    with the prompt left-truncated to max_prompt_length tokens."""
    p_ids = tok(prompt, add_special_tokens=False)["input_ids"]
    if max_prompt_length is not None:
        p_ids = p_ids[-max_prompt_length:]
    c_ids = tok(completion, add_special_tokens=False)["input_ids"] if completion else []
    if len(c_ids) < max_completion_length:
        c_ids = [*c_ids, tok.eos_token_id]
    ids = torch.tensor([p_ids + c_ids])
    logits = model(ids).logits[0, len(p_ids) - 1:-1]
    return torch.log_softmax(logits, -1).gather(-1, torch.tensor(c_ids)[:, None]).sum()


PROMPTS = ["abc", "bcd", "cde", "def"]
SOLUTIONS = ["a", "b", "c", "d"]
LONG_PROMPTS = ["ghabc", "hgbcd", "ggcde", "hhdef"]
# left padding inside a batch (Llama's rotary positions make the padded and unpadded log-probabilities agree)
MIXED_PROMPTS = ["abc", "hgbcd", "cd", "hhdef"]

# name: config overrides and probe settings
RUNS = {
    "parity_n4": dict(rewards=["parity"], num_value_samples=4, beta1=0.5, beta2=0.1, bare=True),
    "two_rewards_n6_beta1_small": dict(rewards=["parity", "contains"], num_value_samples=6, beta1=0.1, beta2=0.2),
    "weighted_n3_beta1_large": dict(rewards=["contains", "parity"], reward_weights=[0.5, 2.0], num_value_samples=3,
                                    beta1=3.0, beta2=0.05),
    "filter_all_incorrect": dict(rewards=["parity_but_def"], num_value_samples=5, beta1=0.5, beta2=0.1, steps=4),
    "keep_all_incorrect": dict(rewards=["parity_but_def"], num_value_samples=5, beta1=0.5, beta2=0.1, steps=4,
                               filter_all_incorrect=False),
    "batch1_beta2_default": dict(rewards=["contains"], num_value_samples=4, beta1=0.5, batch=1, lr=5.0, bare=True),
    "prompts_of_different_lengths": dict(rewards=["parity"], num_value_samples=4, beta1=0.5, beta2=0.1,
                                         prompts=MIXED_PROMPTS),
    "prompt_truncated": dict(rewards=["parity"], num_value_samples=4, beta1=1.0, beta2=0.1, prompts=LONG_PROMPTS,
                             max_prompt_length=3, max_completion_length=3),
    "greedy_top_k1": dict(rewards=["parity", "contains"], num_value_samples=3, beta1=0.5, beta2=0.1, top_k=1,
                          filter_all_incorrect=False),
    "greedy_top_p": dict(rewards=["parity"], num_value_samples=3, beta1=0.5, beta2=0.1, top_p=1e-6,
                         filter_all_incorrect=False),
    "greedy_cold_temperature": dict(rewards=["contains"], num_value_samples=3, beta1=0.5, beta2=0.1,
                                    temperature=1e-4, filter_all_incorrect=False),
    "model_from_path": dict(rewards=["parity"], num_value_samples=4, beta1=0.5, beta2=0.1, from_path=True,
                            model_init_kwargs={"dtype": "float64"}),
    "model_object_without_tokenizer": dict(rewards=["parity"], num_value_samples=4, beta1=0.5, beta2=0.1,
                                           from_path="object"),
}


def run(name):
    spec = dict(RUNS[name])
    rewards = [REWARDS[r] for r in spec.pop("rewards")]
    steps = spec.pop("steps", 3)
    batch = spec.pop("batch", 2)
    lr = spec.pop("lr", 0.5)
    prompts = spec.pop("prompts", PROMPTS)
    from_path = spec.pop("from_path", False)
    bare = spec.pop("bare", False)
    spec.setdefault("max_completion_length", 4)
    spec.setdefault("max_prompt_length", 512)
    tok = tokenizer()
    model = llama(len(tok), tok.eos_token_id)
    initial = copy.deepcopy(model)
    recorder = Recorder(rewards[0])
    snaps = Snapshots()
    ds = Dataset.from_dict({"prompt": prompts, "solution": SOLUTIONS})
    with tempfile.TemporaryDirectory() as d:
        args = A2POConfig(output_dir=d, report_to="none", use_cpu=True, bf16=False, fp16=False, save_strategy="no",
                          logging_steps=1, seed=0, per_device_train_batch_size=batch, per_device_eval_batch_size=8,
                          max_steps=steps, disable_tqdm=True, learning_rate=lr, optim="sgd",
                          lr_scheduler_type="constant", weight_decay=0.0, max_grad_norm=1e9, **spec)
        funcs = recorder if bare else [recorder, *rewards[1:]]
        if from_path:
            # the model given by its local folder (or loaded from it), the tokenizer loaded from there too
            model.save_pretrained(f"{d}/model")
            tok.save_pretrained(f"{d}/model")
            given = f"{d}/model"
            if from_path == "object":
                given = LlamaForCausalLM.from_pretrained(given, dtype=torch.float64)
            trainer = A2POTrainer(model=given, reward_funcs=funcs, args=args, train_dataset=ds, callbacks=[snaps])
        else:
            trainer = A2POTrainer(model=model, reward_funcs=funcs, args=args, train_dataset=ds,
                                  processing_class=tok, callbacks=[snaps])
        recorder.trainer = trainer
        train_output = trainer.train()
        steps_logged = [h for h in trainer.state.log_history if "loss" in h and "train_runtime" not in h]
        eval_loss = None
        if name != "filter_all_incorrect":
            recorder.phase = "eval"
            eval_loss = float(trainer.evaluate(eval_dataset=ds)["eval_loss"])
        final = trainer.model

    # log-probabilities of every on-policy completion: under the policy the step started from, under the
    # reference (the initial model), and under the final policy for the evaluation
    mpl, mcl = spec["max_prompt_length"], spec["max_completion_length"]
    policies = [initial]
    for st in snaps.states:
        m = copy.deepcopy(initial)
        m.load_state_dict(st)
        policies.append(m)
    rows = recorder.rows
    n_stage1 = spec["num_value_samples"] * len(prompts)
    grads = []
    with torch.no_grad():
        for i, row in enumerate(rows):
            if row["phase"] == "train" and i < n_stage1:
                continue
            row["logp_ref"] = float(seq_logp(initial, tok, row["prompt"], row["completion"], mpl, mcl))
            pol = final if row["phase"] == "eval" else policies[min(row["step"], len(policies) - 1)]
            row["logp"] = float(seq_logp(pol, tok, row["prompt"], row["completion"], mpl, mcl))
    # d log pi(y|x) / d lm_head at the initial weights, for the first step's completions
    for i, row in enumerate(rows):
        if row["phase"] == "train" and i >= n_stage1 and row["step"] == 0:
            initial.zero_grad()
            seq_logp(initial, tok, row["prompt"], row["completion"], mpl, mcl).backward()
            grads.append(initial.lm_head.weight.grad.detach().clone())
    first_update = (snaps.states[0]["lm_head.weight"] - initial.lm_head.weight.detach()) if snaps.states else None
    return {
        "records": json.dumps(rows),
        "train_output_global_step": int(train_output.global_step),
        "logged_loss": torch.tensor([float(h["loss"]) for h in steps_logged], dtype=torch.float64),
        "n_steps_logged": len(steps_logged),
        "eval_loss": eval_loss,
        "first_update": first_update,
        "first_step_grads": torch.stack(grads) if grads else None,
        "cfg": json.dumps({"rewards": [r.__name__ for r in rewards], "num_value_samples": spec["num_value_samples"],
                           "beta1": spec["beta1"], "beta2": spec.get("beta2", 1e-3),
                           "reward_weights": spec.get("reward_weights"), "batch": batch, "lr": lr, "steps": steps,
                           "max_completion_length": mcl, "max_prompt_length": mpl,
                           "filter": spec.get("filter_all_incorrect", True), "top_k": spec.get("top_k"),
                           "prompts": prompts, "solutions": SOLUTIONS}),
    }


NONE = {k: {"compare": "none"} for k in ("records", "logged_loss", "eval_loss", "first_update", "first_step_grads")}


# Everything that depends on the sampled completions is compared by the checks (rebuilt from the records).
@case(params=list(RUNS), ids=list(RUNS), outputs=NONE)
def a2po_run(name):
    return run(name)
