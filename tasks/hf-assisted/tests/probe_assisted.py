"""Probe for hf-assisted/1: assisted generation and speculative decoding reached through `generate()` of tiny
Llama and GPT-2 models built here (float64, seeded, random or hand-set weights; no hub, no tokenizer).

Outputs whose exact tokens depend on random draws (sampling) or on argmax decisions are judged in
check_assisted.py by meaning: assisted greedy output against the same run's plain greedy output, sampled
token frequencies against the target's own distribution (chi-square), tokens per target call against the
acceptance rate the paper gives."""

from __future__ import annotations

import warnings

import torch
from lmrbench_probe import case
from transformers import (
    BartConfig,
    BartForConditionalGeneration,
    GenerationConfig,
    GPT2Config,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
    MambaConfig,
    MambaForCausalLM,
)
from transformers.generation.candidate_generator import PromptLookupCandidateGenerator
from transformers.generation.logits_process import LogitsProcessorList, SuppressTokensLogitsProcessor
from transformers.utils import logging

warnings.filterwarnings("ignore")
logging.set_verbosity_error()
torch.set_num_threads(1)

PROMPT = torch.tensor([[3, 7, 1, 9, 4, 11]])


def llama(seed: int, layers: int = 2, vocab: int = 24, hidden: int = 16) -> LlamaForCausalLM:
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=32, num_hidden_layers=layers,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=512,
                      bos_token_id=None, eos_token_id=None, pad_token_id=None, tie_word_embeddings=False)
    model = LlamaForCausalLM(cfg).double().eval()
    with torch.no_grad():  # sharper distributions: distinct argmax margins and non-trivial greedy paths
        model.lm_head.weight.mul_(12.0)
    model.generation_config.eos_token_id = None
    return model


def gpt2(seed: int, layers: int = 2, vocab: int = 24) -> GPT2LMHeadModel:
    torch.manual_seed(seed)
    cfg = GPT2Config(vocab_size=vocab, n_embd=16, n_layer=layers, n_head=2, n_positions=256,
                     bos_token_id=None, eos_token_id=None, pad_token_id=None)
    model = GPT2LMHeadModel(cfg).double().eval()
    with torch.no_grad():
        model.transformer.wte.weight.mul_(3.0)
    model.generation_config.eos_token_id = None
    return model


def noisy_copy(model, seed: int, scale: float):
    """A draft that agrees with the target most of the time: the target's weights plus seeded noise."""
    draft = type(model)(model.config).double().eval()
    draft.load_state_dict(model.state_dict())
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for prm in draft.parameters():
            prm.add_(scale * prm.std().clamp_min(1e-3) * torch.randn(prm.shape, generator=g, dtype=prm.dtype))
    draft.generation_config.eos_token_id = None
    return draft


def unigram(probs: list[float]) -> LlamaForCausalLM:
    """A Llama whose next-token distribution is `probs` whatever the context (every token embeds to e_0, the
    layer's residual branches are zero, the head reads e_0)."""
    vocab, hidden = len(probs), 8
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=8, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=2048,
                      bos_token_id=None, eos_token_id=None, pad_token_id=None, tie_word_embeddings=False)
    model = LlamaForCausalLM(cfg).double().eval()
    with torch.no_grad():
        model.model.embed_tokens.weight.zero_()
        model.model.embed_tokens.weight[:, 0] = 1.0
        model.model.layers[0].self_attn.o_proj.weight.zero_()
        model.model.layers[0].mlp.down_proj.weight.zero_()
        model.model.norm.weight.fill_(1.0)
        model.lm_head.weight.zero_()
        model.lm_head.weight[:, 0] = torch.log(torch.tensor(probs, dtype=torch.float64)) / hidden ** 0.5
    model.generation_config.eos_token_id = None
    return model


def bigram(rows: list[list[float]]) -> LlamaForCausalLM:
    """A Llama whose next-token distribution is `rows[last token]` (one-hot embeddings, zero residual branches,
    the head reads the last token's row)."""
    vocab = len(rows)
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=vocab, intermediate_size=8, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=2048,
                      bos_token_id=None, eos_token_id=None, pad_token_id=None, tie_word_embeddings=False)
    model = LlamaForCausalLM(cfg).double().eval()
    with torch.no_grad():
        model.model.embed_tokens.weight.copy_(torch.eye(vocab, dtype=torch.float64))
        model.model.layers[0].self_attn.o_proj.weight.zero_()
        model.model.layers[0].mlp.down_proj.weight.zero_()
        model.model.norm.weight.fill_(1.0)
        model.lm_head.weight.copy_(torch.log(torch.tensor(rows, dtype=torch.float64)).T / vocab ** 0.5)
    model.generation_config.eos_token_id = None
    return model


def set_assistant(model, n: int, schedule: str = "constant") -> None:
    model.generation_config.num_assistant_tokens = n
    model.generation_config.num_assistant_tokens_schedule = schedule
    model.generation_config.assistant_confidence_threshold = 0.0


def count_calls(model) -> list[int]:
    calls = [0]

    def hook(*_):
        calls[0] += 1

    model.register_forward_hook(hook)
    return calls


def scores_of(out) -> torch.Tensor:
    return torch.stack([s[0].double() for s in out.scores])


# ---------------------------------------------------------------- greedy: identical to the target's greedy output


GREEDY = {
    "llama_n1": dict(arch="llama", n=1, new=12, kw=dict(repetition_penalty=3.0)),
    "llama_n3_other": dict(arch="llama", n=3, new=20, draft="other", kw=dict(no_repeat_ngram_size=2)),
    "llama_n7_heuristic": dict(arch="llama", n=7, new=25, schedule="heuristic", kw=dict(no_repeat_ngram_size=2)),
    "gpt2_n4": dict(arch="gpt2", n=4, new=18, kw=dict(no_repeat_ngram_size=2)),
    "llama_n5_rep_penalty": dict(arch="llama", n=5, new=20, kw=dict(repetition_penalty=3.0)),
    "llama_n4_no_repeat": dict(arch="llama", n=4, new=20, kw=dict(no_repeat_ngram_size=2)),
    # a user-supplied processor list (`logits_processor=`): the draft must be processed like the target's logits
    "llama_n4_user_processor": dict(arch="llama", n=4, new=24, suppress=[10, 15, 7, 19]),
}


@case(params=list(GREEDY), ids=list(GREEDY), compare="none")
def greedy_equivalence(key):
    spec = GREEDY[key]
    build = llama if spec["arch"] == "llama" else gpt2
    target = build(0)
    assistant = build(5, layers=1) if spec.get("draft") == "other" else noisy_copy(target, 5, 0.3)
    set_assistant(assistant, spec["n"], spec.get("schedule", "constant"))
    kw = dict(max_new_tokens=spec["new"], do_sample=False, return_dict_in_generate=True, output_scores=True,
              **spec.get("kw", {}))

    def user():  # a fresh list for each call
        return dict(logits_processor=LogitsProcessorList([SuppressTokensLogitsProcessor(spec["suppress"])])) \
            if "suppress" in spec else {}

    plain = target.generate(PROMPT, **kw, **user())
    calls = count_calls(target)
    assisted = target.generate(PROMPT, assistant_model=assistant, **kw, **user())
    return {"plain": plain.sequences[0], "assisted": assisted.sequences[0],
            "plain_scores": scores_of(plain), "assisted_scores": scores_of(assisted),
            "target_calls": calls[0], "new": spec["new"]}


@case(params=["gpt2", "llama"], ids=["gpt2", "llama"], compare="none")
def greedy_with_masks(arch):
    """A left-padded prompt (explicit attention mask with zeros in front) and, for GPT-2, token type ids: the
    helpers must grow them with the sequence (generate() drops an all-ones mask, so the mask has padding)."""
    if arch == "gpt2":
        target = gpt2(1)
        assistant = noisy_copy(target, 2, 0.3)
        # a type other than the last at an unmasked position (index 2), so growing the types wrongly shows
        extra = dict(token_type_ids=torch.tensor([[0, 0, 0, 1, 1, 1]]))
    else:
        target = llama(0)
        assistant = noisy_copy(target, 5, 0.3)
        extra = {}
    set_assistant(assistant, 3)
    mask = torch.tensor([[0, 0, 1, 1, 1, 1]])
    kw = dict(attention_mask=mask, max_new_tokens=15, do_sample=False, no_repeat_ngram_size=2,
              return_dict_in_generate=True, output_scores=True, **extra)
    plain = target.generate(PROMPT, **kw)
    assisted = target.generate(PROMPT, assistant_model=assistant, **kw)
    return {"plain": plain.sequences[0], "assisted": assisted.sequences[0],
            "plain_scores": scores_of(plain), "assisted_scores": scores_of(assisted)}


@case(compare="none")
def greedy_eos():
    """An end-of-sequence token in the target's greedy path: assisted generation stops where greedy stops."""
    target = llama(0)
    assistant = noisy_copy(target, 6, 0.3)
    set_assistant(assistant, 6)
    kw = dict(max_new_tokens=20, do_sample=False, no_repeat_ngram_size=2)
    free = target.generate(PROMPT, **kw)[0]
    eos = int(free[PROMPT.shape[1] + 9])
    plain = target.generate(PROMPT, eos_token_id=eos, **kw)
    assisted = target.generate(PROMPT, eos_token_id=eos, assistant_model=assistant, **kw)
    return {"plain": plain[0], "assisted": assisted[0], "eos": eos}


@case(params=[2, 4], ids=["lookup2", "lookup4"], compare="none")
def prompt_lookup_greedy(n):
    target = llama(3)
    prompt = torch.tensor([[5, 6, 7, 8, 5, 6, 7, 8, 5, 6]])
    plain = target.generate(prompt, max_new_tokens=16, do_sample=False)
    calls = count_calls(target)
    lookup = target.generate(prompt, max_new_tokens=16, do_sample=False, prompt_lookup_num_tokens=n)
    return {"plain": plain[0], "assisted": lookup[0], "target_calls": calls[0]}


@case(compare="none")
def early_exit_greedy():
    target = llama(4, layers=3)
    plain = target.generate(PROMPT, max_new_tokens=14, do_sample=False)
    lookup = target.generate(PROMPT, max_new_tokens=14, do_sample=False, assistant_early_exit=1)
    return {"plain": plain[0], "assisted": lookup[0]}


# ---------------------------------------------------------------- the number of guesses per step


@case(params=[("constant", 4, 23), ("heuristic", 2, 20), ("heuristic_transient", 2, 20)],
      ids=["constant_4", "heuristic_2", "heuristic_transient_2"],
      outputs={"first": {"compare": "none"}, "second": {"compare": "none"}})
def perfect_assistant(p):
    """The assistant is the target itself: every guess is accepted, so each target call yields n + 1 tokens
    (n the current number of guesses), never more than the length allows."""
    schedule, n, new = p
    target = llama(0)
    assistant = llama(0)
    set_assistant(assistant, n, schedule)
    calls = count_calls(target)
    out = target.generate(PROMPT, max_new_tokens=new, do_sample=False, assistant_model=assistant)
    first = assistant.generation_config.num_assistant_tokens
    calls_first = calls[0]
    out2 = target.generate(PROMPT, max_new_tokens=new, do_sample=False, assistant_model=assistant)
    return {"length": out.shape[1], "target_calls": calls_first, "n_after": first,
            "target_calls_second": calls[0] - calls_first,
            "n_after_second": assistant.generation_config.num_assistant_tokens,
            "first": out[0], "second": out2[0]}


@case(params=["heuristic", "constant"], ids=["heuristic", "constant"], outputs={"n_after": {"compare": "none"}})
def hopeless_assistant(schedule):
    """The assistant always proposes a token the target never picks: every guess is rejected."""
    target = unigram([0.5, 0.3, 0.15, 0.05])
    assistant = unigram([0.05, 0.1, 0.15, 0.7])
    set_assistant(assistant, 5, schedule)
    calls = count_calls(target)
    out = target.generate(torch.tensor([[1, 2]]), max_new_tokens=6, do_sample=False, assistant_model=assistant)
    return {"tokens": out[0], "target_calls": calls[0], "n_after": assistant.generation_config.num_assistant_tokens}


# ---------------------------------------------------------------- sampling: the output follows the target (Algorithm 1)


SAMPLING = {
    "skewed": dict(p=[0.7, 0.1, 0.1, 0.1], q=[0.1, 0.3, 0.3, 0.3], n=3, new=140, seed=11),
    "temperature": dict(p=[0.5, 0.3, 0.15, 0.05], q=[0.1, 0.2, 0.3, 0.4], n=3, new=140, seed=13, t=0.6),
}


@case(params=list(SAMPLING), ids=list(SAMPLING), compare="none")
def speculative_sampling(key):
    spec = SAMPLING[key]
    target, assistant = unigram(spec["p"]), unigram(spec["q"])
    set_assistant(assistant, spec["n"])
    t = spec.get("t", 1.0)
    ids = torch.tensor([[1, 2]])
    with torch.no_grad():
        p = torch.softmax(target(ids).logits[0, -1] / t, -1)
        q = torch.softmax(assistant(ids).logits[0, -1] / t, -1)
    calls = count_calls(target)
    torch.manual_seed(spec["seed"])
    out = target.generate(ids, max_new_tokens=spec["new"], do_sample=True, top_k=0, top_p=1.0, temperature=t,
                          assistant_model=assistant)
    new = out[0, ids.shape[1]:]
    return {"counts": torch.bincount(new, minlength=len(spec["p"])), "n_tokens": new.numel(), "p": p, "q": q,
            "target_calls": calls[0], "gamma": spec["n"], "max_new": spec["new"]}


@case(compare="none")
def ensemble_sampling():
    """Static ensemble verification (`assistant_ensemble_weight` w): guesses are judged against the mixture
    v = w p + (1 - w) q instead of p, so the output follows v."""
    spec = SAMPLING["skewed"]
    target, assistant = unigram(spec["p"]), unigram(spec["q"])
    set_assistant(assistant, 3)
    ids = torch.tensor([[1, 2]])
    with torch.no_grad():
        p = torch.softmax(target(ids).logits[0, -1], -1)
        q = torch.softmax(assistant(ids).logits[0, -1], -1)
    calls = count_calls(target)
    torch.manual_seed(17)
    out = target.generate(ids, max_new_tokens=140, do_sample=True, top_k=0, top_p=1.0, assistant_model=assistant,
                          assistant_ensemble_weight=0.5)
    new = out[0, ids.shape[1]:]
    return {"counts": torch.bincount(new, minlength=len(spec["p"])), "n_tokens": new.numel(), "p": p, "q": q,
            "w": 0.5, "target_calls": calls[0], "gamma": 3, "max_new": 140}


P_ROWS = [[0.05, 0.85, 0.05, 0.05], [0.05, 0.05, 0.85, 0.05], [0.05, 0.05, 0.05, 0.85], [0.4, 0.1, 0.1, 0.4]]
Q_ROWS = [[0.05, 0.9, 0.025, 0.025], [0.025, 0.025, 0.9, 0.05], [0.05, 0.025, 0.025, 0.9], [0.1, 0.1, 0.1, 0.7]]


@case(compare="none")
def markov_sampling():
    """Context-dependent p and q (bigram models): each guess must be judged against the distributions of its
    own position."""
    target, assistant = bigram(P_ROWS), bigram(Q_ROWS)
    set_assistant(assistant, 2)
    ids = torch.tensor([[0, 1]])
    with torch.no_grad():
        p = torch.softmax(target(torch.arange(4)[None, :]).logits[0], -1)
    torch.manual_seed(31)
    out = target.generate(ids, max_new_tokens=240, do_sample=True, top_k=0, top_p=1.0, assistant_model=assistant)
    seq = out[0, ids.shape[1] - 1:]
    transitions = torch.zeros(4, 4, dtype=torch.int64)
    for a, b in zip(seq[:-1].tolist(), seq[1:].tolist(), strict=True):
        transitions[a, b] += 1
    return {"transitions": transitions, "p": p}


@case(compare="none")
def lookup_sampling():
    """Guesses without a draft distribution (prompt lookup) under sampling: the target's own samples decide."""
    target = unigram([0.6, 0.25, 0.1, 0.05])
    prompt = torch.tensor([[0, 0, 0, 0, 1, 0, 0, 0]])
    torch.manual_seed(21)
    out = target.generate(prompt, max_new_tokens=100, do_sample=True, top_k=0, top_p=1.0, prompt_lookup_num_tokens=3)
    with torch.no_grad():
        p = torch.softmax(target(prompt).logits[0, -1], -1)
    new = out[0, prompt.shape[1]:]
    return {"counts": torch.bincount(new, minlength=4), "n_tokens": new.numel(), "p": p}


# ---------------------------------------------------------------- configuration and candidates


@case()
def generation_modes():
    a = llama(0, layers=1)
    rows = {
        "default": GenerationConfig().get_generation_mode(),
        "sample": GenerationConfig(do_sample=True).get_generation_mode(),
        "beams": GenerationConfig(num_beams=3).get_generation_mode(),
        "beam_sample": GenerationConfig(num_beams=3, do_sample=True).get_generation_mode(),
        "assistant": GenerationConfig().get_generation_mode(a),
        "assistant_sample": GenerationConfig(do_sample=True).get_generation_mode(a),
        "lookup": GenerationConfig(prompt_lookup_num_tokens=3).get_generation_mode(),
        "lookup_sample": GenerationConfig(prompt_lookup_num_tokens=3, do_sample=True).get_generation_mode(),
    }
    return {k: str(getattr(v, "value", v)) for k, v in rows.items()}


@case()
def lookup_candidates():
    ids = torch.tensor([[5, 2, 8, 8, 1, 2, 3, 4, 9, 1, 2]])
    gen = PromptLookupCandidateGenerator(num_output_tokens=3, max_matching_ngram_size=2, max_length=40)
    cand, _ = gen.get_candidates(ids)
    short = PromptLookupCandidateGenerator(num_output_tokens=5, max_matching_ngram_size=2, max_length=40)
    cand5, _ = short.get_candidates(ids)
    return {"cand": cand[0], "cand5": cand5[0]}


# ---------------------------------------------------------------- prompt lookup rules, outputs, encoder-decoder


@case(outputs={"eos_cut": {"compare": "none"}})
def lookup_rules():
    """Prompt lookup: a shorter n-gram when the longest has no earlier match; candidates end at an eos token; a
    token the logits processors forbid is never a candidate."""
    fallback = PromptLookupCandidateGenerator(num_output_tokens=3, max_matching_ngram_size=2, max_length=40)
    cand_a, _ = fallback.get_candidates(torch.tensor([[4, 6, 2, 7, 1, 9, 4]]))
    ids = torch.tensor([[5, 2, 8, 3, 6, 1, 5, 2]])
    eos = PromptLookupCandidateGenerator(eos_token_id=torch.tensor([3]), num_output_tokens=3,
                                         max_matching_ngram_size=2, max_length=40)
    cand_b, _ = eos.get_candidates(ids)
    banned = PromptLookupCandidateGenerator(num_output_tokens=3, max_matching_ngram_size=2, max_length=40,
                                            logits_processor=LogitsProcessorList([SuppressTokensLogitsProcessor([6])]),
                                            vocab_size=12)
    cand_c, _ = banned.get_candidates(ids)
    return {"fallback": cand_a[0], "eos_cut": cand_b[0], "banned": cand_c[0]}


@case(compare="none")
def greedy_hidden_states():
    """`output_hidden_states`: one entry per generated token, as in plain greedy decoding (the self-assistant makes
    the first step accept several tokens)."""
    target = llama(0)
    assistant = llama(0)
    set_assistant(assistant, 3)
    kw = dict(max_new_tokens=10, do_sample=False, no_repeat_ngram_size=2, return_dict_in_generate=True,
              output_hidden_states=True)
    plain = target.generate(PROMPT, **kw)
    assisted = target.generate(PROMPT, assistant_model=assistant, **kw)
    out = {"plain": plain.sequences[0], "assisted": assisted.sequences[0]}
    for tag, res in (("plain", plain), ("assisted", assisted)):
        # one entry per generated token, each a tuple over layers: count, and all entries joined along the sequence
        out[f"{tag}_hidden_len"] = len(res.hidden_states)
        out[f"{tag}_hidden"] = torch.cat([torch.stack([h.double() for h in step]) for step in res.hidden_states], dim=2)
    return out


def bart(seed: int):
    torch.manual_seed(seed)
    cfg = BartConfig(vocab_size=24, d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                     decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=64,
                     pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2,
                     forced_eos_token_id=None, forced_bos_token_id=None, attn_implementation="eager")
    model = BartForConditionalGeneration(cfg).double().eval()
    with torch.no_grad():
        model.lm_head.weight.mul_(4.0)
    model.generation_config.eos_token_id = None
    model.generation_config.forced_eos_token_id = None
    model.generation_config.forced_bos_token_id = None
    return model


@case(compare="none")
def encoder_decoder_greedy():
    """An encoder-decoder target and assistant (tiny BART): greedy output and encoder hidden states as plain greedy."""
    target = bart(0)
    assistant = noisy_copy(target, 3, 0.3)
    set_assistant(assistant, 3)
    src = torch.tensor([[3, 7, 5, 9, 4, 11, 6]])
    kw = dict(max_new_tokens=10, do_sample=False, no_repeat_ngram_size=2, return_dict_in_generate=True,
              output_hidden_states=True)
    plain = target.generate(src, **kw)
    assisted = target.generate(src, assistant_model=assistant, **kw)
    out = {"plain": plain.sequences[0], "assisted": assisted.sequences[0]}
    for tag, res in (("plain", plain), ("assisted", assisted)):
        enc = res.encoder_hidden_states
        out[f"{tag}_encoder_hidden_states"] = torch.zeros(0) if enc is None else torch.stack([t.double() for t in enc])
        dec = res.decoder_hidden_states
        out[f"{tag}_decoder_hidden_states_len"] = -1 if dec is None else len(dec)
    return out



@case(compare="none")
def recurrent_greedy():
    """A recurrent (state-space) target and assistant (tiny Mamba): rejected guesses must be undone in a cache
    that keeps recurrent states, not only keys and values; greedy output as plain greedy."""
    torch.manual_seed(0)
    cfg = MambaConfig(vocab_size=24, hidden_size=16, state_size=4, num_hidden_layers=2, expand=2, conv_kernel=3,
                      bos_token_id=None, eos_token_id=None, pad_token_id=None, tie_word_embeddings=True)
    target = MambaForCausalLM(cfg).double().eval()
    with torch.no_grad():
        target.backbone.embeddings.weight.mul_(4.0)
    target.generation_config.eos_token_id = None
    assistant = noisy_copy(target, 5, 0.3)
    set_assistant(assistant, 3)
    kw = dict(max_new_tokens=16, do_sample=False, no_repeat_ngram_size=2)
    plain = target.generate(PROMPT, **kw)
    assisted = target.generate(PROMPT, assistant_model=assistant, **kw)
    return {"plain": plain[0], "assisted": assisted[0]}
