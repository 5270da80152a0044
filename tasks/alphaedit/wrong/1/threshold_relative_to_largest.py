# WRONG: treats eigenvalues below threshold * (largest eigenvalue) as zero, not below the threshold itself.
def null_space_projector(cov: torch.Tensor, threshold: float) -> torch.Tensor:
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
        raise ValueError(f"cov must be a square matrix, got {tuple(cov.shape)}")
    if threshold <= 0:
        raise ValueError("threshold must be positive")
    eigenvalues, eigenvectors = torch.linalg.eigh(cov)
    null = eigenvectors[:, eigenvalues < threshold * eigenvalues.max()]
    return null @ null.T
