# WRONG: retrieves again for every token with x o y_<t as the query instead of once for x
class ReplugLM:
    @torch.no_grad()
    def continuation_logprob(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        per_token = []
        for t in range(y.shape[1]):
            prefix = torch.cat([x, y[:, :t]], dim=1)
            scores, ids = self.index.search(self.retriever(prefix), self.cfg.k)
            logp = ensemble_next_token_logprobs(self.lm, prefix, self.corpus.gather(ids), scores)
            per_token.append(logp.gather(-1, y[:, t:t + 1]).squeeze(-1))
        return torch.stack(per_token, dim=1).sum(dim=1)
