# wrong: the score is exp(-c * KL(P || Q)) (the divergence of P from Q alone) instead of the area under the curve
def compute_mauve(p_features, q_features, cfg=None):
    cfg = cfg if cfg is not None else MauveConfig()
    quantized = quantize(p_features, q_features, cfg)
    curve = divergence_curve(quantized.p_hist, quantized.q_hist, cfg)
    score = float(np.exp(-cfg.scaling * kl_divergence(quantized.p_hist, quantized.q_hist)))
    return MauveResult(score, curve, quantized.p_hist, quantized.q_hist, quantized.num_buckets)
