"""Weight regularizers: callables mapping a weight tensor to a scalar penalty.

Two families, as TF1 programs find them:

* Keras style (`tf.keras.regularizers`): `l1(0.01)`, `l2(0.01)`, `l1_l2(...)`, the
  `L1L2` class. `l2` is `l2 * sum(square(w))`.
* `tf.contrib.layers` style: `l1_regularizer(scale)`, `l2_regularizer(scale)`,
  `l1_l2_regularizer(...)`, `sum_regularizer([...])` and `apply_regularization`.
  `l2_regularizer` is `scale * l2_loss(w)`, i.e. half the sum of squares.

Any of them (or any other callable) can be passed as `kernel_regularizer=` to
`tf.layers` or as `regularizer=` to `tf.get_variable`.
"""
import numbers

from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import add_to_collection, get_collection, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.nn import norm

__all__ = ["L1L2", "Regularizer", "apply_regularization", "get", "l1", "l1_l2",
           "l1_l2_regularizer", "l1_regularizer", "l2", "l2_regularizer", "sum_regularizer"]


class Regularizer:
    """Base class of the Keras-style regularizers: `__call__(x)` returns a scalar."""

    def __call__(self, x):
        return 0.0

    def get_config(self):
        """The constructor arguments, as a dict."""
        return {}

    @classmethod
    def from_config(cls, config):
        """Builds the regularizer from `get_config()`'s dict."""
        return cls(**config)


class L1L2(Regularizer):
    """`l1 * sum(|x|) + l2 * sum(x**2)` (`tf.keras.regularizers.L1L2`).

    Args:
      l1: the L1 factor (float).
      l2: the L2 factor (float).
    """

    def __init__(self, l1=0.0, l2=0.0):  # noqa: E741 - Keras's argument names
        self.l1 = float(l1)
        self.l2 = float(l2)

    def __call__(self, x):
        x = convert_to_tensor(x)
        if not self.l1 and not self.l2:
            return convert_to_tensor(0.0, dtype=x.dtype.base_dtype)
        terms = []
        if self.l1:
            terms.append(arith.multiply(self.l1, reductions.reduce_sum(arith.abs(x))))
        if self.l2:
            terms.append(arith.multiply(self.l2, reductions.reduce_sum(arith.square(x))))
        return terms[0] if len(terms) == 1 else arith.add(terms[0], terms[1])

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}

    def __repr__(self):
        return f"L1L2(l1={self.l1}, l2={self.l2})"


def l1(l=0.01):  # noqa: E741 - Keras's argument name
    """A Keras-style L1 regularizer: `l * sum(|x|)`."""
    return L1L2(l1=l)


def l2(l=0.01):  # noqa: E741 - Keras's argument name
    """A Keras-style L2 regularizer: `l * sum(x**2)`."""
    return L1L2(l2=l)


def l1_l2(l1=0.01, l2=0.01):  # noqa: E741
    """A Keras-style L1 + L2 regularizer."""
    return L1L2(l1=l1, l2=l2)


_BY_NAME = {"l1": l1, "l2": l2, "l1_l2": l1_l2}


def get(identifier):
    """A regularizer from None, a callable, a name ("l1", "l2", "l1_l2") or a
    {"class_name": "L1L2", "config": {...}} dict.

    Raises:
      ValueError: for anything else.
    """
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]()
    if isinstance(identifier, dict) and identifier.get("class_name") == "L1L2":
        return L1L2.from_config(identifier.get("config", {}))
    raise ValueError(f"Could not interpret regularizer identifier: {identifier!r}")


def _check_scale(scale):
    if isinstance(scale, numbers.Integral) and not isinstance(scale, bool):
        raise ValueError(f"scale cannot be an integer: {scale}")
    if not isinstance(scale, numbers.Real):
        raise TypeError(f"scale must be a float, got {type(scale).__name__}")
    if scale < 0.0:
        raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale}")


def _scaled(scale, default_name, penalty, scope):
    """A contrib-style regularizer fn: `scale * penalty(weights)` under a name scope."""
    _check_scale(scale)
    if scale == 0.0:
        return lambda _: None

    def regularizer(weights):
        with name_scope(scope, default_name, [weights]) as name:
            weights = convert_to_tensor(weights)
            my_scale = convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return arith.multiply(my_scale, penalty(weights), name=name)
    return regularizer


def l1_regularizer(scale, scope=None):
    """`tf.contrib.layers.l1_regularizer`: fn(weights) = scale * sum(|weights|).

    Raises:
      ValueError: for an integer or negative scale. A scale of 0 gives a fn returning None.
    """
    return _scaled(scale, "l1_regularizer", lambda w: reductions.reduce_sum(arith.abs(w)), scope)


def l2_regularizer(scale, scope=None):
    """`tf.contrib.layers.l2_regularizer`: fn(weights) = scale * l2_loss(weights)
    (half the sum of squares).

    Raises:
      ValueError: for an integer or negative scale. A scale of 0 gives a fn returning None.
    """
    return _scaled(scale, "l2_regularizer", norm.l2_loss, scope)


def sum_regularizer(regularizer_list, scope=None):
    """A regularizer adding the penalties of `regularizer_list` (Nones are skipped)."""
    regularizer_list = [r for r in regularizer_list if r is not None]
    if not regularizer_list:
        return None

    def regularizer(weights):
        with name_scope(scope, "sum_regularizer", [weights]) as name:
            penalties = [p for p in (r(weights) for r in regularizer_list) if p is not None]
            if not penalties:
                return None
            return arith.add_n(penalties, name=name)
    return regularizer


def l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0, scope=None):
    """`tf.contrib.layers.l1_l2_regularizer`: the sum of an L1 and an L2 regularizer."""
    if isinstance(scale_l1, numbers.Real) and isinstance(scale_l2, numbers.Real) and \
            scale_l1 == 0.0 and scale_l2 == 0.0:
        return lambda _: None
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope=scope)


def apply_regularization(regularizer, weights_list=None):
    """Sums `regularizer(w)` over `weights_list` (default: the WEIGHTS collection), adds
    the sum to REGULARIZATION_LOSSES and returns it (`tf.contrib.layers.apply_regularization`).

    Raises:
      ValueError: if there are no weights or the regularizer returns no penalty.
    """
    if not weights_list:
        weights_list = get_collection(GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with name_scope("get_regularization_penalty", values=weights_list) as scope:
        penalties = [p for p in (regularizer(w) for w in weights_list) if p is not None]
        if not penalties:
            raise ValueError("The regularizer returned no penalty for the given weights.")
        summed = arith.add_n(penalties, name=scope)
        add_to_collection(GraphKeys.REGULARIZATION_LOSSES, summed)
        return summed
