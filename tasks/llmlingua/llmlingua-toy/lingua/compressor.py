"""LLMLingua's prompt compressor: the budget controller and the iterative token-level prompt compression."""
from __future__ import annotations

import torch

from lingua.config import CompressionConfig
from lingua.lm import TinyCausalLM
from lingua.prompt import Budget, CompressedPrompt, Prompt, TokenizedPrompt, keep_count, keep_top
from lingua.tokenizer import WordTokenizer


class PromptCompressor:
    """Compresses prompts with the small language model `lm` (M_s).

    Args:
        lm: the small language model; every probability is computed with it, in float64.
        tokenizer: the tokenizer of `lm`; every sequence `lm` scores starts with `tokenizer.bos_id`.
        config: the compression rates, the granular control coefficient and the segment size.
    """

    def __init__(self, lm: TinyCausalLM, tokenizer: WordTokenizer, config: CompressionConfig) -> None:
        self.lm = lm
        self.tokenizer = tokenizer
        self.config = config

    def tokenize(self, prompt: Prompt) -> TokenizedPrompt:
        """The prompt's parts as token ids."""
        return TokenizedPrompt(self.tokenizer.encode(prompt.instruction),
                               [self.tokenizer.encode(d) for d in prompt.demonstrations],
                               self.tokenizer.encode(prompt.question))

    @torch.no_grad()
    def token_nll(self, context: list[int], tokens: list[int]) -> torch.Tensor:
        """Negative log-probability of each token of `tokens` under the small model, given `context` before it.

        Args:
            context: token ids that precede `tokens` (may be empty).
            tokens: token ids to score, at least one.

        Returns:
            float64 tensor of shape (len(tokens),): entry i is -log p(tokens[i] | context, tokens[:i]).
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def demonstration_perplexities(self, demonstrations: list[list[int]]) -> torch.Tensor:
        """Perplexity of each demonstration under the small model, each scored on its own.

        Args:
            demonstrations: token ids of each demonstration, each non-empty.

        Returns:
            float64 tensor of shape (len(demonstrations),).
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def control_budget(self, prompt: TokenizedPrompt) -> Budget:
        """The budget controller of Section 3.1 for `prompt` under this compressor's config.

        Args:
            prompt: the tokenized prompt.

        Returns:
            the `Budget`.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def compress_tokens(self, parts: list[list[int]], rates: list[float]) -> list[torch.Tensor]:
        """The iterative token-level prompt compression of Section 3.2 (Algorithm 2) over the parts of x'.

        Args:
            parts: token ids of each part of x', in prompt order, each non-empty.
            rates: the compression rate of each part (same length as `parts`).

        Returns:
            one bool tensor per part, of the part's length: True where the token is kept.

        Raises:
            ValueError: if `parts` and `rates` differ in length.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def compress(self, prompt: Prompt) -> CompressedPrompt:
        """Compress `prompt` coarse to fine: the budget controller, then the token-level compression.

        Args:
            prompt: the prompt to compress.

        Returns:
            the `CompressedPrompt`.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError
