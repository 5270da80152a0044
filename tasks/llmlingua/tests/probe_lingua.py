"""Probe for llmlingua/1: the prompt compressor in lingua/compressor.py. Runs in the sandbox; emits outputs only,
never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_lingua.py add hand-checked values and the method's properties."""
from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import torch

from compress_prompt import run
from lingua.compressor import PromptCompressor
from lingua.config import CompressionConfig
from lingua.data import corpus
from lingua.lm import TinyCausalLM
from lingua.prompt import Budget, TokenizedPrompt
from lingua.tokenizer import WordTokenizer
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "lingua_cases.json").read_text())
NLL, PPL, BUDGET, TOKENS, E2E = (CASES[k] for k in ("nll", "perplexity", "budget", "tokens", "e2e"))
F64 = dict(rtol=1e-11, atol=1e-12)


def compressor(seed: int = 0, model: str = "random", **config) -> PromptCompressor:
    """The toy tokenizer, a seeded small model and `config`. model="uniform": every weight zero (every next-token
    distribution uniform); model="unigram": every weight zero but the output bias, so that p(token | anything)
    = softmax(bias)[token]."""
    tokenizer = WordTokenizer.from_texts(corpus())
    lm = TinyCausalLM(tokenizer.vocab_size, seed=seed)
    if model != "random":
        with torch.no_grad():
            for param in lm.parameters():
                param.zero_()
            if model == "unigram":
                bias = torch.randn(tokenizer.vocab_size, generator=torch.Generator().manual_seed(seed),
                                   dtype=torch.float64)
                lm.head.bias.copy_(2.0 * bias)
    return PromptCompressor(lm, tokenizer, CompressionConfig(**config))


def unigram_bias(seed: int) -> torch.Tensor:
    return compressor(seed, "unigram").lm.head.bias.detach().clone()


def budget_outputs(budget: Budget) -> dict:
    out = {f.name: getattr(budget, f.name) for f in fields(budget)}
    out["kept"] = torch.tensor(list(out["kept"]), dtype=torch.long)
    return out


# ---------------------------------------------------------------- token_nll


@case(params=range(len(NLL)), **F64)
def nll_matches_reference(i):
    c = NLL[i]
    return {"nll": compressor(c["seed"]).token_nll(list(c["context"]), list(c["tokens"]))}


@case(**F64)
def nll_chain_rule():
    c = NLL[4]
    comp = compressor(1)
    context, tokens = c["context"], c["tokens"]
    return {"whole": comp.token_nll(list(context), list(tokens)),
            "first": comp.token_nll(list(context), tokens[:8]),
            "rest": comp.token_nll(context + tokens[:8], tokens[8:])}


@case(**F64)
def nll_uniform_model():
    comp = compressor(0, "uniform")
    return {"nll": comp.token_nll([5, 9, 2], [7, 3, 3, 40]), "vocab_size": comp.tokenizer.vocab_size}


@case(**F64)
def nll_unigram_model():
    comp = compressor(3, "unigram")
    tokens = [4, 17, 2, 60, 17]
    return {"nll": comp.token_nll([8, 8], tokens), "empty_context": comp.token_nll([], tokens),
            "bias": unigram_bias(3), "tokens": torch.tensor(tokens)}


# ---------------------------------------------------------------- demonstration_perplexities


@case(params=range(len(PPL)), **F64)
def perplexities_match_reference(i):
    c = PPL[i]
    comp = compressor(c["seed"])
    demos = [list(d) for d in c["demonstrations"]]
    return {"perplexities": comp.demonstration_perplexities(demos),
            "alone": torch.stack([comp.token_nll([], d).mean().exp() for d in demos])}


@case(**F64)
def perplexities_hand_values():
    uniform = compressor(0, "uniform")
    unigram = compressor(2, "unigram")
    demos = [[3, 4, 5], [9], [10, 10, 11, 12]]
    return {"uniform": uniform.demonstration_perplexities(demos), "vocab_size": uniform.tokenizer.vocab_size,
            "unigram": unigram.demonstration_perplexities(demos), "bias": unigram_bias(2)}


# ---------------------------------------------------------------- control_budget


@case(params=range(len(BUDGET)), **F64)
def budget_matches_reference(i):
    c = BUDGET[i]
    p = c["prompt"]
    prompt = TokenizedPrompt(list(p["instruction"]), [list(d) for d in p["demonstrations"]], list(p["question"]))
    budget = compressor(c["seed"], **c["config"]).control_budget(prompt)
    lengths = {"instruction": len(prompt.instruction), "question": len(prompt.question),
               "demonstrations": torch.tensor([len(d) for d in prompt.demonstrations])}
    return {**budget_outputs(budget), "config": c["config"], "lengths": lengths}


@case(**F64)
def budget_hand_values():
    # a context-free model: a demonstration that repeats one token has the perplexity of that token
    comp = compressor(5, "unigram", rate=0.5, instruction_rate=0.8, question_rate=0.9, granularity=2.0)
    bias = unigram_bias(5)
    order = torch.argsort(bias).tolist()  # ascending bias: the most surprising token first
    demos = [[order[3 - i]] * n for i, n in enumerate((10, 20, 30, 40))]
    prompt = TokenizedPrompt([order[10]] * 10, demos, [order[11]] * 10)
    return {**budget_outputs(comp.control_budget(prompt)), "bias": bias, "tokens": torch.tensor(order[:4])}


# ---------------------------------------------------------------- compress_tokens


@case(params=range(len(TOKENS)), **F64)
def tokens_match_reference(i):
    c = TOKENS[i]
    comp = compressor(c["seed"], segment_size=c["segment_size"])
    return {"masks": comp.compress_tokens([list(p) for p in c["parts"]], list(c["rates"])),
            "rates": c["rates"], "segment_size": c["segment_size"]}


@case(params=[0, 6], **F64)
def tokens_unigram_model(i):
    # with a context-free model the compressed context cannot matter: each segment keeps its most surprising tokens
    c = TOKENS[i]
    comp = compressor(4, "unigram", segment_size=c["segment_size"])
    return {"masks": comp.compress_tokens([list(p) for p in c["parts"]], list(c["rates"])), "bias": unigram_bias(4),
            "parts": [torch.tensor(p) for p in c["parts"]], "rates": c["rates"], "segment_size": c["segment_size"]}


@case
def tokens_reject_mismatched_rates():
    return {"result": compressor(0).compress_tokens([[3, 4, 5], [6, 7]], [0.5])}


# ---------------------------------------------------------------- the whole compressor, through the repository


@case(params=range(len(E2E)), **F64)
def compress_end_to_end(i):
    c = E2E[i]
    result = run(CompressionConfig(**c["config"]), c["demonstrations"], c["seed"])
    return {"ids": torch.tensor(result.ids, dtype=torch.long), "text": result.text,
            "parts": [torch.tensor(p, dtype=torch.long) for p in result.parts], "masks": list(result.masks),
            "original_length": result.original_length, "budget": budget_outputs(result.budget),
            "segment_size": CompressionConfig(**c["config"]).segment_size}
