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
        ids = torch.tensor([[self.tokenizer.bos_id, *context, *tokens]], dtype=torch.long)
        logits, _ = self.lm(ids[:, :-1])
        logprobs = torch.log_softmax(logits[0, len(context):], dim=-1)
        return -logprobs.gather(1, ids[0, len(context) + 1:, None])[:, 0]

    def demonstration_perplexities(self, demonstrations: list[list[int]]) -> torch.Tensor:
        """Perplexity of each demonstration under the small model, each scored on its own.

        Args:
            demonstrations: token ids of each demonstration, each non-empty.

        Returns:
            float64 tensor of shape (len(demonstrations),).
        """
        return torch.stack([self.token_nll([], demo).mean().exp() for demo in demonstrations])

    def control_budget(self, prompt: TokenizedPrompt) -> Budget:
        """The budget controller of Section 3.1 for `prompt` under this compressor's config.

        Args:
            prompt: the tokenized prompt.

        Returns:
            the `Budget`.
        """
        cfg = self.config
        len_ins, len_que = len(prompt.instruction), len(prompt.question)
        lengths = [len(d) for d in prompt.demonstrations]
        len_dems = sum(lengths)
        total = len_ins + len_dems + len_que
        tau_dems = (cfg.rate * total - cfg.instruction_rate * len_ins - cfg.question_rate * len_que) / len_dems
        perplexities = self.demonstration_perplexities(prompt.demonstrations)
        order = torch.sort(perplexities, descending=True, stable=True).indices.tolist()
        budget = cfg.granularity * tau_dems * len_dems
        kept: list[int] = []
        len_kept = 0
        for index in order:
            if len_kept + lengths[index] > budget:
                break
            kept.append(index)
            len_kept += lengths[index]
        delta = (budget - len_kept) / (len_ins + len_que)
        ins_rate, que_rate = cfg.instruction_rate + delta, cfg.question_rate + delta
        return Budget(perplexities=perplexities, demonstration_rate=tau_dems, kept=tuple(sorted(kept)),
                      delta=delta, instruction_rate=ins_rate, question_rate=que_rate,
                      kept_demonstration_rate=tau_dems * len_dems / len_kept if kept else 0.0)

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
        if len(parts) != len(rates):
            raise ValueError(f"{len(parts)} parts but {len(rates)} rates")
        size = self.config.segment_size
        compressed: list[int] = []
        masks = []
        for part, rate in zip(parts, rates):
            pieces = []
            for start in range(0, len(part), size):
                segment = part[start:start + size]
                nll = self.token_nll(compressed, segment)
                keep = keep_top(nll, keep_count(len(segment), rate))
                compressed.extend(t for t, k in zip(segment, keep.tolist()) if k)
                pieces.append(keep)
            masks.append(torch.cat(pieces))
        return masks

    def compress(self, prompt: Prompt) -> CompressedPrompt:
        """Compress `prompt` coarse to fine: the budget controller, then the token-level compression.

        Args:
            prompt: the prompt to compress.

        Returns:
            the `CompressedPrompt`.
        """
        tokenized = self.tokenize(prompt)
        budget = self.control_budget(tokenized)
        dems = [tokenized.demonstrations[i] for i in budget.kept]
        parts = [tokenized.instruction, *dems, tokenized.question]
        rates = [budget.instruction_rate, *[budget.kept_demonstration_rate] * len(dems), budget.question_rate]
        masks = self.compress_tokens(parts, rates)
        ids = [t for part, mask in zip(parts, masks) for t, k in zip(part, mask.tolist()) if k]
        return CompressedPrompt(ids=ids, text=self.tokenizer.decode(ids), budget=budget, parts=parts,
                                masks=masks, original_length=tokenized.length)
