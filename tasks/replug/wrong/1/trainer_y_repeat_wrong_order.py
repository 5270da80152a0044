# WRONG: pairs the continuations with the wrong inputs (y tiled instead of repeated per document)
class LSRTrainer:
    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        scores, ids = self.index.search(self.retriever(x), self.cfg.k)
        b, k = ids.shape
        docs = self.corpus.gather(ids)
        contexts = torch.cat([docs, x.unsqueeze(1).expand(b, k, x.shape[1])], dim=2).reshape(b * k, -1)
        with torch.no_grad():
            lm_logprobs = continuation_logprob(self.lm, contexts, y.repeat(k, 1)).reshape(b, k)
        return lsr_loss(scores, lm_logprobs, self.cfg.gamma, self.cfg.beta)
