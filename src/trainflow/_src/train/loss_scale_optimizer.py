"""`tf.train.experimental.MixedPrecisionLossScaleOptimizer`: an optimizer wrapper that
scales the loss up before differentiation and the gradients down before applying them,
skipping the update when a dynamic loss scale finds a non-finite gradient."""
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.ops.control_flow import control_flow_ops
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.math import math_ops
from trainflow._src.train import loss_scale as loss_scale_module
from trainflow._src.train.optimizer import Optimizer


class MixedPrecisionLossScaleOptimizer(Optimizer):
    """Wraps `opt` with loss scaling.

    Args:
      opt: the tf.train.Optimizer to wrap.
      loss_scale: a number (fixed scale), "dynamic", or a LossScale.

    Raises:
      ValueError: if `opt` is not an Optimizer or `loss_scale` is None or unknown.
    """

    def __init__(self, opt, loss_scale):
        if not isinstance(opt, Optimizer):
            raise ValueError('"opt" must be an instance of Optimizer, but got: %s' % type(opt))
        self._optimizer = opt
        super().__init__(opt._use_locking, opt.get_name())
        self._loss_scale = loss_scale_module.get(loss_scale)
        if self._loss_scale is None:
            raise ValueError("loss_scale cannot be None")

    def _doing_dynamic_loss_scaling(self):
        return isinstance(self._loss_scale, loss_scale_module.DynamicLossScale)

    def compute_gradients(self, loss, var_list=None, gate_gradients=Optimizer.GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        """The wrapped optimizer's gradients of loss * scale, divided by scale."""
        grads_and_vars = self._optimizer.compute_gradients(
            self._scale_loss(loss), var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        grads = self._unscale_grads([g for g, _ in grads_and_vars])
        return list(zip(grads, [v for _, v in grads_and_vars]))

    def _scale_loss(self, loss):
        scale = self._loss_scale()
        if callable(loss):
            def scaled():
                value = loss()
                return value * math_ops.cast(scale, value.dtype)
            return scaled
        return loss * math_ops.cast(scale, loss.dtype)

    def _unscale_grads(self, grads):
        reciprocal = 1 / self._loss_scale()
        out = []
        for g in grads:
            if g is None:
                out.append(None)
            elif isinstance(g, IndexedSlices):
                out.append(IndexedSlices(g.values * reciprocal, g.indices, g.dense_shape))
            else:
                out.append(g * reciprocal)
        return out

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Applies the gradients with the wrapped optimizer; with a dynamic loss scale,
        only when they are all finite, and updates the scale either way."""
        if not self._doing_dynamic_loss_scaling():
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name)
        grads_and_vars = tuple(grads_and_vars)
        name = name if name is not None else self.get_name()
        update_scale, should_apply = self._loss_scale.update([g for g, _ in grads_and_vars])

        def apply_fn():
            return self._optimizer.apply_gradients(grads_and_vars, global_step,
                                                   name + "-wrapped")

        maybe_apply = cond(should_apply, apply_fn, control_flow_ops.no_op)
        return control_flow_ops.group(maybe_apply, update_scale, name=name)

    def _apply_dense(self, grad, var):
        raise RuntimeError("This function should never be called")

    _apply_sparse = _apply_dense

    def variables(self):
        """The wrapped optimizer's variables, then the loss scale's."""
        return self._optimizer.variables() + list(self._loss_scale._weights.values())
