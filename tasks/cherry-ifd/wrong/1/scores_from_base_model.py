# Wrong: the IFD scores come from the base model, not the pre-experienced one
def cherry_pipeline(model: TinyLM, samples: list[Sample], config: CherryConfig) -> CherryResult:
    """The whole self-guided selection (learning from brief experience, evaluating based on experience,
    selecting the cherry data) for `samples`, starting from the base model `model`, which is left unchanged.

    Args:
        model: the base model.
        samples: the whole instruction dataset, N samples.
        config: the run's settings.

    Returns:
        the `CherryResult`.
    """
    subset = experience_subset(instruction_embeddings(model, samples), config)
    experienced = brief_training(model, [samples[i] for i in subset], config.experience_steps, config.lr)
    conditioned, direct = answer_scores(model, samples)
    ifd = conditioned / direct
    return CherryResult(experience_subset=subset, conditioned=conditioned, direct=direct, ifd=ifd,
                        selected=select_cherry(ifd, config.num_selected), model=experienced)
