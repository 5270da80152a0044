"""Compare Soft Thinking with discrete greedy thinking on a few questions, with a tiny random model."""
from __future__ import annotations

import argparse

import torch

from softthink.config import ModelConfig, SoftThinkingConfig
from softthink.decoding import generate_discrete
from softthink.model import TinyLM
from softthink.soft_thinking import soft_thinking_generate
from softthink.tokenizer import Tokenizer
from softthink.utils import entropy

QUESTIONS = ("12+7=?", "3*4=?", "99-1=?")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--temperature", type=float, default=0.6)
    ap.add_argument("--top-k", type=int, default=15)
    ap.add_argument("--top-p", type=float, default=0.95)
    ap.add_argument("--no-cold-stop", action="store_true")
    args = ap.parse_args()
    tok = Tokenizer()
    model = TinyLM.from_seed(ModelConfig(vocab_size=tok.vocab_size, seed=args.seed))
    cfg = SoftThinkingConfig(temperature=args.temperature, top_k=args.top_k, top_p=args.top_p,
                             cold_stop=not args.no_cold_stop)
    for q in QUESTIONS:
        prompt = tok.prompt(q)
        think, answer = generate_discrete(model, prompt, tok.end_think_id, tok.eos_id, cfg.max_think_tokens,
                                          cfg.max_answer_tokens)
        out = soft_thinking_generate(model, prompt, cfg, tok.end_think_id, tok.eos_id)
        ent = entropy(out.concept_tokens)
        print(f"{q}  discrete: {len(think)} thinking tokens, answer {tok.decode(answer)!r}")
        print(f"{' ' * len(q)}  soft:     {len(out.concept_tokens)} concept tokens ({out.stop_reason}), "
              f"mean entropy {float(ent.mean()) if len(ent) else 0.0:.3f}, answer {tok.decode(out.answer_ids)!r}")
        top = [tok.itos[int(i)] for i in out.concept_tokens.argmax(dim=-1)] if len(ent) else []
        print(f"{' ' * len(q)}  most probable token of each concept: {''.join(top)!r}")


if __name__ == "__main__":
    main()
