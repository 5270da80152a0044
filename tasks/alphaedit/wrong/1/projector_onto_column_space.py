# WRONG: keeps the eigenvectors of the non-zero eigenvalues (the column space of K0), not the null space.
def null_space_projector(cov: torch.Tensor, threshold: float) -> torch.Tensor:
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
        raise ValueError(f"cov must be a square matrix, got {tuple(cov.shape)}")
    if threshold <= 0:
        raise ValueError("threshold must be positive")
    eigenvalues, eigenvectors = torch.linalg.eigh(cov)
    kept = eigenvectors[:, eigenvalues >= threshold]
    return kept @ kept.T
