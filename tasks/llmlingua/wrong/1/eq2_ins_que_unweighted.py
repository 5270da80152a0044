# Wrong: Eq. (2) subtracts the whole instruction and question lengths, not their budgets
class PromptCompressor:
    def control_budget(self, prompt: TokenizedPrompt) -> Budget:
        """The budget controller of Section 3.1 for `prompt` under this compressor's config.

        Args:
            prompt: the tokenized prompt.

        Returns:
            the `Budget`.
        """
        cfg = self.config
        len_ins, len_que = len(prompt.instruction), len(prompt.question)
        lengths = [len(d) for d in prompt.demonstrations]
        len_dems = sum(lengths)
        total = len_ins + len_dems + len_que
        tau_dems = (cfg.rate * total - len_ins - len_que) / len_dems
        perplexities = self.demonstration_perplexities(prompt.demonstrations)
        order = torch.sort(perplexities, descending=True, stable=True).indices.tolist()
        budget = cfg.granularity * tau_dems * len_dems
        kept: list[int] = []
        len_kept = 0
        for index in order:
            if len_kept + lengths[index] > budget:
                break
            kept.append(index)
            len_kept += lengths[index]
        delta = (budget - len_kept) / (len_ins + len_que)
        ins_rate, que_rate = cfg.instruction_rate + delta, cfg.question_rate + delta
        return Budget(perplexities=perplexities, demonstration_rate=tau_dems, kept=tuple(sorted(kept)),
                      delta=delta, instruction_rate=ins_rate, question_rate=que_rate,
                      kept_demonstration_rate=tau_dems * len_dems / len_kept if kept else 0.0)
