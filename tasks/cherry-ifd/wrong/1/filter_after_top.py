# Wrong: takes the top num_selected first and then drops IFD >= 1 (fewer samples)
def select_cherry(ifd: torch.Tensor, num_selected: int) -> list[int]:
    """The cherry samples: the `num_selected` samples with the highest IFD among those whose IFD is below 1
    (fewer if fewer qualify).

    Args:
        ifd: float (N,), the IFD score of every sample.
        num_selected: how many to select, >= 0.

    Returns:
        sample indices by descending IFD (ties to the lower index).
    """
    order = torch.sort(ifd, descending=True, stable=True).indices.tolist()
    return [i for i in order[:num_selected] if ifd[i] < 1.0]
