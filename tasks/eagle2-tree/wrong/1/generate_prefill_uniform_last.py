# in a sampling generation the prefill token is sampled without consuming the stream first (uses a fresh stream)
def eagle2_generate(target: TargetLM, draft: FeatureDraft, prompt: list[int], cfg: EagleConfig
                    ) -> GenerationResult:
    """Generate cfg.max_new_tokens tokens after `prompt`: a prefill, then EAGLE-2 steps until enough tokens are
    committed (the surplus of the last step is dropped). A sampling generation draws from UniformStream(cfg.seed),
    the prefill's number first."""
    t0, d0 = target.calls, draft.calls
    stream = None if cfg.greedy else UniformStream(cfg.seed)
    state = prefill(target, prompt, None if stream is None else UniformStream(cfg.seed + 1))
    steps = []
    while len(state.ids) - len(prompt) < cfg.max_new_tokens:
        state, record = eagle2_step(target, draft, state, cfg, stream)
        steps.append(record)
    tokens = state.ids[len(prompt):len(prompt) + cfg.max_new_tokens]
    used = 0 if stream is None else stream.used
    return GenerationResult(tokens, steps, target.calls - t0, draft.calls - d0, used)
