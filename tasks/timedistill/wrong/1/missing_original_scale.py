# WRONG: returns only the downsampled views (num_scales levels), without the original series at index 0.
def multi_scale_downsample(x, num_scales, window, x_mark=None):
    if window < 1 or num_scales < 0:
        raise ValueError("bad arguments")
    levels, marks = [], None if x_mark is None else []
    prev, prev_mark = x, x_mark
    for _ in range(num_scales):
        length = prev.shape[1] // window
        if length == 0:
            raise ValueError("sequence too short")
        prev = F.avg_pool1d(prev.transpose(1, 2), kernel_size=window, stride=window).transpose(1, 2)
        levels.append(prev)
        if marks is not None:
            prev_mark = prev_mark[:, : length * window : window]
            marks.append(prev_mark)
    return levels, marks
