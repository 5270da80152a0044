# WRONG: conditions token t on y_<=t (off by one: the token itself is in the context)
class ReplugLM:
    @torch.no_grad()
    def continuation_logprob(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        scores, ids = self.index.search(self.retriever(x), self.cfg.k)
        docs = self.corpus.gather(ids)
        per_token = []
        for t in range(y.shape[1]):
            logp = ensemble_next_token_logprobs(self.lm, torch.cat([x, y[:, :t + 1]], dim=1), docs, scores)
            per_token.append(logp.gather(-1, y[:, t:t + 1]).squeeze(-1))
        return torch.stack(per_token, dim=1).sum(dim=1)
