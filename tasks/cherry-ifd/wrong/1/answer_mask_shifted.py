# Wrong: the answer mask is not shifted with the targets (scores the last instruction token, drops the last answer token)
@torch.no_grad()
def answer_scores(model: TinyLM, samples: list[Sample]) -> tuple[torch.Tensor, torch.Tensor]:
    """The Conditioned Answer Score and the Direct Answer Score of every sample under `model`.

    Args:
        model: the language model; every sequence it reads starts with BOS_ID.
        samples: N samples.

    Returns:
        conditioned: float64 (N,), s_theta(A|Q);
        direct: float64 (N,), s_theta(A).
    """
    def mean_answer_nll(prefixes: list[list[int]]) -> torch.Tensor:
        ids, mask = pad([[BOS_ID, *p, *s.answer] for p, s in zip(prefixes, samples)])
        logits, _ = model(ids)
        nll = torch.nn.functional.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none")
        answer = torch.zeros_like(mask[:, 1:])
        for row, (p, s) in enumerate(zip(prefixes, samples)):
            answer[row, max(len(p) - 1, 0):len(p) + len(s.answer) - 1] = True
        weights = answer.to(nll.dtype)
        return (nll * weights).sum(dim=1) / weights.sum(dim=1)

    return mean_answer_nll([s.instruction for s in samples]), mean_answer_nll([[] for _ in samples])
