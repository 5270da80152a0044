# wrong: the content-free inputs are given without the demonstrations (zero-shot prompts)
def content_free_probs(model: TinyLM, tokenizer: Tokenizer, template: Template, demos: Sequence[tuple[str, int]],
                       cfg: CalibConfig) -> torch.Tensor:
    probs = torch.stack([label_probs(model, tokenizer, template, template.build_prompt([], text))
                         for text in cfg.content_free])
    mean = probs.mean(dim=0)
    return mean / mean.sum()
