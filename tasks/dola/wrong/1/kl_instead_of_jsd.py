# WRONG: selects the premature layer by KL(q_N || q_j) instead of the Jensen-Shannon divergence.
def dola_step(layer_logits, candidate_layers, mature_layer, alpha=0.1):
    log_qn = torch.log_softmax(layer_logits[mature_layer], dim=-1)
    log_qj = torch.stack([torch.log_softmax(layer_logits[j], dim=-1) for j in candidate_layers])
    qn = log_qn.exp()
    jsd = (qn * (log_qn - log_qj)).sum(dim=-1).transpose(0, 1)
    best = jsd.argmax(dim=-1)
    layers = torch.tensor(list(candidate_layers), dtype=torch.long)
    log_qm = log_qj[best, torch.arange(best.shape[0])]
    plausible = qn >= alpha * qn.max(dim=-1, keepdim=True).values
    scores = (log_qn - log_qm).masked_fill(~plausible, float("-inf"))
    return DoLaStep(scores=scores, plausible=plausible, premature_layer=layers[best], jsd=jsd)
