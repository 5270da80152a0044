# wrong: the predictions are the argmax of the uncalibrated probabilities even with calibration
def classify(model: TinyLM, tokenizer: Tokenizer, template: Template, demos: Sequence[tuple[str, int]],
             queries: Sequence[str], cfg: CalibConfig, calibrated: bool = True) -> Classification:
    probs = torch.stack([label_probs(model, tokenizer, template, template.build_prompt(demos, q)) for q in queries])
    p_cf = None
    plain = probs
    if calibrated:
        p_cf = content_free_probs(model, tokenizer, template, demos, cfg)
        W, b = calibration_params(p_cf)
        probs = calibrate(probs, W, b)
    return Classification(probs, torch.argmax(plain, dim=-1), p_cf)
