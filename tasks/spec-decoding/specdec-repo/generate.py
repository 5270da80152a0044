"""Standard sampling vs speculative sampling with the tiny target/draft pair.

    python generate.py [--gamma 4] [--temperature 1.0] [--tokens 40]
"""

from __future__ import annotations

import argparse

from specdec.config import SpecConfig
from specdec.model import make_pair
from specdec.sampling import UniformStream, probs_from_logits, sample_index
from specdec.speculative import acceptance_rate, speculative_generate, walltime_improvement


def standard_sampling(model, prompt: list[int], cfg: SpecConfig, stream: UniformStream) -> list[int]:
    tokens: list[int] = []
    for _ in range(cfg.max_new_tokens):
        p = probs_from_logits(model.logits(prompt + tokens)[-1], cfg.temperature)
        tokens.append(sample_index(p, stream.next()))
    return tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gamma", type=int, default=4)
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--tokens", type=int, default=40)
    args = parser.parse_args()
    cfg = SpecConfig(gamma=args.gamma, temperature=args.temperature, max_new_tokens=args.tokens)
    target, draft = make_pair()
    prompt = [1, 2, 3]
    base = standard_sampling(target, prompt, cfg, UniformStream(0))
    result = speculative_generate(target, draft, prompt, cfg, UniformStream(0))
    accepted = sum(s.num_accepted for s in result.steps) / (cfg.gamma * len(result.steps))
    ids = prompt + result.tokens
    p = probs_from_logits(target.logits(ids), cfg.temperature)
    q = probs_from_logits(draft.logits(ids), cfg.temperature)
    alpha = float(acceptance_rate(p, q).mean())
    print(f"standard    : {base}")
    print(f"speculative : {result.tokens}")
    print(f"steps {len(result.steps)}, target calls {result.target_calls} (standard: {cfg.max_new_tokens}), "
          f"draft calls {result.draft_calls}, accepted fraction {accepted:.3f}")
    print(f"alpha along the text {alpha:.3f}; predicted wall-time factor at c = 0.1: "
          f"{walltime_improvement(alpha, cfg.gamma, 0.1):.2f}")


if __name__ == "__main__":
    main()
