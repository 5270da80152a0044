# Wrong: the logits at a position score the token at that position, not the next one
class PromptCompressor:
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
        logits, _ = self.lm(ids[:, 1:])
        logprobs = torch.log_softmax(logits[0, len(context):], dim=-1)
        return -logprobs.gather(1, ids[0, len(context) + 1:, None])[:, 0]
