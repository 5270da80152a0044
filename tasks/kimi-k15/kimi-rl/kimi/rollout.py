"""Rollouts: k responses per problem from the reference policy, verified, with their log-probabilities."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from kimi.data import ProblemSet, response_mask
from kimi.policy import ToyPolicy
from kimi.verifier import verify


@dataclass(frozen=True)
class RolloutBatch:
    """N problems with k sampled responses each, padded to T tokens.

    problem_ids:  (N,) long, index of each problem in the problem set (a problem may appear more than once).
    prompts:      (N, P) long, the problems' prompt tokens.
    responses:    (N, k, T) long, the responses (y_j, z_j) (reasoning and answer), PAD past the end.
    lengths:      (N, k) long, number of tokens of each response, EOS included.
    ref_logprobs: (N, k, T) float, log pi_ref(o_t | x, o_<t) of each token under the policy that sampled the
                  responses (the reference policy of the iteration); 0 past the end.
    correct:      (N, k) bool, the verifier's verdict r(x, y_j, y*) = 1.
    """

    problem_ids: torch.Tensor
    prompts: torch.Tensor
    responses: torch.Tensor
    lengths: torch.Tensor
    ref_logprobs: torch.Tensor
    correct: torch.Tensor

    @property
    def num_problems(self) -> int:
        """N."""
        return int(self.responses.shape[0])

    @property
    def samples_per_problem(self) -> int:
        """k."""
        return int(self.responses.shape[1])

    def mask(self) -> torch.Tensor:
        """(N, k, T) bool: True at the tokens of each response."""
        return response_mask(self.lengths, self.responses.shape[-1])


def collect(
    policy: ToyPolicy, problems: ProblemSet, ids: torch.Tensor, k: int, max_len: int, generator: torch.Generator
) -> RolloutBatch:
    """Sample k responses from `policy` for each problem in `ids`, verify them and record their log-probs."""
    prompts = problems.prompts[ids]
    responses, lengths = policy.sample(prompts, k, max_len, generator)
    with torch.no_grad():
        ref = policy.token_logprobs(prompts.unsqueeze(1).expand(-1, k, -1), responses, lengths)
    correct = verify(responses, lengths, problems.answers[ids])
    return RolloutBatch(ids, prompts, responses, lengths, ref, correct)
