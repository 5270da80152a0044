# WRONG: multiplies the log-probabilities by the temperature instead of dividing.
@torch.no_grad()
def cad_generate(
    model: TinyCausalLM,
    context_ids: Tensor,
    query_ids: Tensor,
    max_new_tokens: int,
    alpha: float = 0.5,
    do_sample: bool = False,
    temperature: float = 1.0,
    generator: torch.Generator | None = None,
    eos_token_id: int | None = None,
    pad_token_id: int = 0,
) -> GenerationOutput:
    """Generate a continuation of ``query_ids`` with context-aware decoding.

    Args:
        model: maps ids (batch, seq) to logits (batch, seq, vocab); ``model.next_token_logits``
            gives the logits of the next token, (batch, vocab).
        context_ids: (batch, n_ctx) context tokens (n_ctx may be 0).
        query_ids: (batch, n_query) query tokens, n_query >= 1.
        max_new_tokens: the largest number of decoding steps.
        alpha: CAD adjustment strength.
        do_sample: sample instead of taking the argmax.
        temperature: sampling temperature (only used when sampling).
        generator: the random generator used for sampling.
        eos_token_id: a row is finished once it has emitted this token (None: never).
        pad_token_id: emitted by finished rows.

    Conventions (the tests rely on them):
        * At every step both branches see the tokens generated so far: the context branch
          scores ``[context_ids, query_ids, generated]``, the context-free branch scores
          ``[query_ids, generated]``; the step's distribution is ``cad_log_probs`` of the two
          next-token logits.
        * Greedy: the argmax of that distribution (first index on ties). Sampling: exactly one
          call ``torch.multinomial(probs, num_samples=1, generator=generator)`` per step on the
          whole (batch, vocab) matrix ``probs = softmax(cad_log_probs(...) / temperature)``,
          for every row, finished or not.
        * ``token_logprobs`` holds the CAD log-probability (at temperature 1) of each emitted token.
        * Once a row has emitted ``eos_token_id`` (the EOS itself is kept, with its log-prob), its
          later tokens are ``pad_token_id`` with log-prob 0.0. The loop stops early when every
          row has finished, so the outputs have between 1 and ``max_new_tokens`` columns
          (0 if ``max_new_tokens`` is 0).
    """
    with_ctx = torch.cat([context_ids, query_ids], dim=1)
    without_ctx = query_ids
    finished = torch.zeros(query_ids.shape[0], dtype=torch.bool, device=query_ids.device)
    tokens, logprobs = [], []
    for _ in range(max_new_tokens):
        logp = cad_log_probs(model.next_token_logits(with_ctx), model.next_token_logits(without_ctx), alpha)
        if do_sample:
            probs = torch.softmax(logp * temperature, dim=-1)
            nxt = torch.multinomial(probs, num_samples=1, generator=generator).squeeze(-1)
        else:
            nxt = logp.argmax(dim=-1)
        lp = logp.gather(-1, nxt[:, None]).squeeze(-1)
        nxt = nxt.masked_fill(finished, pad_token_id)
        tokens.append(nxt)
        logprobs.append(lp.masked_fill(finished, 0.0))
        with_ctx = torch.cat([with_ctx, nxt[:, None]], dim=1)
        without_ctx = torch.cat([without_ctx, nxt[:, None]], dim=1)
        if eos_token_id is not None:
            finished = finished | (nxt == eos_token_id)
            if bool(finished.all()):
                break
    return _stack(tokens, logprobs, query_ids)
