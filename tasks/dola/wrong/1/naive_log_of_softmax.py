# WRONG: log(softmax(x)) instead of log-softmax and no 0*log(0) guard: -inf/NaN once probabilities underflow.
def dola_step(layer_logits, candidate_layers, mature_layer, alpha=0.1):
    qn = torch.softmax(layer_logits[mature_layer], dim=-1)
    qj = torch.stack([torch.softmax(layer_logits[j], dim=-1) for j in candidate_layers])
    log_qn, log_qj = qn.log(), qj.log()
    m = 0.5 * (qn + qj)
    kl_n = (qn * (log_qn - m.log())).sum(dim=-1)
    kl_j = (qj * (log_qj - m.log())).sum(dim=-1)
    jsd = (0.5 * (kl_n + kl_j)).transpose(0, 1)
    best = jsd.argmax(dim=-1)
    layers = torch.tensor(list(candidate_layers), dtype=torch.long)
    log_qm = log_qj[best, torch.arange(best.shape[0])]
    plausible = qn >= alpha * qn.max(dim=-1, keepdim=True).values
    scores = (log_qn - log_qm).masked_fill(~plausible, float("-inf"))
    return DoLaStep(scores=scores, plausible=plausible, premature_layer=layers[best], jsd=jsd)
