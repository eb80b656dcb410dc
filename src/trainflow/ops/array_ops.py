"""Array ops: Identity and friends (shape manipulation lands here)."""
__all__ = ["identity"]

from trainflow.framework.op_builder import apply_op
from trainflow.framework.registry import register_op
from trainflow.framework.shape_inference import unchanged_shape


def _identity_kernel(x):
    return x


register_op("Identity", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
            shape_fn=unchanged_shape, kernel=_identity_kernel, output_aliases_input=True)


def identity(input, name=None):  # noqa: A002 - TF's name
    """Returns a tensor with the same value as `input` (`tf.identity`)."""
    if hasattr(input, "_as_graph_element") and hasattr(input, "value") and \
            callable(getattr(input, "value")):
        input = input.value()
    return apply_op("Identity", input=input, name=name).outputs[0]


def _autopacking_helper(values, dtype, name):
    """Packs a (nested) list holding tensors into one tensor; needs the Pack op."""
    return stack_nested(values, dtype, name)


def stack_nested(values, dtype, name):
    from trainflow.framework.tensor_conversion import convert_to_tensor
    from trainflow.framework.graph import get_default_graph
    with get_default_graph().name_scope(name) as scope:
        elems = []
        for i, v in enumerate(values):
            if isinstance(v, (list, tuple)):
                elems.append(stack_nested(v, dtype, str(i)))
            else:
                elems.append(convert_to_tensor(v, dtype=dtype))
        return apply_op("Pack", values=elems, axis=0, name=scope).outputs[0]
