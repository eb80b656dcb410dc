"""`kl_divergence` and `RegisterKL`: KL functions registered per pair of distribution
classes, found for subclasses by the nearest pair along the two MROs."""
import inspect

from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow.assert_op import Assert
from trainflow._src.ops.math import math_ops

__all__ = ["RegisterKL", "kl_divergence", "cross_entropy"]

_DIVERGENCES = {}


def _registered_kl(type_a, type_b):
    """The KL function registered for the closest pair of ancestors, or None."""
    best, best_distance = None, None
    for dist_a, parent_a in enumerate(inspect.getmro(type_a)):
        for dist_b, parent_b in enumerate(inspect.getmro(type_b)):
            fn = _DIVERGENCES.get((parent_a, parent_b))
            if fn is not None and (best is None or dist_a + dist_b < best_distance):
                best, best_distance = fn, dist_a + dist_b
    return best


def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """KL(distribution_a || distribution_b), by the function registered for their types;
    with `allow_nan_stats=False` a NaN in it fails the step."""
    kl_fn = _registered_kl(type(distribution_a), type(distribution_b))
    if kl_fn is None:
        raise NotImplementedError(
            "No KL(distribution_a || distribution_b) registered for distribution_a type %s "
            "and distribution_b type %s"
            % (type(distribution_a).__name__, type(distribution_b).__name__))
    with name_scope("KullbackLeibler"):
        kl_t = kl_fn(distribution_a, distribution_b, name=name)
        if allow_nan_stats:
            return kl_t
        kl_t = array_ops.identity(kl_t, name="kl")
        message = ("KL calculation between %s and %s returned NaN values (and was called "
                   "with allow_nan_stats=False). Values:"
                   % (distribution_a.name, distribution_b.name))
        no_nan = math_ops.logical_not(math_ops.reduce_any(math_ops.is_nan(kl_t)))
        with control_dependencies([Assert(no_nan, [message, kl_t])]):
            return array_ops.identity(kl_t, name="checked_kl")


def cross_entropy(ref, other, allow_nan_stats=True, name=None):
    """H[ref, other] = entropy(ref) + KL(ref || other)."""
    with name_scope(name, "cross_entropy"):
        return ref.entropy() + kl_divergence(ref, other, allow_nan_stats=allow_nan_stats)


class RegisterKL:
    """Decorator: `@RegisterKL(Normal, Normal)` registers `kl_fn(a, b, name=None)`."""

    def __init__(self, dist_cls_a, dist_cls_b):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn):
        if not callable(kl_fn):
            raise TypeError("kl_fn must be callable, received: %s" % kl_fn)
        if self._key in _DIVERGENCES:
            raise ValueError("KL(%s || %s) has already been registered to: %s"
                             % (self._key[0].__name__, self._key[1].__name__,
                                _DIVERGENCES[self._key]))
        _DIVERGENCES[self._key] = kl_fn
        return kl_fn
