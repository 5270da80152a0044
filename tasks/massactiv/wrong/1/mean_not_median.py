# WRONG: compares with the mean magnitude instead of the median
def find_massive_activations(hidden_states, abs_threshold=100.0, ratio_threshold=1000.0, attention_mask=None):
    records = []
    for layer, h in enumerate(hidden_states):
        h = h.detach().to(torch.float64)
        if h.dim() != 3:
            raise ValueError("expected (batch, seq_len, hidden_dim)")
        for b in range(h.shape[0]):
            if attention_mask is None:
                positions = torch.arange(h.shape[1])
            else:
                positions = torch.nonzero(attention_mask[b].bool()).flatten()
            if positions.numel() == 0:
                continue
            mag = h[b, positions].abs()
            med = float(mag.mean())
            hits = (mag > abs_threshold) & (mag >= ratio_threshold * med)
            for i, d in torch.nonzero(hits).tolist():
                t = int(positions[i])
                value = float(h[b, t, d])
                ratio = abs(value) / med if med > 0 else math.inf
                records.append(MassiveActivation(layer, b, t, d, value, ratio))
    return records
