"""ArgDef: parsing of argument specs and how many tensors a list argument holds."""
import pytest

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_def import OpDef

_DEF = OpDef("TestArgCounts",
             inputs=["x: T", "xs: N * T", "parts: Tparts", "ref: Ref(T)", "shape: int32"],
             outputs=["y: T", "ys: N * int64"],
             attrs=["T: type", "N: int >= 1", "Tparts: list(type) >= 0"])
_ATTRS = {"T": dtypes.float32, "N": 3, "Tparts": [dtypes.int32, dtypes.string]}


@pytest.mark.parametrize("index, count, flat, types", [
    (0, None, 1, [dtypes.float32]),
    (1, 3, 3, [dtypes.float32] * 3),
    (2, 2, 2, [dtypes.int32, dtypes.string]),
    (3, None, 1, [dtypes.float32_ref]),
    (4, None, 1, [dtypes.int32]),
])
def test_input_counts_and_types(index, count, flat, types):
    arg = _DEF.inputs[index]
    assert arg.count(_ATTRS) == count
    assert arg.flat_count(_ATTRS) == flat
    assert arg.dtypes(_ATTRS) == types


def test_output_counts():
    y, ys = _DEF.outputs
    assert y.count(_ATTRS) is None and ys.count(_ATTRS) == 3
    assert ys.dtypes(_ATTRS) == [dtypes.int64] * 3


def test_count_needs_the_length_attr():
    with pytest.raises(KeyError):
        _DEF.inputs[1].count({"T": dtypes.float32})
