"""How a dataset op is registered: TF's signature plus the common attrs, a scalar variant
output, and a kernel that wraps the DatasetValue the op's maker returns."""
import functools
import inspect

from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.dataset.dataset_value import variant

ELEMENT_ATTRS = ["output_types: list(type) >= 1", "output_shapes: list(shape) >= 1"]
METADATA = ["metadata: string = ''"]


def scalar_shape(op):
    """Every dataset or iterator handle is a scalar."""
    return [TensorShape([])] * len(op._outputs)


def register_dataset(name, inputs, attrs, make, element_attrs=True, metadata=True):
    """Registers dataset op `name` whose kernel returns `make(*inputs, **attrs)` as a variant.

    `make` names as keyword-only parameters the attrs it needs (and `ctx` for the kernel
    context); the kernel takes the same ones.
    """
    all_attrs = list(attrs) + (ELEMENT_ATTRS if element_attrs else []) + \
        (METADATA if metadata else [])
    params = [p for p in inspect.signature(make).parameters.values()
              if p.kind is inspect.Parameter.KEYWORD_ONLY]

    @functools.wraps(make)
    def kernel(*args, **kwargs):
        return variant(make(*args, **kwargs))

    kernel.__signature__ = inspect.Signature(
        [inspect.Parameter(f"in{i}", inspect.Parameter.POSITIONAL_ONLY)
         for i in range(len(inputs))] + params)
    info = register_op(name, inputs=inputs, outputs=["handle: variant"], attrs=all_attrs,
                       shape_fn=scalar_shape, kernel=kernel, stateful=True, host_only=True)
    NotDifferentiable(name)
    return info
