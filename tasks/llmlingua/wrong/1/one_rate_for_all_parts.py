# Wrong: the token-level stage compresses every part at the target rate tau
class PromptCompressor:
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
        rates = [self.config.rate] * len(parts)
        masks = self.compress_tokens(parts, rates)
        ids = [t for part, mask in zip(parts, masks) for t, k in zip(part, mask.tolist()) if k]
        return CompressedPrompt(ids=ids, text=self.tokenizer.decode(ids), budget=budget, parts=parts,
                                masks=masks, original_length=tokenized.length)
