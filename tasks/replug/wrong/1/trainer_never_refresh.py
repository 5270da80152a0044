# WRONG: never re-encodes the corpus (no asynchronous index update, Section 4.4)
class LSRTrainer:
    def step(self, x: torch.Tensor, y: torch.Tensor) -> float:
        self.optimizer.zero_grad()
        loss = self.loss(x, y)
        loss.backward()
        self.optimizer.step()
        self.steps += 1
        return float(loss.detach())
