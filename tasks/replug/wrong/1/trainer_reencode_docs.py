# WRONG: scores the retrieved documents with embeddings from the current encoder instead of the stored index
class LSRTrainer:
    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        q = self.retriever(x)
        _, ids = self.index.search(q, self.cfg.k)
        b, k = ids.shape
        docs = self.corpus.gather(ids)
        d_emb = self.retriever(docs.reshape(b * k, -1)).reshape(b, k, -1)
        scores = (d_emb * q.unsqueeze(1)).sum(-1)
        contexts = torch.cat([docs, x.unsqueeze(1).expand(b, k, x.shape[1])], dim=2).reshape(b * k, -1)
        with torch.no_grad():
            lm_logprobs = continuation_logprob(self.lm, contexts, y.repeat_interleave(k, dim=0)).reshape(b, k)
        return lsr_loss(scores, lm_logprobs, self.cfg.gamma, self.cfg.beta)
