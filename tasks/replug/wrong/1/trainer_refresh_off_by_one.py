# WRONG: checks the refresh condition before counting the step: the index is rebuilt after steps 1, T + 1, ...
class LSRTrainer:
    def step(self, x: torch.Tensor, y: torch.Tensor) -> float:
        self.optimizer.zero_grad()
        loss = self.loss(x, y)
        loss.backward()
        self.optimizer.step()
        if self.steps % self.cfg.index_refresh == 0:
            self.index.refresh(self.retriever, self.corpus)
        self.steps += 1
        return float(loss.detach())
