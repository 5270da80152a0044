# WRONG: padding is excluded from the candidates but still counted in the median
def find_massive_activations(hidden_states, abs_threshold=100.0, ratio_threshold=1000.0, attention_mask=None):
    records = []
    for layer, h in enumerate(hidden_states):
        h = h.detach().to(torch.float64)
        if h.dim() != 3:
            raise ValueError("expected (batch, seq_len, hidden_dim)")
        for b in range(h.shape[0]):
            if attention_mask is None:
                keep = torch.ones(h.shape[1], dtype=torch.bool)
            else:
                keep = attention_mask[b].bool()
            if not keep.any():
                continue
            mag = h[b].abs()
            med = float(torch.quantile(mag.flatten(), 0.5))
            hits = (mag > abs_threshold) & (mag >= ratio_threshold * med) & keep[:, None]
            for t, d in torch.nonzero(hits).tolist():
                value = float(h[b, t, d])
                ratio = abs(value) / med if med > 0 else math.inf
                records.append(MassiveActivation(layer, b, t, d, value, ratio))
    return records
