# WRONG: max pooling instead of average pooling.
def multi_scale_downsample(x, num_scales, window, x_mark=None):
    if window < 1 or num_scales < 0:
        raise ValueError("bad arguments")
    levels = [x]
    marks = None if x_mark is None else [x_mark]
    for _ in range(num_scales):
        prev = levels[-1]
        length = prev.shape[1] // window
        if length == 0:
            raise ValueError("sequence too short")
        levels.append(F.max_pool1d(prev.transpose(1, 2), kernel_size=window, stride=window).transpose(1, 2))
        if marks is not None:
            marks.append(marks[-1][:, : length * window : window])
    return levels, marks
