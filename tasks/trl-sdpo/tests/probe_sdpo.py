"""Probe for trl-sdpo/1: trl's SDPOTrainer reached through its public entry points (SDPOConfig + SDPOTrainer,
evaluate / train with reward functions and a dataset).

Everything is built here: a byte-level tokenizer made in code (every byte is one token, so the default re-prompt
templates tokenize), a 2-layer Llama (hidden 16) with seeded float64 weights saved to a temporary folder (the trainer
builds its EMA / base teacher from the student's path), and a student whose `generate` returns fixed completions
(looked up by prompt, one per member of the group), so that the rollouts are known and host-independent. Each run
records the evaluation loss on one batch (the loss of paper.md on that batch: `evaluate()` with one batch holding
every group) and the SGD update of the student after a step or two (lr fixed, no clipping of the gradient norm)."""

from __future__ import annotations

import logging
import tempfile
import warnings
from typing import ClassVar

import torch
from lmrbench_probe import case

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

from datasets import Dataset, disable_progress_bars  # noqa: E402
from tokenizers import Tokenizer, decoders, models, pre_tokenizers  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast  # noqa: E402
from transformers.utils import logging as hf_logging  # noqa: E402
from trl.experimental.sdpo import SDPOConfig, SDPOTrainer  # noqa: E402

disable_progress_bars()
hf_logging.set_verbosity_error()

G = 3  # group size (num_generations)


def tokenizer():
    pieces = ["<pad>", "<eos>", *sorted(pre_tokenizers.ByteLevel.alphabet())]
    tk = Tokenizer(models.BPE(vocab={p: i for i, p in enumerate(pieces)}, merges=[]))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tk.decoder = decoders.ByteLevel()
    return PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<eos>", pad_token="<pad>")


TOK = tokenizer()
CHAT_TOK = tokenizer()  # the same vocabulary with a small chat template, for conversational prompts
CHAT_TOK.chat_template = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                          "{% if add_generation_prompt %}assistant:{% endif %}")


class FixedRollouts(LlamaForCausalLM):
    """A Llama whose sampling is replaced by a table: the k-th copy of a prompt in a generate call gets the k-th
    completion listed for it (token ids, each ending with the end-of-sequence token), cut at the call's
    `max_new_tokens` (a longer completion is truncated, as sampling would be) and right-padded like generate.
    A table may be a list of tables: the n-th generate call in training mode uses the n-th (the last one from
    then on), so fresh rollouts differ from the previous step's. A rendered chat prompt is looked up by the table
    key it holds."""

    table: ClassVar = {}
    train_calls: ClassVar[int] = 0

    def generate(self, input_ids=None, attention_mask=None, **kwargs):
        table = FixedRollouts.table
        if isinstance(table, list):
            table = table[min(FixedRollouts.train_calls, len(table) - 1)] if self.training else table[0]
            if self.training:
                FixedRollouts.train_calls += 1
        cfg = kwargs.get("generation_config")
        max_new = kwargs.get("max_new_tokens") or getattr(cfg, "max_new_tokens", None)
        seen: dict = {}
        rows = []
        for ids, mask in zip(input_ids.tolist(), attention_mask.tolist(), strict=True):
            key = TOK.decode([i for i, m in zip(ids, mask, strict=True) if m], skip_special_tokens=True)
            if key not in table:
                key = next(k for k in table if k in key)
            k = seen.get(key, 0)
            seen[key] = k + 1
            text = table[key][k % len(table[key])]
            row = TOK(text, add_special_tokens=False)["input_ids"] + [TOK.eos_token_id]
            rows.append(row[:max_new] if max_new else row)
        width = max(len(r) for r in rows)
        comp = torch.tensor([r + [TOK.pad_token_id] * (width - len(r)) for r in rows], dtype=input_ids.dtype)
        return torch.cat([input_ids, comp], dim=1)


def _save_base():
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=len(TOK), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=256,
                      pad_token_id=TOK.pad_token_id, eos_token_id=TOK.eos_token_id, bos_token_id=None)
    model = LlamaForCausalLM(cfg).to(torch.float64)
    with torch.no_grad():
        model.lm_head.weight.normal_(0.0, 0.7)
    folder = tempfile.mkdtemp(prefix="sdpo_probe_")
    model.save_pretrained(folder)
    return folder


BASE = _save_base()  # the initial student, saved once (the trainer builds its EMA / base teacher from this path)


def build_student():
    student = FixedRollouts.from_pretrained(BASE, dtype=torch.float64)
    student.config._name_or_path = BASE
    return student


# Rollouts. A completion is successful when it holds the letter "a" (reward 1.0, else 0.0). Within a group the
# successful completions are the same text, so which successful sibling is shown as the demonstration is no choice.
TABLES = {
    # every rollout has a demonstration from another member of its group (two successes in each group)
    "all": {"x y": [" bba", " cc", " bba"], "z w": [" ca", " ca", " dddd"]},
    # the second group has a single success: with self-exclusion it has no demonstration of its own
    "single": {"x y": [" bba", " cc", " bba"], "z w": [" dd", " ca", " eee"]},
    # no success at all in the second group (environment feedback only)
    "nosuccess": {"x y": [" bba", " cc", " bba"], "z w": [" dd", " cbc", " eee"]},
    # reasoning blocks in the demonstrations (no demonstration starts or ends with whitespace: whether the
    # removal also strips the text around the block is not decided)
    "think": {"x y": ["<think>b c</think>ba", " cc", "<think>b c</think>ba"], "z w": ["ca", "ca", " dddd"]},
    # fresh rollouts at every training step: the second step's differ from the first's
    "advancing": [{"x y": [" bba", " cc", " bba"], "z w": [" ca", " ca", " dddd"]},
                  {"x y": [" eab", " eab", " ff"], "z w": [" gg", " hah", " hah"]}],
    # evaluation with groups of two (num_generations_eval=2): the first two of each group both succeed
    "eval_pairs": {"x y": [" bba", " bba", " cc"], "z w": [" ca", " ca", " dd"]},
}


def reward_has_a(prompts, completions, **kwargs):
    texts = [c if isinstance(c, str) else c[-1]["content"] for c in completions]
    return [1.0 if "a" in c else 0.0 for c in texts]


def run(table="all", feedback=None, train_steps=0, lr=0.5, per_device=2 * G, model=None, prompts=None,
        reward_funcs=reward_has_a, trainer_kw=None, **kw):
    res = {}
    data = {"prompt": prompts or ["x y", "z w"]}
    if feedback is not None:
        data["privileged_context"] = feedback
    ds = Dataset.from_dict(data)
    with tempfile.TemporaryDirectory() as d:
        base = dict(output_dir=d + "/o", report_to="none", use_cpu=True, bf16=False, fp16=False,
                    save_strategy="no", logging_steps=1, seed=0, per_device_train_batch_size=per_device,
                    per_device_eval_batch_size=2 * G, num_generations=G, max_steps=max(train_steps, 1),
                    max_completion_length=16, max_prompt_length=64, learning_rate=lr,
                    lr_scheduler_type="constant", optim="sgd", weight_decay=0.0, max_grad_norm=1e9,
                    disable_tqdm=True, shuffle_dataset=False, temperature=1.0)
        base.update(kw)
        args = SDPOConfig(**base)
        FixedRollouts.table = TABLES[table]
        FixedRollouts.train_calls = 0
        trainer_kw = dict(trainer_kw or {})
        tok = trainer_kw.pop("processing_class", TOK)
        student = build_student() if model is None else model
        if isinstance(student, str):  # a model given by its path: the trainer loads it (it samples; no outputs)
            trainer = SDPOTrainer(model=student, reward_funcs=reward_funcs, args=args, train_dataset=ds,
                                  eval_dataset=ds, processing_class=tok, **trainer_kw)
            res["eval_loss"] = trainer.evaluate()["eval_loss"]
            return res
        before = {n: p.detach().clone() for n, p in student.named_parameters()}
        trainer = SDPOTrainer(model=student, reward_funcs=reward_funcs, args=args, train_dataset=ds,
                              eval_dataset=ds, processing_class=tok, **trainer_kw)
        res["eval_loss"] = trainer.evaluate()["eval_loss"]
        if train_steps:
            trainer.train()
            head = trainer.model.lm_head.weight.detach() - before["lm_head.weight"]
            delta = torch.cat([(p.detach() - before[n]).flatten() for n, p in trainer.model.named_parameters()])
            res["update_norm"] = delta.norm()
            res["update_head"] = head.sum(1)
            res["update_dir"] = head.sum(1) / head.norm()
            if train_steps > 1:
                res["eval_loss_after"] = trainer.evaluate()["eval_loss"]
    return res


# --- the logit-level objectives: the loss value of paper.md section 3 and the update it gives ----------------

LOGIT_RUNS = {
    "full_fkl": dict(distillation_mode="full_logits", distillation_alpha=0.0),
    "full_jsd": dict(distillation_mode="full_logits", distillation_alpha=0.5),
    "topk_renorm_rkl": dict(distillation_mode="topk_logits", distillation_topk=5, distillation_alpha=1.0),
    "topk_tail_rkl": dict(distillation_mode="topk_logits", distillation_topk=5, distillation_alpha=1.0,
                          distillation_add_tail=True),
}


@case(params=list(LOGIT_RUNS), ids=list(LOGIT_RUNS), rtol=1e-4, atol=1e-5,
      outputs={"update_dir": {"compare": "none"}})
def logit_level(name):
    return run(train_steps=1, **LOGIT_RUNS[name])


# --- token-level SDPO: its surrogate's value is a convention, its gradient is the paper's --------------------

TOKEN_RUNS = {
    "default": dict(),
}


@case(params=list(TOKEN_RUNS), ids=list(TOKEN_RUNS), rtol=1e-4, atol=1e-5,
      outputs={"eval_loss": {"compare": "none"}, "eval_loss_after": {"compare": "none"},
               "update_dir": {"compare": "none"}})
def token_level(name):
    return run(train_steps=1, **TOKEN_RUNS[name])


# --- the teacher: EMA rate, base, live (two steps, then the loss against the teacher as it stands) ------------

TEACHER_RUNS = {
    "ema": dict(teacher_model_kind="ema"),
    "base": dict(teacher_model_kind="base"),
    "live": dict(teacher_model_kind="live"),
}


@case(params=list(TEACHER_RUNS), ids=list(TEACHER_RUNS), rtol=1e-4, atol=1e-5,
      outputs={"update_dir": {"compare": "none"}})
def teacher(name):
    return run(train_steps=2, distillation_mode="full_logits", distillation_alpha=1.0, **TEACHER_RUNS[name])


# --- the blend with the group-relative policy loss (paper.md section 5) ---------------------------------------
# Rewards are centred on the group mean and not scaled (`scale_rewards="none"`: which standard deviation, the
# sample's or the population's, is a convention). The release still divides by 1 + 1e-4 (the GRPO trainer's
# constant); the tolerance accepts any small constant up to about 1e-4.

BLEND_RUNS = {
    "quarter": dict(distillation_weight=0.25),
    "policy_only": dict(distillation_weight=0.0),
    # a reward function's weight multiplies its reward (the `reward_weights` docstring)
    "policy_only_weighted": dict(distillation_weight=0.0, reward_weights=[2.0]),
}


@case(params=list(BLEND_RUNS), ids=list(BLEND_RUNS), rtol=1e-3, atol=1e-7,
      outputs={"update_dir": {"compare": "none"}})
def blend(name):
    return run(train_steps=1, distillation_mode="full_logits", distillation_alpha=1.0, scale_rewards="none",
               **BLEND_RUNS[name])


# --- the same rollouts used for two optimisation steps (num_iterations=2): the truncated importance weight of
# paper.md section 3 on the second step (the whole batch each step, so no order of slices is involved) ---------

CLIP_RUNS = {"clip102": dict(distillation_is_clip=1.02), "no_clip": dict(distillation_is_clip=None)}


@case(params=list(CLIP_RUNS), ids=list(CLIP_RUNS), rtol=1e-4, atol=1e-5,
      outputs={"update_dir": {"compare": "none"}})
def reused_rollouts(name):
    return run(train_steps=2, num_iterations=2, lr=1.0, distillation_mode="full_logits",
               distillation_alpha=1.0, **CLIP_RUNS[name])


# --- the re-prompted teacher context (paper.md section 2) ------------------------------------------------------

FEEDBACK = "The answer must contain the first letter."
CONTEXT_RUNS = {
    # the only success of a group is not its own demonstration: that rollout drops out of the distillation
    # objective (how the batch mean counts it is not decided: only the update's direction is compared)
    "self_excluded": dict(table="single"),
    "self_allowed": dict(table="single", dont_reprompt_on_self_success=False),
    "feedback_no_success": dict(table="nosuccess", feedback=[None, FEEDBACK], include_environment_feedback=True),
    "feedback_with_solution": dict(table="all", feedback=[FEEDBACK, FEEDBACK], include_environment_feedback=True),
    "feedback_only_without_solution": dict(table="all", feedback=[FEEDBACK, FEEDBACK],
                                           include_environment_feedback=True,
                                           environment_feedback_only_without_solution=True),
    # the demonstrations are 21 tokens with end-of-sequence: room for them, so none is truncated
    "thinking_removed": dict(table="think", remove_thinking_from_demonstration=True, max_completion_length=32),
}
DIRECTION_ONLY = {"self_excluded"}


@case(params=list(CONTEXT_RUNS), ids=list(CONTEXT_RUNS), rtol=1e-4, atol=1e-5,
      outputs={"update_dir": {"rtol": 1e-4, "atol": 1e-5}})
def teacher_context(name):
    res = run(train_steps=1, distillation_mode="full_logits", distillation_alpha=1.0, **CONTEXT_RUNS[name])
    if name in DIRECTION_ONLY:
        # the same keys for every run; the scale-dependent outputs carry no information here
        for k in ("eval_loss", "update_norm", "update_head"):
            res[k] = 0.0 if k.startswith("eval") else torch.zeros((), dtype=torch.float64)
    return res


# --- rollouts: fresh at every step, truncated at max_completion_length, evaluation groups ----------------------
# `advancing`: the table changes after the first training step, so the second step must sample anew (paper.md
# section 3: on-policy rollouts; the `steps_per_generation` docstring). `truncated_*`: max_completion_length=5 cuts
# " dddd" + end-of-sequence to five tokens without an end; it is kept by default and excluded from the loss with
# `mask_truncated_completions=True` (its docstring; how the batch mean counts the excluded rollout is not decided:
# only the update's direction is compared there). `eval_pairs`: evaluation groups of num_generations_eval=2.

ROLLOUT_RUNS = {
    "advancing": dict(table="advancing", train_steps=2),
    "truncated_kept": dict(train_steps=1, max_completion_length=5),
    "truncated_masked": dict(train_steps=1, max_completion_length=5, mask_truncated_completions=True),
    "eval_pairs": dict(table="eval_pairs", num_generations_eval=2, per_device_eval_batch_size=4),
}
ROLLOUT_DIRECTION_ONLY = {"truncated_masked"}


@case(params=list(ROLLOUT_RUNS), ids=list(ROLLOUT_RUNS), rtol=1e-4, atol=1e-5,
      outputs={"update_dir": {"rtol": 1e-4, "atol": 1e-5}})
def rollouts(name):
    res = run(distillation_mode="full_logits", distillation_alpha=1.0, **ROLLOUT_RUNS[name])
    # the same keys for every run (an evaluation-only run has no update)
    zero = torch.zeros((), dtype=torch.float64)
    for k in ("update_norm", "update_head", "update_dir"):
        res.setdefault(k, zero)
    res.setdefault("eval_loss_after", 0.0)
    if name in ROLLOUT_DIRECTION_ONLY:
        res["eval_loss"], res["update_norm"], res["update_head"] = 0.0, zero, zero
    return res


# --- configuration the docstrings decide --------------------------------------------------------------------

BAD = {
    "weight_above_one": dict(distillation_weight=1.5),
    "weight_negative": dict(distillation_weight=-0.1),
    "sampled_token_not_reverse_kl": dict(distillation_mode="sampled_token", distillation_alpha=0.5),
    "topk_without_k": dict(distillation_mode="topk_logits", distillation_alpha=1.0),
    "group_not_dividing_batch": dict(per_device_train_batch_size=4),
    "teacher_server_without_vllm": dict(use_teacher_server=True),
    # evaluation on, and the eval batch (8) not a multiple of the group size: refused like the GRPOConfig sibling
    # does (trl/trainer/grpo_config.py, __post_init__); 8 > the 6 eval samples, so an unchecked run would go through
    "eval_group_not_dividing_batch": dict(do_eval=True, eval_strategy="steps", eval_steps=1,
                                          per_device_eval_batch_size=8),
}
GOOD = {
    "weight_zero": dict(distillation_weight=0.0),
    "topk_with_jsd": dict(distillation_mode="topk_logits", distillation_topk=3, distillation_alpha=0.5),
    "model_as_path": dict(model=BASE),
    # the generation batch given instead of steps_per_generation (their docstrings: either one may be given)
    "generation_batch_size_given": dict(generation_batch_size=2 * G),
    # conversational prompts (the builder's visible `_extract_last_user_text`: "a conversational prompt")
    "conversational_prompts": dict(prompts=[[{"role": "user", "content": "x y"}], [{"role": "user", "content": "z w"}]],
                                   trainer_kw={"processing_class": CHAT_TOK}),
}


def refused(kw):
    """1.0 when building the config, the trainer or running one evaluation raises, else 0.0 (where the refusal is
    raised is not decided)."""
    try:
        run(**kw)
    except Exception:
        return 1.0
    return 0.0


@case(compare="exact")
def config_validation():
    return {**{k: refused(v) for k, v in BAD.items()}, **{k: refused(v) for k, v in GOOD.items()}}
