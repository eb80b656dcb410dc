"""`tf.edit_distance` (EditDistance): the Levenshtein distance between the sequences of two
SparseTensors, one sequence per position of their leading dimensions. TensorFlow marks
EditDistance not differentiable."""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.sparse_tensor import SparseTensor, SparseTensorValue
from trainflow._src.ops.array.shape_util import invalid_argument, shape_of, static_value
from trainflow._src.framework.tensor_shape import unknown_shape

__all__ = ["edit_distance"]


def _levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return prev[-1]


def _sequences(indices, values, shape, name):
    indices = np.asarray(indices, np.int64)
    values = np.asarray(values)
    if indices.ndim != 2 or values.ndim != 1 or np.ndim(shape) != 1:
        raise invalid_argument(f"{name} indices, values and shape must be a matrix, a vector "
                               f"and a vector")
    if indices.shape[0] != values.shape[0]:
        raise invalid_argument(f"Expected {name}_indices.dim_size(0) == "
                               f"{name}_values.dim_size(0), got {indices.shape[0]} and "
                               f"{values.shape[0]}")
    order = np.lexsort(indices.T[::-1]) if indices.shape[0] else np.arange(0)
    groups = {}
    for i in order:
        groups.setdefault(tuple(indices[i, :-1].tolist()), []).append(values[i])
    return groups


def _kernel(hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
            truth_values, truth_shape, *, normalize, T):  # noqa: N803 - TF's attr
    h_shape = np.asarray(hypothesis_shape, np.int64)
    t_shape = np.asarray(truth_shape, np.int64)
    if h_shape.size != t_shape.size:
        raise invalid_argument(f"hypothesis_shape and truth_shape must have the same rank, "
                               f"got {h_shape.size} and {t_shape.size}")
    if np.asarray(hypothesis_indices).ndim == 2 and \
            np.asarray(hypothesis_indices).shape[1] != h_shape.size:
        raise invalid_argument("hypothesis_indices should have as many columns as "
                               "hypothesis_shape has entries")
    out_shape = np.maximum(h_shape[:-1], t_shape[:-1])
    hyp = _sequences(hypothesis_indices, hypothesis_values, h_shape, "hypothesis")
    truth = _sequences(truth_indices, truth_values, t_shape, "truth")
    out = np.zeros(out_shape, np.float32)
    for loc in set(hyp) | set(truth):
        if any(i >= d for i, d in zip(loc, out_shape)):
            raise invalid_argument(f"Edit distance: index {list(loc)} is out of bounds of "
                                   f"the output shape {out_shape.tolist()}")
        h, t = hyp.get(loc, []), truth.get(loc, [])
        if not t:
            dist = float(len(h))
            if normalize and dist != 0:
                dist = np.inf
        elif not h:
            dist = 1.0 if normalize else float(len(t))
        else:
            dist = float(_levenshtein(h, t))
            if normalize:
                dist /= len(t)
        out[loc] = dist
    return out


def _shape(op):
    h, t = static_value(op.inputs[2]), static_value(op.inputs[5])
    if h is None or t is None:
        return [unknown_shape()]
    if h.size != t.size:
        raise ValueError(f"Dimension {h.size} and {t.size} are not compatible for "
                         f"'{op.name}'")
    return [shape_of([int(max(a, b)) for a, b in zip(h[:-1], t[:-1])])]


register_op("EditDistance",
            inputs=["hypothesis_indices: int64", "hypothesis_values: T",
                    "hypothesis_shape: int64", "truth_indices: int64", "truth_values: T",
                    "truth_shape: int64"],
            outputs=["output: float"], attrs=["normalize: bool = true", "T: type"],
            shape_fn=_shape, kernel=_kernel)
NotDifferentiable("EditDistance")


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distance of each of `hypothesis`'s sequences to `truth`'s (both
    SparseTensors, sequences along the last dimension), divided by the truth's length when
    `normalize`: a float32 tensor shaped like their leading dimensions.

    Raises:
      TypeError: if either input is not a SparseTensor.
    """
    sparse = (SparseTensor, SparseTensorValue)
    if not isinstance(hypothesis, sparse):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, sparse):
        raise TypeError("Truth must be a SparseTensor.")
    return apply_op("EditDistance", hypothesis_indices=hypothesis.indices,
                    hypothesis_values=hypothesis.values,
                    hypothesis_shape=hypothesis.dense_shape, truth_indices=truth.indices,
                    truth_values=truth.values, truth_shape=truth.dense_shape,
                    normalize=normalize, name=name).outputs[0]
