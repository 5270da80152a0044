# WRONG: the model's own end of thinking is honoured before the maximum is checked.
def budget_forced_generate(model: ToyReasoner, tokenizer: ToyTokenizer, prompt_ids: Sequence[int],
                           budget: BudgetConfig) -> Generation:
    if budget.min_thinking_tokens < 0 or budget.min_waits < 0 or budget.max_answer_tokens < 0 or (
            budget.max_thinking_tokens is not None and budget.max_thinking_tokens < 0):
        raise ValueError("budget limits must be non-negative")
    wait_ids = tokenizer.encode(budget.wait)
    if not wait_ids:
        raise ValueError("the wait string encodes to no token")

    def greedy(state: State) -> int:
        return int(torch.argmax(model.logits(state)))

    state = model.advance(model.start(prompt_ids), tokenizer.think_id)
    thinking: list[int] = []
    waits, forced = 0, False
    while True:
        token = greedy(state)
        ended = token == tokenizer.end_think_id and len(thinking) >= budget.min_thinking_tokens and waits >= budget.min_waits
        if not ended and budget.max_thinking_tokens is not None and len(thinking) >= budget.max_thinking_tokens:
            forced = True
            break
        if token == tokenizer.end_think_id:
            if len(thinking) >= budget.min_thinking_tokens and waits >= budget.min_waits:
                break
            waits += 1
            for t in wait_ids:
                thinking.append(t)
                state = model.advance(state, t)
            continue
        thinking.append(token)
        state = model.advance(state, token)

    state = model.advance(state, tokenizer.end_think_id)
    answer = tokenizer.encode(budget.answer_prefix) if forced else []
    for t in answer:
        state = model.advance(state, t)
    for _ in range(budget.max_answer_tokens):
        token = greedy(state)
        answer.append(token)
        if token == tokenizer.eos_id:
            break
        state = model.advance(state, token)
    return Generation(list(prompt_ids), thinking, answer, waits, forced, extract_answer(tokenizer, answer))
