# WRONG: refreshes the index at the start of every step whose count is a multiple of T, before the update of
# that step: with a 1-based count the index is rebuilt after steps T - 1, 2T - 1, ...
class LSRTrainer:
    def step(self, x: torch.Tensor, y: torch.Tensor) -> float:
        self.steps += 1
        if self.steps % self.cfg.index_refresh == 0:
            self.index.refresh(self.retriever, self.corpus)
        self.optimizer.zero_grad()
        loss = self.loss(x, y)
        loss.backward()
        self.optimizer.step()
        return float(loss.detach())
