# WRONG: the inference weights use the training temperature gamma (softmax of s / gamma instead of Eq. (2))
class ReplugLM:
    @torch.no_grad()
    def next_token_logprobs(self, x: torch.Tensor) -> torch.Tensor:
        scores, ids = self.index.search(self.retriever(x), self.cfg.k)
        return ensemble_next_token_logprobs(self.lm, x, self.corpus.gather(ids), scores / self.cfg.gamma)
