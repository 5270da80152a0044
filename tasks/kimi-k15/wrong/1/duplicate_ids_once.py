# wrong: indexed += drops the second of two rows of the same problem in one update
class PrioritizedSampler:
    def __init__(self, num_problems):
        if num_problems < 1:
            raise ValueError("need at least one problem")
        self.num_problems = num_problems
        self.attempts = torch.zeros(num_problems, dtype=torch.float64)
        self.successes = torch.zeros(num_problems, dtype=torch.float64)

    def update(self, problem_ids, correct):
        if problem_ids.dim() != 1 or correct.dim() != 2 or correct.shape[0] != problem_ids.shape[0]:
            raise ValueError("problem_ids must be (N,) and correct (N, k)")
        if problem_ids.numel() and (int(problem_ids.min()) < 0 or int(problem_ids.max()) >= self.num_problems):
            raise ValueError("problem id out of range")
        ids = problem_ids.long()
        self.attempts[ids] += float(correct.shape[1])
        self.successes[ids] += correct.to(torch.float64).sum(dim=1)

    def success_rates(self):
        return torch.where(self.attempts > 0, self.successes / self.attempts.clamp(min=1.0), 0.0)

    def probabilities(self, pool=None):
        weights = 1.0 - self.success_rates()
        if pool is not None:
            if pool.numel() == 0 or int(pool.min()) < 0 or int(pool.max()) >= self.num_problems:
                raise ValueError("bad pool")
            keep = torch.zeros(self.num_problems, dtype=torch.bool)
            keep[pool.long()] = True
            weights = weights.masked_fill(~keep, 0.0)
        if weights.sum() <= 0:
            raise ValueError("nothing to draw")
        return weights / weights.sum()

    def sample(self, n, generator, pool=None):
        return torch.multinomial(self.probabilities(pool), n, replacement=True, generator=generator)

    def state_dict(self):
        return {"attempts": self.attempts.clone(), "successes": self.successes.clone()}

    def load_state_dict(self, state):
        if state["attempts"].shape != (self.num_problems,):
            raise ValueError("wrong size")
        self.attempts = state["attempts"].clone()
        self.successes = state["successes"].clone()
