# WRONG: sliding (stride-1) average instead of non-overlapping windows (stride = window).
def multi_scale_downsample(x, num_scales, window, x_mark=None):
    if window < 1 or num_scales < 0:
        raise ValueError("bad arguments")
    levels = [x]
    marks = None if x_mark is None else [x_mark]
    for _ in range(num_scales):
        prev = levels[-1]
        if prev.shape[1] < window:
            raise ValueError("sequence too short")
        pooled = F.avg_pool1d(prev.transpose(1, 2), kernel_size=window, stride=1).transpose(1, 2)
        levels.append(pooled)
        if marks is not None:
            marks.append(marks[-1][:, : pooled.shape[1]])
    return levels, marks
