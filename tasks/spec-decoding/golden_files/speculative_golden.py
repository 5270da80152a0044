"""Speculative sampling (Section 3 of the paper): draft, verify in one target pass, correct, and its analysis."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from specdec.config import SpecConfig
from specdec.model import TinyLM
from specdec.results import GenerationResult, StepResult
from specdec.sampling import UniformStream, probs_from_logits, sample_index


def verify(p: torch.Tensor, q: torch.Tensor, drafted: Sequence[int], r: Sequence[float], u: float) -> tuple[int, int]:
    """Check the drafted tokens against the target model and pick the token the target side emits.

    Args:
        p: (gamma + 1, vocab) the target model's distributions: row i for the token after the prefix and the
            first i drafted tokens.
        q: (gamma, vocab) the draft model's distributions from which the drafted tokens were sampled.
        drafted: the gamma drafted token ids.
        r: gamma uniform numbers in [0, 1), one per drafted token, for the acceptance tests.
        u: one uniform number in [0, 1) for sampling the emitted token (with `sample_index`).

    Returns:
        (n, token): the number of accepted drafted tokens, and the token emitted after them.
    """
    gamma = len(drafted)
    n = 0
    for i, x in enumerate(drafted):
        if r[i] > float(p[i, x] / q[i, x]):
            break
        n += 1
    if n < gamma:
        return n, sample_index(torch.clamp(p[n] - q[n], min=0.0), u)
    return n, sample_index(p[gamma], u)


def speculative_step(target: TinyLM, draft: TinyLM, prefix: Sequence[int], cfg: SpecConfig,
                     stream: UniformStream) -> StepResult:
    """One step of speculative sampling after the token ids `prefix`.

    Random numbers come from `stream`, 2 * gamma + 1 per step, in this order: one for each drafted token as it is
    sampled (with `sample_index`), then the gamma numbers of the acceptance tests, then the one for the emitted
    token. The target model runs once per step.

    Returns:
        The `StepResult`.
    """
    drafted: list[int] = []
    q_rows = []
    for _ in range(cfg.gamma):
        q_i = probs_from_logits(draft.logits(list(prefix) + drafted)[-1], cfg.temperature)
        q_rows.append(q_i)
        drafted.append(sample_index(q_i, stream.next()))
    logits = target.logits(list(prefix) + drafted)
    p = probs_from_logits(logits[len(prefix) - 1 :], cfg.temperature)
    r = [stream.next() for _ in range(cfg.gamma)]
    n, token = verify(p, torch.stack(q_rows), drafted, r, stream.next())
    return StepResult(drafted, n, drafted[:n] + [token])


def speculative_generate(target: TinyLM, draft: TinyLM, prompt: Sequence[int], cfg: SpecConfig,
                         stream: UniformStream) -> GenerationResult:
    """Generate cfg.max_new_tokens tokens after `prompt` by speculative steps (the last step's surplus tokens are
    dropped).

    Returns:
        The `GenerationResult`, with the forward passes each model made during the generation.
    """
    t0, d0 = target.calls, draft.calls
    tokens: list[int] = []
    steps = []
    while len(tokens) < cfg.max_new_tokens:
        step = speculative_step(target, draft, list(prompt) + tokens, cfg, stream)
        steps.append(step)
        tokens.extend(step.tokens)
    return GenerationResult(tokens[: cfg.max_new_tokens], steps, target.calls - t0, draft.calls - d0)


def acceptance_rate(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """The probability that a token drafted from q is accepted by p (beta of Section 3.3).

    Args:
        p, q: (..., vocab) distributions.

    Returns:
        (...) tensor of the same dtype.
    """
    return torch.minimum(p, q).sum(dim=-1)


def expected_tokens(alpha: float, gamma: int) -> float:
    """The expected number of tokens one step emits when each drafted token is accepted with probability alpha,
    independently (Section 3.4). alpha in [0, 1]."""
    if alpha >= 1.0:
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)


def walltime_improvement(alpha: float, gamma: int, c: float) -> float:
    """The expected improvement factor in wall time over standard decoding (Section 3.5), for acceptance rate
    alpha, gamma drafted tokens and cost coefficient c (the time of a draft run over the time of a target run)."""
    return expected_tokens(alpha, gamma) / (gamma * c + 1.0)
