# WRONG: mixes whole-sequence probabilities (sum_d lambda_d prod_t p_t) instead of applying Eq. (3) to each token
class ReplugLM:
    @torch.no_grad()
    def continuation_logprob(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        scores, ids = self.index.search(self.retriever(x), self.cfg.k)
        b, k = ids.shape
        docs = self.corpus.gather(ids)
        contexts = torch.cat([docs, x.unsqueeze(1).expand(b, k, x.shape[1])], dim=2).reshape(b * k, -1)
        seq = continuation_logprob(self.lm, contexts, y.repeat_interleave(k, dim=0)).reshape(b, k)
        return torch.logsumexp(seq + torch.log_softmax(scores.to(seq.dtype), dim=-1), dim=1)
