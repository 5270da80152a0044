# WRONG: contrasts raw logits (final - premature) instead of log-probabilities (no log-softmax).
def dola_step(layer_logits, candidate_layers, mature_layer, alpha=0.1):
    log_qn = torch.log_softmax(layer_logits[mature_layer], dim=-1)
    log_qj = torch.stack([torch.log_softmax(layer_logits[j], dim=-1) for j in candidate_layers])
    qn, qj = log_qn.exp(), log_qj.exp()
    m = 0.5 * (qn + qj)
    kl_n = (torch.xlogy(qn, qn) - torch.xlogy(qn, m)).sum(dim=-1)
    kl_j = (torch.xlogy(qj, qj) - torch.xlogy(qj, m)).sum(dim=-1)
    jsd = (0.5 * (kl_n + kl_j)).transpose(0, 1)
    best = jsd.argmax(dim=-1)
    layers = torch.tensor(list(candidate_layers), dtype=torch.long)
    raw = torch.stack([layer_logits[j] for j in candidate_layers])
    prem = raw[best, torch.arange(best.shape[0])]
    plausible = qn >= alpha * qn.max(dim=-1, keepdim=True).values
    scores = (layer_logits[mature_layer] - prem).masked_fill(~plausible, float("-inf"))
    return DoLaStep(scores=scores, plausible=plausible, premature_layer=layers[best], jsd=jsd)
