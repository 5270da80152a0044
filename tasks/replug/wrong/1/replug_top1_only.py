# WRONG: ensembles only the single most similar document instead of the top-k (k = cfg.k)
class ReplugLM:
    @torch.no_grad()
    def next_token_logprobs(self, x: torch.Tensor) -> torch.Tensor:
        scores, ids = self.index.search(self.retriever(x), 1)
        return ensemble_next_token_logprobs(self.lm, x, self.corpus.gather(ids), scores)
