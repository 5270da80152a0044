# wrong: only the first content-free input is used
def content_free_probs(model: TinyLM, tokenizer: Tokenizer, template: Template, demos: Sequence[tuple[str, int]],
                       cfg: CalibConfig) -> torch.Tensor:
    probs = torch.stack([label_probs(model, tokenizer, template, template.build_prompt(demos, text))
                         for text in cfg.content_free[:1]])
    mean = probs.mean(dim=0)
    return mean / mean.sum()
