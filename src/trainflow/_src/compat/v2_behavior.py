"""The TF2-behavior switches of `tf.compat.v1`, with their TF1 graph-mode meaning.

Most TF1 code alive today was migrated to TF 2.x with
``import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()``. trainflow is TF1's
graph mode, so the `disable_*` switches are what it already does, and the switches
that would turn on eager execution raise a `ValueError` that says so (TensorFlow's
own class for "eager execution cannot be enabled now").
"""
import threading as _threading

from trainflow._src.framework.tensor import Tensor as _Tensor
from trainflow._src.ops.state.resource_variables import (disable_resource_variables,
                                                    enable_resource_variables,
                                                    resource_variables_enabled)

__all__ = ["disable_v2_behavior", "enable_v2_behavior", "disable_eager_execution",
           "enable_eager_execution", "executing_eagerly", "enable_resource_variables",
           "disable_resource_variables", "resource_variables_enabled",
           "executing_eagerly_outside_functions", "disable_tensor_equality",
           "enable_tensor_equality", "disable_control_flow_v2", "enable_control_flow_v2",
           "control_flow_v2_enabled", "disable_v2_tensorshape", "enable_v2_tensorshape"]

_lock = _threading.Lock()
_control_flow_v2 = False
_EAGER_MESSAGE = (
    "{what}: trainflow runs TensorFlow 1.x graph mode only (Graph, Session.run) and has no "
    "eager execution. Remove the call; TF1 programs run unchanged with "
    "`import trainflow.compat.v1 as tf`.")
# `Tensor._USE_EQUALITY` is TensorFlow's flag; in graph mode TF compares tensors by
# identity and hashes them by id whatever its value, and so does trainflow.
_Tensor._USE_EQUALITY = False


def disable_v2_behavior():
    """Switches off TF 2.x behavior: graph mode, tensors compared by identity, TF1
    control flow, reference variables by default (as TF's own switch does)."""
    disable_eager_execution()
    disable_resource_variables()
    disable_tensor_equality()
    disable_control_flow_v2()
    disable_v2_tensorshape()


def enable_v2_behavior():
    """TF 2.x behavior (eager execution) is not available.

    Raises:
      ValueError: always; trainflow is TF1 graph mode.
    """
    raise ValueError(_EAGER_MESSAGE.format(what="enable_v2_behavior()"))


def disable_eager_execution():
    """Graph mode: what trainflow always runs in."""


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Eager execution is not available.

    Raises:
      ValueError: always; trainflow is TF1 graph mode.
    """
    del config, device_policy, execution_mode
    raise ValueError(_EAGER_MESSAGE.format(what="enable_eager_execution()"))


def executing_eagerly():
    """False: ops are built into a graph and run by `Session.run`."""
    return False


def executing_eagerly_outside_functions():
    """False: trainflow builds graphs outside functions too."""
    return False


def disable_tensor_equality():
    """Tensors compare by identity and are hashable (TF1's rule, and trainflow's)."""
    _Tensor._USE_EQUALITY = False


def enable_tensor_equality():
    """Sets TensorFlow's tensor-equality flag. Like TensorFlow in graph mode, `==`
    between graph tensors still compares identity and tensors stay hashable; use
    `tf.equal` for element-wise comparison."""
    _Tensor._USE_EQUALITY = True


def disable_control_flow_v2():
    """Asks for TF1 control flow. trainflow's graph forms are fixed either way: `tf.cond`
    builds Switch/Merge, `tf.while_loop` one functional While op; values and gradients
    are the same in both of TensorFlow's forms."""
    global _control_flow_v2
    with _lock:
        _control_flow_v2 = False


def enable_control_flow_v2():
    """Asks for TF2 control flow; see `disable_control_flow_v2` for the forms built."""
    global _control_flow_v2
    with _lock:
        _control_flow_v2 = True


def control_flow_v2_enabled():
    """Whether `enable_control_flow_v2` was called last (False by default, as in TF1)."""
    return _control_flow_v2


def disable_v2_tensorshape():
    """TF1 `TensorShape` behavior (dimensions are `Dimension` objects): trainflow's."""


def enable_v2_tensorshape():
    """TF2 `TensorShape` behavior (dimensions as plain ints) is not available.

    Raises:
      ValueError: always; trainflow's shapes hold `Dimension` objects as TF1's do.
    """
    raise ValueError(
        "enable_v2_tensorshape(): trainflow follows TF1's TensorShape, whose dimensions are "
        "Dimension objects; use `tf.compat.dimension_value(shape[i])` to read an int.")
