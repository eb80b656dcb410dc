"""Per-backend kernel tables of the op registry."""
import pytest

from trainflow._src.framework import registry
from trainflow._src.framework.shape_inference import unchanged_shape


def _double(x):
    return x * 2


def _triple(x):
    return x * 3


if not registry.is_registered("TestBackendsOp"):
    registry.register_op("TestBackendsOp", inputs=["x: T"], outputs=["y: T"],
                         attrs=["T: type"], shape_fn=unchanged_shape, kernel=_double)


def test_register_op_sets_the_numpy_kernel():
    assert registry.kernel("TestBackendsOp") is _double
    assert registry.kernel("TestBackendsOp", "numpy") is registry.get("TestBackendsOp").kernel
    assert registry.kernel("NoSuchOpType") is None


def test_another_backend_registers_beside_numpy():
    registry.register_kernel("TestBackendsOp", _triple, backend="test_lowering")
    assert registry.kernel("TestBackendsOp", "test_lowering") is _triple
    assert registry.kernel("TestBackendsOp") is _double
    assert registry.kernel_backends("TestBackendsOp")[:2] == ["numpy", "test_lowering"]
    assert registry.kernel("MatMul", "test_lowering") is None


def test_registering_the_numpy_kernel_replaces_op_info_kernel():
    info = registry.get("TestBackendsOp")
    try:
        registry.register_kernel("TestBackendsOp", _triple)
        assert info.kernel is _triple and info.kernel_attrs == ()
    finally:
        registry.register_kernel("TestBackendsOp", _double)


def test_unknown_op_type():
    with pytest.raises(KeyError, match="Op type not registered 'NoSuchOpType'"):
        registry.register_kernel("NoSuchOpType", _double, backend="test_lowering")
