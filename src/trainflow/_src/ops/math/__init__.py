"""Math ops: element-wise, matrix products, reductions, segments, special functions."""
