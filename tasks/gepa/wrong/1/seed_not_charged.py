# wrong: the base system's D_pareto evaluation (line 3 of Algorithm 1) is not counted against the budget
class GEPA:
    def initialize(self) -> None:
        if self.pool.programs:
            raise RuntimeError("the pool is already initialised")
        scores = [r.feedback.score for r in rollouts(self.seed, self.pareto_set, self.lm)]
        self.pool.add(self.seed, None, scores, self.budget.used)
