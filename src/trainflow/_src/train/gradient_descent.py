"""`tf.train.GradientDescentOptimizer`."""
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.state import resource_variable_ops, training_ops
from trainflow._src.train.optimizer import Optimizer


class GradientDescentOptimizer(Optimizer):
    """Plain gradient descent: var -= learning_rate * grad.

    Args:
      learning_rate: a float, Tensor, or callable returning one.
      use_locking: lock the variable during updates.
      name: the optimizer name (default "GradientDescent").
    """

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = convert_to_tensor(lr, name="learning_rate")

    def _lr_for(self, var):
        return math_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype)

    def _apply_dense(self, grad, var):
        return training_ops.apply_gradient_descent(
            var._ref(), self._lr_for(var), grad, use_locking=self._use_locking)

    def _apply_sparse_duplicate_indices(self, grad, var):
        if getattr(var, "_is_resource_variable", False):
            return resource_variable_ops.resource_scatter_add(
                var.handle, grad.indices, -grad.values * self._lr_for(var))
        delta = IndexedSlices(grad.values * self._lr_for(var), grad.indices, grad.dense_shape)
        return var.scatter_sub(delta, use_locking=self._use_locking)
