# wrong: the generation keeps the surplus tokens of its last step
def speculative_generate(target: TinyLM, draft: TinyLM, prompt: Sequence[int], cfg: SpecConfig,
                         stream: UniformStream) -> GenerationResult:
    t0, d0 = target.calls, draft.calls
    tokens: list[int] = []
    steps = []
    while len(tokens) < cfg.max_new_tokens:
        step = speculative_step(target, draft, list(prompt) + tokens, cfg, stream)
        steps.append(step)
        tokens.extend(step.tokens)
    return GenerationResult(tokens, steps, target.calls - t0, draft.calls - d0)
