"""`tf.math.polyval`: a polynomial evaluated by Horner's rule, as TensorFlow builds it."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.nest import flatten
from trainflow._src.ops.array import create

__all__ = ["polyval"]


def polyval(coeffs, x, name=None):
    """coeffs[0] * x**(n-1) + ... + coeffs[n-1], element-wise (Horner's rule).

    Raises:
      ValueError: if `coeffs` is not a list.
    """
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    with name_scope(name, "polyval", flatten(coeffs) + [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if not coeffs:
            return create.zeros_like(x, name=scope)
        coeffs = [convert_to_tensor(c, name=f"coeff_{i}") for i, c in enumerate(coeffs)]
        p = coeffs[0]
        for c in coeffs[1:]:
            p = c + p * x
        return p
