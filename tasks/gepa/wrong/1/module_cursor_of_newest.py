# wrong: picks the module from the newest candidate's cursor before selecting the candidate
class GEPA:
    def step(self) -> IterationRecord:
        if not self.pool.programs:
            raise RuntimeError("initialize() must run first")
        j = select_module(self.pool, len(self.pool.programs) - 1)
        k = select_candidate(self.pool.scores, self.rng)
        batch = self.sampler.next_batch()
        examples = [self.feedback_set[i] for i in batch]
        parent = self.pool.programs[k]
        before = self.evaluate(parent, examples)
        prompt = build_reflection_prompt(parent.instructions[j], self.reflective_dataset(before, j))
        instruction = extract_instruction(self.reflector.complete(prompt))
        child = parent.with_instruction(j, instruction)
        after = self.evaluate(child, examples)
        parent_scores = [r.feedback.score for r in before]
        child_scores = [r.feedback.score for r in after]
        accepted = sum(child_scores) > sum(parent_scores)
        index = None
        if accepted:
            pareto = [r.feedback.score for r in self.evaluate(child, self.pareto_set)]
            index = self.pool.add(child, k, pareto, self.budget.used)
        record = IterationRecord(k, j, batch, instruction, parent_scores, child_scores, accepted, index,
                                 self.budget.used)
        self.history.append(record)
        return record
