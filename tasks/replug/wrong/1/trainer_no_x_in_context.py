# WRONG: the LM likelihood of y is computed given the document alone (d instead of d o x)
class LSRTrainer:
    def loss(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        scores, ids = self.index.search(self.retriever(x), self.cfg.k)
        b, k = ids.shape
        docs = self.corpus.gather(ids).reshape(b * k, -1)
        with torch.no_grad():
            lm_logprobs = continuation_logprob(self.lm, docs, y.repeat_interleave(k, dim=0)).reshape(b, k)
        return lsr_loss(scores, lm_logprobs, self.cfg.gamma, self.cfg.beta)
