# WRONG: time marks are average-pooled like the values instead of keeping the first step of each window.
def multi_scale_downsample(x, num_scales, window, x_mark=None):
    if window < 1 or num_scales < 0:
        raise ValueError("bad arguments")
    levels = [x]
    marks = None if x_mark is None else [x_mark]
    for _ in range(num_scales):
        prev = levels[-1]
        if prev.shape[1] // window == 0:
            raise ValueError("sequence too short")
        levels.append(F.avg_pool1d(prev.transpose(1, 2), kernel_size=window, stride=window).transpose(1, 2))
        if marks is not None:
            marks.append(F.avg_pool1d(marks[-1].transpose(1, 2), kernel_size=window, stride=window).transpose(1, 2))
    return levels, marks
