# prefix rows pair each token with its own feature (no shift): row j reads (f_j, t_j)
class DraftProposer:
    def __init__(self, draft: FeatureDraft, state: DecodeState) -> None:
        """draft: the draft model; state: the DecodeState of the step (at least two ids). Raises ValueError if
        state.ids has fewer than two tokens."""
        if len(state.ids) < 2:
            raise ValueError("the state needs at least one processed token before the root")
        self.draft = draft
        n = len(state.ids) - 1
        self.past = n
        self.prefix_features = state.features[:n]
        self.prefix_tokens = torch.tensor(state.ids[:n], dtype=torch.int64)
        self.prefix_positions = torch.arange(0, n)
        predicted = draft(self.prefix_features, self.prefix_tokens, self.prefix_positions, causal_mask(n))
        self.predicted = {-1: predicted[-1]}
        self.root_probs = draft.probs(predicted[-1])
        self.probs = {-1: self.root_probs}
