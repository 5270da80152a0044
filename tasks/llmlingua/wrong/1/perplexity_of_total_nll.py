# Wrong: a demonstration's score is exp of its total (not mean) negative log-likelihood
class PromptCompressor:
    def demonstration_perplexities(self, demonstrations: list[list[int]]) -> torch.Tensor:
        """Perplexity of each demonstration under the small model, each scored on its own.

        Args:
            demonstrations: token ids of each demonstration, each non-empty.

        Returns:
            float64 tensor of shape (len(demonstrations),).
        """
        return torch.stack([self.token_nll([], demo).sum().exp() for demo in demonstrations])
