# wrong: stops when the remaining budget cannot pay a whole minibatch iteration (never overruns B)
class GEPA:
    def run(self) -> Program:
        self.initialize()
        while self.budget.used + 2 * self.config.minibatch_size <= self.budget.total:
            self.step()
        return self.pool.programs[self.pool.best_index()]
