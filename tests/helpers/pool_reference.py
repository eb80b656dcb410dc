"""Loop references of TensorFlow's pooling rules that several test modules share."""


def tf_avg_grad_span(index, k, stride, before, size):
    """TF's AvgPoolGrad span along one axis: clipped at the start, then at most `k` cells
    (so a window larger than the input on both sides reaches past its forward cells)."""
    start, length = index * stride, k
    if start < before:
        start, length = 0, k + start - before
    else:
        start -= before
    if start + k > size:
        length = min(size - start, k)
    return range(start, start + length)
