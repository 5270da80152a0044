# with a static shape the tree is still reranked to total_tokens instead of verifying every node
def eagle2_step(target: TargetLM, draft: FeatureDraft, state: DecodeState, cfg: EagleConfig,
                stream: UniformStream | None = None) -> tuple[DecodeState, StepRecord]:
    """One EAGLE-2 step: draft a dynamic tree below the last token of state.ids (cfg.depth, cfg.top_k), keep
    cfg.total_tokens nodes, verify with one target forward pass (greedy, or speculative sampling with `stream`
    when cfg.greedy is False), commit.

    Returns the new DecodeState (state is not modified) and the StepRecord. Raises ValueError if cfg.greedy is
    False and stream is None."""
    if not cfg.greedy and stream is None:
        raise ValueError("speculative sampling needs a UniformStream")
    past = len(state.ids) - 1
    proposer = DraftProposer(draft, state)
    if cfg.static_shape is None:
        tree = expand_tree(proposer.root_probs, proposer, cfg.depth, cfg.top_k)
        keep = rerank(tree, cfg.total_tokens)
    else:
        tree = static_tree(proposer.root_probs, proposer, cfg.static_shape)
        keep = rerank(tree, cfg.total_tokens)
    tokens, parents, depths = flatten_tree(state.ids[-1], tree, keep)
    logits, features, cache = target(tokens, tree_position_ids(depths, past), tree_attention_mask(parents, past),
                                     state.cache)
    if cfg.greedy:
        accepted, bonus = verify_greedy(tokens, parents, logits)
    else:
        node_of = [-1] + [int(c) for c in keep]
        draft_probs = torch.stack([proposer.probs.get(c, torch.zeros_like(proposer.root_probs)) for c in node_of])
        accepted, bonus = verify_sampling(tokens, parents, torch.softmax(logits, dim=1), draft_probs, stream)
    new_tokens = [int(tokens[i]) for i in accepted[1:]] + [bonus]
    new_state = DecodeState(state.ids + new_tokens, compact_cache(cache, past, accepted),
                            torch.cat([state.features, features[accepted]]))
    record = StepRecord(tokens.tolist(), parents.tolist(), depths.tolist(), accepted, new_tokens)
    return new_state, record
