# WRONG: draws the permutation before the noise (the documented order is noise first, then the shuffle)
def generate_task(kind, n_samples=128, seed=0, noise=0.1, factor=0.5, shuffle=True):
    if kind not in TASK_KINDS:
        raise ValueError(f"unknown task kind {kind!r}")
    if n_samples < 2:
        raise ValueError("n_samples must be at least 2")
    rng = np.random.default_rng(seed)
    n0 = n_samples // 2
    n1 = n_samples - n0
    if kind == "moons":
        t0, t1 = np.linspace(0, np.pi, n0), np.linspace(0, np.pi, n1)
        X0 = np.stack([np.cos(t0), np.sin(t0)], axis=1)
        X1 = np.stack([1 - np.cos(t1), 0.5 - np.sin(t1)], axis=1)
    elif kind == "circles":
        a0 = np.linspace(0, 2 * np.pi, n0, endpoint=False)
        a1 = np.linspace(0, 2 * np.pi, n1, endpoint=False)
        X0 = np.stack([np.cos(a0), np.sin(a0)], axis=1)
        X1 = factor * np.stack([np.cos(a1), np.sin(a1)], axis=1)
    else:
        theta = rng.uniform(0, 2 * np.pi)
        offset = rng.uniform(-0.5, 0.5)
        u = np.array([np.cos(theta), np.sin(theta)])
        v = np.array([-np.sin(theta), np.cos(theta)])
        X0 = (offset - 0.5) * u + np.linspace(-1, 1, n0)[:, None] * v
        X1 = (offset + 0.5) * u + np.linspace(-1, 1, n1)[:, None] * v
    X = np.concatenate([X0, X1]).astype(np.float64)
    y = np.concatenate([np.zeros(n0, dtype=np.int64), np.ones(n1, dtype=np.int64)])
    if shuffle:
        perm = rng.permutation(n_samples)
        X, y = X[perm], y[perm]
    X = X + noise * rng.standard_normal((n_samples, 2))
    return ClassificationTask(kind, seed, X, y)
