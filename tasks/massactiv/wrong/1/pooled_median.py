# WRONG: one median per layer pooled over the whole batch instead of one per sequence
def find_massive_activations(hidden_states, abs_threshold=100.0, ratio_threshold=1000.0, attention_mask=None):
    records = []
    for layer, h in enumerate(hidden_states):
        h = h.detach().to(torch.float64)
        if h.dim() != 3:
            raise ValueError("expected (batch, seq_len, hidden_dim)")
        valid = torch.ones(h.shape[:2], dtype=torch.bool) if attention_mask is None else attention_mask.bool()
        if not valid.any():
            continue
        mag = h.abs()
        med = float(torch.quantile(mag[valid].flatten(), 0.5))
        hits = (mag > abs_threshold) & (mag >= ratio_threshold * med) & valid[..., None]
        for b, t, d in torch.nonzero(hits).tolist():
            value = float(h[b, t, d])
            ratio = abs(value) / med if med > 0 else math.inf
            records.append(MassiveActivation(layer, b, t, d, value, ratio))
    return records
