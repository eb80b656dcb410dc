"""Loss collections: `tf.losses.add_loss`, `get_losses`, `get_regularization_loss(es)`
and `get_total_loss`."""
from trainflow._src.framework import constant_op
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import add_to_collection, get_collection
from trainflow._src.ops.math import math_ops

__all__ = ["add_loss", "get_losses", "get_regularization_loss", "get_regularization_losses",
           "get_total_loss"]


def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Adds `loss` to `loss_collection` (nothing when the collection is None or empty)."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    """The losses in `loss_collection`, filtered by name `scope` (a regex prefix)."""
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    """The REGULARIZATION_LOSSES tensors, filtered by `scope`."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum (AddN `name`) of the regularization losses, or a 0.0 constant if none."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant_op.constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum (AddN `name`) of LOSSES and, by default, REGULARIZATION_LOSSES.

    Raises:
      ValueError: if there is no loss at all.
    """
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope=scope)
    if not losses:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices "
                         "with the same dtype and shape.")
    return math_ops.add_n(losses, name=name)
