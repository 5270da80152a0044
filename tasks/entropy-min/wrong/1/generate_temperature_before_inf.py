# WRONG: the logits are divided by the temperature before EM-INF (and again when drawing)
@torch.no_grad()
def em_inf_generate(model: TinyLM, prompt_ids: torch.Tensor, cfg: InfConfig, temperature: float = 0.0,
                    generator: torch.Generator | None = None) -> torch.Tensor:
    seq = prompt_ids.clone()
    for _ in range(cfg.max_new_tokens):
        last = model(seq)[:, -1]
        if temperature > 0:
            last = last / temperature
        with torch.enable_grad():
            adjusted, _ = em_inf_logits(last, cfg)
        seq = torch.cat([seq, next_token(adjusted, temperature, generator).unsqueeze(1)], dim=1)
    return seq[:, prompt_ids.shape[1]:]
