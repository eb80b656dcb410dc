"""apply_op (TF's op_def_library): input conversion, dtype inference and checks, attrs;
plus the signature parser (op_def) and the registry it reads.

Messages follow those TensorFlow 2.21 gives for the same mistakes.
"""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry
from trainflow._src.framework.dtypes import float32_ref, float64_ref
from trainflow._src.framework.op_builder import apply_op, output_dtypes
from trainflow._src.framework.op_def import OpDef, parse_arg, parse_attr
from trainflow._src.framework.shape_inference import unchanged_shape, unknown_shapes

_OPS = {
    "TestBuilderAdd": dict(inputs=["x: T", "y: T"], outputs=["z: T"],
                           attrs=["T: {float, double, int32, int64}"]),
    "TestBuilderN": dict(inputs=["values: N * T"], outputs=["out: T"],
                         attrs=["N: int >= 1", "T: type"]),
    "TestBuilderAttrs": dict(inputs=["x: float"], outputs=["y: float"],
                             attrs=["flag: bool = false", "n: int >= 2 = 3", "f: float = 0.5",
                                    "s: {'A', 'B'} = 'A'", "shape: shape = []",
                                    "dtype: {float, int32} = DT_FLOAT", "ints: list(int) = []",
                                    "types: list(type) >= 0 = []"]),
    "TestBuilderList": dict(inputs=["values: Tlist"], outputs=["out: Tlist"],
                            attrs=["Tlist: list(type)"]),
    "TestBuilderRef": dict(inputs=["ref: Ref(T)", "value: T"], outputs=["out: Ref(T)"],
                           attrs=["T: type"]),
    "TestBuilderFixed": dict(inputs=["x: int32"], outputs=["y: int32"]),
    "TestBuilderDefaultT": dict(inputs=["x: T"], outputs=["y: T"],
                                attrs=["T: {int32, int64} = DT_INT64"]),
}
for _name, _spec in _OPS.items():
    if not registry.is_registered(_name):
        registry.register_op(_name, shape_fn=unknown_shapes, **_spec)


def _op(op_type, **kwargs):
    return apply_op(op_type, **kwargs)


@pytest.fixture
def g():
    g = tf.Graph()
    with g.as_default():
        yield g


def _dtypes(op):
    return [t.dtype.name for t in op.inputs]


class TestInputConversion:
    def test_python_values_take_the_dtype_of_tensor_inputs(self, g):
        f = tf.constant(1.0)
        d = tf.constant(1.0, tf.float64)
        assert _dtypes(_op("TestBuilderAdd", x=1, y=f)) == ["float32", "float32"]
        assert _dtypes(_op("TestBuilderAdd", x=f, y=1)) == ["float32", "float32"]
        assert _dtypes(_op("TestBuilderAdd", x=d, y=1.5)) == ["float64", "float64"]
        assert _dtypes(_op("TestBuilderAdd", x=1.5, y=d)) == ["float64", "float64"]
        assert _dtypes(_op("TestBuilderAdd", x=np.float64(2), y=f)) == ["float32", "float32"]
        assert _dtypes(_op("TestBuilderAdd", x=1, y=2)) == ["int32", "int32"]
        assert _dtypes(_op("TestBuilderAdd", x=1.5, y=2)) == ["float32", "float32"]
        op = _op("TestBuilderAdd", x=1, y=f, name="named")
        assert op.name == "named" and op.inputs[0].op.name == "named/x"
        assert op.get_attr("T") is tf.float32

    def test_python_values_keep_their_own_dtype_over_the_attr_default(self, g):
        # TF 2.21: gen_array_ops.one_hot(indices=1, ...) gets int32 indices although
        # TI defaults to int64; the default only serves values with no dtype of their own.
        assert _dtypes(_op("TestBuilderDefaultT", x=1)) == ["int32"]
        assert _dtypes(_op("TestBuilderDefaultT", x=tf.constant(1))) == ["int32"]

    @pytest.mark.parametrize("x, y, exc, message", [
        ("i", "f", TypeError, "Input 'y' of 'TestBuilderAdd' Op has type float32 that does not "
                              "match type int32 of argument 'x'."),
        ("f", "i", TypeError, "Input 'y' of 'TestBuilderAdd' Op has type int32 that does not "
                              "match type float32 of argument 'x'."),
        ("f", "d", TypeError, "Input 'y' of 'TestBuilderAdd' Op has type float64 that does "
                              "not match type float32 of argument 'x'."),
        ("i", 1.5, TypeError, "Expected int32 passed to parameter 'y' of op 'TestBuilderAdd', "
                              "got 1.5 of type 'float' instead. Error: Expected int32, but got "
                              "1.5 of type 'float'."),
        (1.5, "i", TypeError, "Expected int32 passed to parameter 'x' of op 'TestBuilderAdd', "
                              "got 1.5 of type 'float' instead."),
        ("f", "x", TypeError, "Expected float32 passed to parameter 'y' of op "
                              "'TestBuilderAdd', got 'x' of type 'str' instead."),
        ("f", None, ValueError, "Tried to convert 'y' to a tensor and failed. Error: None "
                                "values not supported."),
        ("b", "b", TypeError, "Value passed to parameter 'x' has DataType bool not in list of "
                              "allowed values: float32, float64, int32, int64"),
    ])
    def test_dtype_errors(self, g, x, y, exc, message):
        values = {"i": tf.constant(1), "f": tf.constant(1.0), "d": tf.constant(1.0, tf.float64),
                  "b": tf.constant(True)}
        with pytest.raises(exc) as info:
            _op("TestBuilderAdd", x=values.get(x, x) if isinstance(x, str) else x,
                y=values.get(y, y) if isinstance(y, str) else y)
        assert str(info.value).startswith(message), str(info.value)

    def test_missing_and_unexpected_arguments(self, g):
        with pytest.raises(TypeError, match="TestBuilderAdd missing required input 'y'"):
            _op("TestBuilderAdd", x=1.0)
        with pytest.raises(TypeError, match="TestBuilderAdd got unexpected keyword arguments: "
                           "foo"):
            _op("TestBuilderAdd", x=1.0, y=1.0, foo=3)

    def test_fixed_types_and_refs(self, g):
        with pytest.raises(TypeError, match="Input 'x' of 'TestBuilderFixed' Op has type "
                           "float32 that does not match expected type of int32."):
            _op("TestBuilderFixed", x=tf.constant(1.0))
        assert _dtypes(_op("TestBuilderFixed", x=3)) == ["int32"]
        with pytest.raises(TypeError, match="'TestBuilderRef' Op requires that input 'ref' be "
                           r"a mutable tensor \(e.g.: a tf.Variable\)"):
            _op("TestBuilderRef", ref=tf.constant(1.0), value=2.0)
        from trainflow._src.ops.state import state_ops
        v = state_ops.variable_op_v2([], tf.float32)
        op = _op("TestBuilderRef", ref=v, value=2)
        assert _dtypes(op) == ["float32_ref", "float32"]
        assert op.outputs[0].dtype == float32_ref


class TestListInputs:
    def test_number_lists(self, g):
        i, f = tf.constant(1), tf.constant(1.0)
        op = _op("TestBuilderN", values=[i, 2])
        assert op.get_attr("N") == 2 and _dtypes(op) == ["int32", "int32"]
        assert op.inputs[1].op.name == "TestBuilderN/values_1"
        assert _dtypes(_op("TestBuilderN", values=[1, f])) == ["float32", "float32"]

    @pytest.mark.parametrize("values, exc, message", [
        ("if", TypeError, "Tensors in list passed to 'values' of 'TestBuilderN' Op have types "
                          "[int32, float32] that don't all match."),
        ([], ValueError, "List argument 'values' to 'TestBuilderN' Op with length 0 shorter "
                         "than minimum length 1."),
        ("i", TypeError, "Expected list for 'values' argument to 'TestBuilderN' Op, not "),
    ])
    def test_number_list_errors(self, g, values, exc, message):
        i, f = tf.constant(1), tf.constant(1.0)
        if values == "if":
            values = [i, f]
        elif values == "i":
            values = i
        with pytest.raises(exc) as info:
            _op("TestBuilderN", values=values)
        assert str(info.value).startswith(message), str(info.value)

    def test_mixed_python_values_in_a_list(self, g):
        with pytest.raises(TypeError, match=r"have types \[int32, float32\] that don't all "
                           "match"):
            _op("TestBuilderN", values=[1, 2.5])
        with pytest.raises(TypeError, match="Expected int32 passed to parameter 'values'"):
            _op("TestBuilderN", values=[tf.constant(1), 2.5])

    def test_type_lists(self, g):
        op = _op("TestBuilderList", values=[tf.constant(1), 2.0, "s"])
        assert op.get_attr("Tlist") == [tf.int32, tf.float32, tf.string]
        assert [t.dtype for t in op.outputs] == [tf.int32, tf.float32, tf.string]
        op = _op("TestBuilderList", values=[1, 2], Tlist=[tf.int64, tf.float32])
        assert _dtypes(op) == ["int64", "float32"]


class TestAttrs:
    def test_defaults_and_values(self, g):
        op = _op("TestBuilderAttrs", x=1.0)
        assert [op.get_attr(a) for a in ("flag", "n", "f", "s", "dtype", "ints", "types")] == \
            [False, 3, 0.5, b"A", tf.float32, [], []]
        assert op.get_attr("shape").dim == []
        op = _op("TestBuilderAttrs", x=1.0, flag=np.bool_(True), n=2.0, f=2, s="B",
                 shape=[2, None], dtype="int32", ints=(1, 2), types=[np.float64],
                 _class=[b"loc:@x"])
        assert op.get_attr("flag") is True and op.get_attr("n") == 2
        assert op.get_attr("f") == 2.0 and op.get_attr("s") == b"B"
        assert [d.size for d in op.get_attr("shape").dim] == [2, -1]
        assert op.get_attr("dtype") is tf.int32 and op.get_attr("ints") == [1, 2]
        assert op.get_attr("types") == [tf.float64] and op.get_attr("_class") == [b"loc:@x"]

    @pytest.mark.parametrize("kwargs, exc, message", [
        ({"flag": 1}, TypeError, "Expected bool for argument 'flag' not 1."),
        ({"flag": "yes"}, TypeError, "Expected bool for argument 'flag' not 'yes'."),
        ({"n": "a"}, TypeError, "Expected int for argument 'n' not 'a'."),
        ({"n": 1}, ValueError, "Attr 'n' of 'TestBuilderAttrs' Op passed 1 less than minimum "
                               "2."),
        ({"f": "x"}, TypeError, "Expected float for argument 'f' not 'x'."),
        ({"s": "C"}, ValueError, "Attr 's' of 'TestBuilderAttrs' Op passed string 'C' not in: "
                                 "\"A\", \"B\"."),
        ({"s": 5}, TypeError, "Expected string for argument 's' not 5."),
        ({"dtype": "floatx"}, TypeError, "Expected DataType for argument 'dtype' not "
                                         "'floatx'."),
        ({"dtype": tf.float64}, TypeError, "Value passed to parameter 'dtype' has DataType "
                                           "float64 not in list of allowed values: float32, "
                                           "int32"),
        ({"shape": [1, "a"]}, TypeError, "Error converting shape to a TensorShape: "),
        ({"ints": 5}, TypeError, "Expected list for attr ints, obtained int instead."),
    ])
    def test_bad_attrs(self, g, kwargs, exc, message):
        with pytest.raises(exc) as info:
            _op("TestBuilderAttrs", x=1.0, **kwargs)
        assert str(info.value).startswith(message), str(info.value)

    def test_ref_dtypes_are_stored_as_base_dtypes(self, g):
        op = _op("TestBuilderAttrs", x=1.0, dtype=float32_ref)
        assert op.get_attr("dtype") is tf.float32


def test_op_goes_to_the_graph_of_its_inputs():
    g1 = tf.Graph()
    with g1.as_default():
        a = tf.constant(1.0)
    with tf.Graph().as_default() as g2:
        op = _op("TestBuilderAdd", x=a, y=2.0)
    assert op.graph is g1 and op.inputs[1].graph is g1
    assert g2.get_operations() == []
    with tf.Graph().as_default():
        b = tf.constant(1.0)
    with pytest.raises(ValueError, match="must be from the same graph"):
        _op("TestBuilderAdd", x=a, y=b)


def test_output_dtypes():
    info = registry.get("TestBuilderList")
    assert output_dtypes(info, {"Tlist": [tf.int32, tf.string]}) == [tf.int32, tf.string]
    info = registry.get("TestBuilderRef")
    assert output_dtypes(info, {"T": tf.float64}) == [float64_ref]
    info = registry.get("TestBuilderN")
    assert output_dtypes(info, {"T": tf.int64, "N": 3}) == [tf.int64]


class TestOpDef:
    @pytest.mark.parametrize("spec, kind, default, minimum", [
        ("N: int >= 1", "int", None, 1),
        ("N: int >= 2 = 3", "int", 3, 2),
        ("axis: int = 0", "int", 0, None),
        ("keep_dims: bool = false", "bool", False, None),
        ("T: type", "type", None, None),
        ("Tidx: {int32, int64} = DT_INT32", "type", tf.int32, None),
        ("shape: shape", "shape", None, None),
        ("value: tensor", "tensor", None, None),
        ("dtypes: list(type) >= 1", "list(type)", None, 1),
        ("ints: list(int) = [1, 2]", "list(int)", [1, 2], None),
        ("f: float = 0.5", "float", 0.5, None),
        ("name: string = ''", "string", b"", None),
        ("T: list({float, int32}) >= 1", "list(type)", None, 1),
    ])
    def test_parse_attr(self, spec, kind, default, minimum):
        a = parse_attr(spec)
        assert (a.kind, a.default, a.minimum, a.has_default) == \
            (kind, default, minimum, default is not None)

    def test_allowed_values(self):
        assert parse_attr("padding: {'SAME', 'VALID'}").allowed == [b"SAME", b"VALID"]
        assert parse_attr("T: {half, float, double}").allowed == [tf.float16, tf.float32,
                                                                   tf.float64]
        assert parse_attr("T: list({float, int32})").allowed == [tf.float32, tf.int32]
        assert parse_attr("s: shape = [2, -1]").default.as_list() == [2, None]

    def test_parse_args(self):
        attrs = {a.name: a for a in map(parse_attr, ["T: type", "N: int", "L: list(type)"])}
        x = parse_arg("x: T", attrs)
        assert (x.name, x.type_attr, x.is_list, x.is_ref) == ("x", "T", False, False)
        v = parse_arg("values: N * T", attrs)
        assert (v.number_attr, v.type_attr, v.is_list) == ("N", "T", True)
        r = parse_arg("ref: Ref(T)", attrs)
        assert r.is_ref and r.type_attr == "T"
        assert parse_arg("l: L", attrs).type_list_attr == "L"
        assert parse_arg("shape: int32", attrs).type is tf.int32
        assert parse_arg("x: float", attrs).type is tf.float32
        with pytest.raises(ValueError, match="Bad op argument spec"):
            parse_arg("no colon", attrs)
        with pytest.raises(ValueError, match="names attr 'N' that is not a type"):
            parse_arg("x: N", attrs)

    def test_op_def(self):
        d = OpDef("X", ["a: T"], ["b: T"], ["T: type"])
        assert d.name == "X" and list(d.attrs) == ["T"]
        assert [a.name for a in d.inputs] == ["a"] and [a.name for a in d.outputs] == ["b"]


class TestRegistry:
    def test_lookup(self):
        assert registry.is_registered("TestBuilderAdd")
        assert "TestBuilderAdd" in registry.registered_names()
        assert registry.get("TestBuilderAdd").name == "TestBuilderAdd"
        with pytest.raises(KeyError, match="Op type not registered 'NoSuchOpType' in "
                           "trainflow"):
            registry.get("NoSuchOpType")

    def test_duplicate_registration(self):
        with pytest.raises(KeyError, match="Op type 'TestBuilderAdd' is already registered"):
            registry.register_op("TestBuilderAdd")

    def test_kernel_signature_binding(self):
        def kernel(x, y, *, T, ctx):
            return x
        info = registry.get("TestBuilderAdd")
        old = info.kernel
        info.set_kernel(kernel)
        try:
            assert info.kernel_attrs == ("T",) and info.kernel_wants_ctx
        finally:
            info.set_kernel(old)

    def test_gradients(self):
        if not registry.is_registered("TestBuilderGrad"):
            registry.register_op("TestBuilderGrad", inputs=["x: float"], outputs=["y: float"],
                                 shape_fn=unchanged_shape)
        assert registry.get_gradient("TestBuilderGrad") == (False, None)

        @registry.RegisterGradient("TestBuilderGrad")
        def _grad(op, grad):
            return grad
        assert registry.get_gradient("TestBuilderGrad") == (True, _grad)
        assert registry.get("TestBuilderGrad").has_gradient
        with pytest.raises(KeyError, match="Registering two gradient with name "
                           "'TestBuilderGrad'"):
            registry.RegisterGradient("TestBuilderGrad")(_grad)
        registry.NotDifferentiable("TestBuilderNoGrad")
        assert registry.get_gradient("TestBuilderNoGrad") == (True, None)
        with pytest.raises(TypeError, match="op_type must be a string"):
            registry.RegisterGradient(5)
