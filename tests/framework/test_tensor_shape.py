"""TensorShape / Dimension with TF1 semantics. Expected values and messages were
taken from TensorFlow 2.21 in v1 mode; the interop test at the end re-checks a
table of expressions against TF itself when TRAINFLOW_TF_PYTHON is set."""
import pickle
import subprocess
import sys

import numpy as np
import pytest

from trainflow._src.framework import tensor_shape as ts
from trainflow._src.framework.tensor_shape import Dimension as D
from trainflow._src.framework.tensor_shape import TensorShape as S

from tf_interop import needs_tf, run_json


# ----- Dimension -------------------------------------------------------------

def test_dimension_construction():
    assert D(3).value == 3
    assert D(None).value is None
    assert D(D(4)).value == 4
    assert D(np.int64(5)).value == 5 and type(D(np.int64(5)).value) is int
    with pytest.raises(ValueError, match=r"^Dimension -1 must be >= 0$"):
        D(-1)
    with pytest.raises(TypeError, match="Dimension value must be integer or None"):
        D(2.0)
    with pytest.raises(TypeError, match="got value ''3''"):
        D("3")


def test_dimension_repr_str_int():
    assert repr(D(3)) == "Dimension(3)"
    assert repr(D(None)) == "Dimension(None)"
    assert str(D(None)) == "?" and str(D(7)) == "7"
    assert int(D(3)) == 3
    assert [10, 11, 12][D(1)] == 11
    assert bool(D(0)) is False and bool(D(None)) is False and bool(D(2)) is True
    with pytest.raises(TypeError):
        int(D(None))
    with pytest.raises(TypeError, match="unhashable"):
        hash(D(3))


def test_dimension_equality_with_unknowns():
    assert (D(3) == 3) is True
    assert (D(3) == D(None)) is None
    assert (D(None) == D(None)) is None
    assert (D(3) != 4) is True
    assert (D(None) != 3) is None
    assert (D(3) == "a") is False
    assert (D(3) == 3.0) is False
    assert (D(3) == None) is None  # noqa: E711 - TF1 semantics under test


def test_dimension_ordering():
    assert (D(3) < 4) is True
    assert (D(3) >= D(3)) is True
    assert (D(3) > 4) is False
    assert (D(None) < 4) is None
    assert (D(3) <= D(None)) is None
    with pytest.raises(TypeError):
        D(2) < "x"


def test_dimension_arithmetic():
    assert (D(3) + 4).value == 7 and (4 + D(3)).value == 7
    assert (D(3) - 1).value == 2 and (10 - D(3)).value == 7
    assert (D(3) * 2).value == 6 and (2 * D(3)).value == 6
    assert (D(7) // 2).value == 3 and (7 // D(2)).value == 3
    assert (D(7) % 3).value == 1 and (7 % D(3)).value == 1
    for result in (D(3) * D(None), D(None) + 1, 1 - D(None), D(None) // 2, D(None) % 2):
        assert isinstance(result, D) and result.value is None
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        D(1) - 2
    with pytest.raises(TypeError, match=r"for /: 'Dimension' and 'int', please use // instead"):
        D(3) / 2
    with pytest.raises(TypeError, match=r"for /: 'int' and 'Dimension', please use // instead"):
        3 / D(2)
    with pytest.raises(TypeError, match="unsupported operand"):
        D(2) + "x"


def test_dimension_merge_and_compat():
    assert D(None).merge_with(3).value == 3
    assert D(3).merge_with(None).value == 3
    assert D(None).merge_with(None).value is None
    assert D(3).is_compatible_with(D(None)) and not D(2).is_compatible_with(3)
    with pytest.raises(ValueError, match=r"^Dimensions 2 and 3 are not compatible$"):
        D(2).merge_with(3)
    with pytest.raises(ValueError, match=r"^Dimensions 2 and 3 are not compatible$"):
        D(2).assert_is_compatible_with(D(3))


def test_dimension_pickle():
    assert pickle.loads(pickle.dumps(D(None))).value is None
    assert pickle.loads(pickle.dumps(D(4))).value == 4


# ----- TensorShape construction and display -------------------------------------

def test_shape_repr_and_str_are_tf1():
    assert repr(S([2, None])) == "TensorShape([Dimension(2), Dimension(None)])"
    assert repr(S(None)) == "TensorShape(None)"
    assert repr(S([])) == "TensorShape([])"
    assert str(S([2, None])) == "(2, ?)"
    assert str(S([3])) == "(3,)"
    assert str(S([])) == "()"
    assert str(S(None)) == "<unknown>"


def test_shape_construction_forms():
    assert S([D(3), D(None)]).as_list() == [3, None]
    assert S((1, 2)).as_list() == [1, 2]
    assert S(3).as_list() == [3]
    assert S(np.array([2, 3])).as_list() == [2, 3]
    assert S(x for x in [1, None]).as_list() == [1, None]
    assert S(S([1])).as_list() == [1]
    assert S([np.int32(3), np.int64(4)]).as_list() == [3, 4]
    assert [type(d) for d in S([np.int32(3)]).as_list()] == [int]
    assert S([2 ** 40]).as_list() == [2 ** 40]


def test_shape_construction_errors():
    with pytest.raises(ValueError, match=r"^Dimension -1 must be >= 0$"):
        S([-1])
    with pytest.raises(TypeError, match="got value '2.5'"):
        S([2.5])
    with pytest.raises(TypeError, match=r"got value '\[1\]'"):
        S([[1]])
    with pytest.raises(TypeError, match=r"Failed to convert ''ab'' to a shape"):
        S("ab")


def test_indexing_gives_dimensions():
    shape = S([2, None])
    assert isinstance(shape[0], D) and shape[0].value == 2
    assert shape[1].value is None
    assert shape[-1].value is None
    assert [d.value for d in shape] == [2, None]
    assert all(isinstance(d, D) for d in shape)
    assert [d.value for d in shape.dims] == [2, None]
    assert 2 in shape
    with pytest.raises(IndexError):
        S([2])[5]


def test_slicing():
    assert S([1, 2, 3])[1:].as_list() == [2, 3]
    assert S([1, 2, 3])[::2].as_list() == [1, 3]
    assert isinstance(S([1, 2, 3])[1:], S)
    unknown = S(None)
    assert unknown[3].value is None
    assert unknown[1:3].as_list() == [None, None]
    assert unknown[1:].rank is None
    assert unknown[-2:].rank is None
    with pytest.raises(ValueError, match="Steps are not yet handled"):
        unknown[::2]


def test_unknown_rank_behaviour():
    unknown = S(None)
    assert unknown.rank is None and unknown.ndims is None and unknown.dims is None
    assert not unknown and S([])
    with pytest.raises(ValueError,
                       match=r"^as_list\(\) is not defined on an unknown TensorShape\.$"):
        unknown.as_list()
    with pytest.raises(ValueError, match="Cannot iterate over a shape with unknown rank."):
        list(unknown)
    with pytest.raises(ValueError, match="Cannot take the length of shape with unknown rank."):
        len(unknown)


def test_rank_len_num_elements():
    assert S([1, 2]).rank == 2 and S([1]).ndims == 1 and len(S([4, 5, 6])) == 3
    assert S([2, 3]).num_elements() == 6
    assert S([]).num_elements() == 1
    assert S([2, None]).num_elements() is None
    assert S(None).num_elements() is None
    assert S([]).is_fully_defined() and not S(None).is_fully_defined()
    assert not S([1, None]).is_fully_defined()
    with pytest.raises(ValueError, match=r"^Shape \(1, \?\) is not fully defined$"):
        S([1, None]).assert_is_fully_defined()
    S([1, 2]).assert_is_fully_defined()


# ----- combining ---------------------------------------------------------------

def test_merge_with():
    assert S([2, None]).merge_with([None, 4]).as_list() == [2, 4]
    assert S(None).merge_with([1]).as_list() == [1]
    assert S([1]).merge_with(None).as_list() == [1]
    with pytest.raises(ValueError, match=r"^Shapes \(2, 3\) and \(2, 4\) are not compatible$"):
        S([2, 3]).merge_with([2, 4])
    with pytest.raises(ValueError, match=r"^Shapes \(2, 3\) and \(2,\) are not compatible$"):
        S([2, 3]).merge_with([2])
    with pytest.raises(ValueError, match=r"^Shapes \(1, \?\) and \(2, \?\) are not compatible$"):
        S([1, None]).merge_with([2, None])


def test_compatibility():
    assert S([2, None]).is_compatible_with([2, 3])
    assert not S([2]).is_compatible_with([2, 3])
    assert S(None).is_compatible_with([1])
    assert not S([32, 784]).is_compatible_with([4, 4])
    with pytest.raises(ValueError, match=r"^Shapes \(2, 3\) and \[2, 4\] are incompatible$"):
        S([2, 3]).assert_is_compatible_with([2, 4])
    assert S([2, 1]).most_specific_compatible_shape([5, 1]).as_list() == [None, 1]
    assert S([2]).most_specific_compatible_shape([2, 1]).rank is None
    assert S(None).most_specific_compatible_shape([1]).rank is None


def test_concatenate_and_add():
    assert S([1]).concatenate([2, None]).as_list() == [1, 2, None]
    assert S([1]).concatenate(S(None)).rank is None
    assert S(None).concatenate([1]).rank is None
    assert (S([1]) + [3]).as_list() == [1, 3]
    assert ([3] + S([1])).as_list() == [3, 1]


def test_rank_assertions():
    assert S(None).with_rank(2).as_list() == [None, None]
    assert S([1, 2]).with_rank(2).as_list() == [1, 2]
    with pytest.raises(ValueError, match=r"^Shape \(1,\) must have rank 2$"):
        S([1]).with_rank(2)
    with pytest.raises(ValueError, match=r"^Shape \(1,\) must have rank at least 2$"):
        S([1]).with_rank_at_least(2)
    with pytest.raises(ValueError, match=r"^Shape \(1, 2, 3\) must have rank at most 2$"):
        S([1, 2, 3]).with_rank_at_most(2)
    assert S(None).with_rank_at_least(5).rank is None
    assert S([1, 2]).with_rank_at_most(2).as_list() == [1, 2]
    with pytest.raises(ValueError, match=r"^Shape \(1,\) must have rank 2$"):
        S([1]).assert_has_rank(2)
    S(None).assert_has_rank(3)
    with pytest.raises(ValueError, match=r"^Shapes \(1,\) and \(1, 2\) must have the same rank$"):
        S([1]).assert_same_rank([1, 2])
    S(None).assert_same_rank([1, 2])


def test_equality_and_hash():
    assert S([1, None]) == S([1, None])
    assert S([1, 2]) == [1, 2]
    assert S(None) == S(None)
    assert S(None) != S([1])
    assert not (S([1]) == "x")
    assert not (S([1]) == object())
    assert (S([1]) == None) is False  # noqa: E711
    assert hash(S([1, 2])) == hash(S([1, 2]))
    assert {S([1, 2]): "a"}[S([1, 2])] == "a"


def test_subtype_and_supertype():
    assert S([32, 784]).is_subtype_of(S([None, 784]))
    assert S([32, 784]).is_subtype_of(S(None))
    assert not S([32, 784]).is_subtype_of(S([4, 4]))
    assert not S([1]).is_subtype_of([1])
    common = S([2, 1]).most_specific_common_supertype([S([5, 1])])
    assert common.as_list() == [None, 1]
    assert S([1, 2]).most_specific_common_supertype([S([1])]).rank is None
    assert S([1]).most_specific_common_supertype([[1]]) is None


def test_pickle_shape():
    for shape in (S([1, None]), S(None), S([])):
        assert pickle.loads(pickle.dumps(shape)) == shape


# ----- helpers -------------------------------------------------------------------

def test_helpers():
    assert ts.unknown_shape().rank is None
    assert ts.unknown_shape(2).as_list() == [None, None]
    assert ts.unknown_shape(ndims=1).as_list() == [None]
    with pytest.raises(TypeError, match=r"Unknown argument: \{'foo': 1\}"):
        ts.unknown_shape(foo=1)
    assert ts.scalar().as_list() == []
    assert ts.vector(4).as_list() == [4]
    assert ts.vector(None).as_list() == [None]
    assert ts.matrix(2, None).as_list() == [2, None]
    assert ts.as_dimension(3).value == 3
    dim = D(5)
    assert ts.as_dimension(dim) is dim
    shape = S([1])
    assert ts.as_shape(shape) is shape
    assert ts.as_shape([1, 2]).as_list() == [1, 2]
    assert ts.dimension_value(D(3)) == 3
    assert ts.dimension_value(4) == 4
    assert ts.dimension_value(None) is None
    assert ts.dimension_at_index(S(None), 3).value is None
    assert ts.dimension_at_index(S([1, 2]), 1).value == 2


# ----- TensorShapeProto --------------------------------------------------------------

def test_as_proto_bytes_match_tensorflow():
    # Serialized bytes recorded from TF 2.21's TensorShape(...).as_proto().
    assert S([2, None]).as_proto().SerializeToString().hex() == "12020802120b08ffffffffffffffffff01"
    assert S(None).as_proto().SerializeToString().hex() == "1801"
    assert S([]).as_proto().SerializeToString() == b""


def test_from_proto_round_trip():
    from trainflow._src.protos import tensor_shape_pb2
    proto = tensor_shape_pb2.TensorShapeProto()
    proto.dim.add(size=3)
    proto.dim.add(size=-1)
    assert S(proto).as_list() == [3, None]
    assert S(S([4, None, 0]).as_proto()).as_list() == [4, None, 0]
    assert S(tensor_shape_pb2.TensorShapeProto(unknown_rank=True)).rank is None
    bad = tensor_shape_pb2.TensorShapeProto()
    bad.dim.add(size=-2)
    with pytest.raises(ValueError, match="Dimension -2 must be >= 0"):
        S(bad)


def test_module_imports_no_protos():
    code = ("import sys, trainflow; before = set(sys.modules); "
            "import trainflow._src.framework.tensor_shape; "
            "print(sorted(m for m in set(sys.modules) - before "
            "if m.startswith(('trainflow._src.protos', 'google.protobuf'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


# ----- against TensorFlow itself ----------------------------------------------------------

# Each expression runs with S = TensorShape, D = Dimension, U = unknown_shape.
EXPRESSIONS = [
    "repr(S([2, None]))", "str(S([2, None]))", "str(S([5]))", "repr(S(None))",
    "repr(S(None)[1:3])", "repr(S([1, 2, 3])[::2])", "repr(list(S([1, None])))",
    "repr(S([2, 3]).merge_with([2, 4]))", "repr(S([2, None]).merge_with([None, 4]))",
    "repr(S([2, 3]).merge_with([2]))", "repr(S([2, 3]).assert_is_compatible_with([2, 4]))",
    "repr(S([1, None]) == S([1, None]))", "repr(S(None) == S([1]))",
    "repr(S([2, 1]).most_specific_compatible_shape([5, 1]))", "repr(S([1]).with_rank(2))",
    "repr(S(None).with_rank(2))", "repr(S([1, 2, 3]).with_rank_at_most(2))",
    "repr(S([1]).with_rank_at_least(2))", "repr(S([1, None]).assert_is_fully_defined())",
    "repr(S([1]).assert_same_rank([1, 2]))", "repr(S(None).as_list())",
    "repr(S([2, 3]).num_elements())", "repr(S([1]).concatenate(S(None)))",
    "repr((D(3) + D(None), D(7) // 2, 7 % D(3), D(3) < D(None), D(3) == D(None)))",
    "repr(D(2).merge_with(3))", "repr(D(-1))", "repr(D(2.0))", "repr(D(3) / 2)",
    "repr(U(3))", "repr(S(3))", "repr(S([-1]))",
    "S([4, None]).as_proto().SerializeToString().hex()",
    "S(None).as_proto().SerializeToString().hex()", "repr(S(S([1, None]).as_proto()))",
]

_TF_SCRIPT = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
from tensorflow.python.framework import tensor_shape as ts
S, D, U = ts.TensorShape, ts.Dimension, ts.unknown_shape
out = []
for expr in json.loads(sys.stdin.read()):
    try:
        out.append(["ok", eval(expr)])
    except Exception as e:
        out.append([type(e).__name__, str(e)])
print(json.dumps(out))
"""


def _evaluate_here(expr):
    env = {"S": S, "D": D, "U": ts.unknown_shape}
    try:
        return ["ok", eval(expr, env)]
    except Exception as e:  # noqa: BLE001 - recorded for comparison
        return [type(e).__name__, str(e)]


@needs_tf
def test_expressions_agree_with_tensorflow():
    expected = run_json(_TF_SCRIPT, spec=EXPRESSIONS)
    for expr, want in zip(EXPRESSIONS, expected):
        assert _evaluate_here(expr) == want, expr
