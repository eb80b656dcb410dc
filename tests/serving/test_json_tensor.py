"""TF Serving's JSON: number formatting, the PrettyWriter layout, predict requests in both
formats with their error messages, and predict responses (cases from TF Serving's
json_tensor_test.cc and http_rest_api_handler_test.cc)."""
import json

import numpy as np
import pytest

from trainflow._src.serving import json_tensor as jt
from trainflow._src.serving.json_writer import error_json, format_decimal
from trainflow._src.serving.status import ServingError

DT_FLOAT, DT_DOUBLE, DT_INT32, DT_STRING, DT_INT64, DT_BOOL = 1, 2, 3, 7, 9, 10


@pytest.mark.parametrize("value, bits, text", [
    (2.5, 32, "2.5"), (3.0, 32, "3.0"), (0.2, 32, "0.2"), (1e6, 32, "1e+06"),
    (3e-05, 32, "3e-05"), (1 / 3, 32, "0.333333343"), (1 / 3, 64, "0.33333333333333331"),
    (float("nan"), 32, "NaN"), (float("inf"), 32, "Infinity"), (-float("inf"), 64, "-Infinity"),
    (-42.0, 32, "-42.0"), (123456.0, 32, "123456.0"), (1234567.0, 32, "1234567.0"),
])
def test_format_decimal(value, bits, text):
    assert format_decimal(np.float32(value) if bits == 32 else value, bits) == text


def test_error_body():
    assert error_json('no "x"') == '{\n    "error": "no \\"x\\""\n}'


def test_strings_escaped_as_rapidjson_does():
    assert jt.predict_response({"s": np.array(["\x1f\té/\\".encode()], object)}, jt.ROW) == \
        '{\n    "predictions": ["\\u001F\\té/\\\\"\n    ]\n}'


ROW_CASES = [
    # (outputs, the predictions text)
    ({"y": np.array([2.5, 3.0], np.float32)}, '{\n    "predictions": [2.5, 3.0\n    ]\n}'),
    ({"y": np.array([[1, 2], [3, 4]], np.int32)},
     '{\n    "predictions": [[1, 2], [3, 4]\n    ]\n}'),
    ({"a": np.array([True]), "b": np.array([[0.5]], np.float64)},
     '{\n    "predictions": [\n        {\n            "a": true,\n            "b": [0.5]\n'
     '        }\n    ]\n}'),
    ({"s": np.array([b"ab"], object)}, '{\n    "predictions": ["ab"\n    ]\n}'),
    ({"s_bytes": np.array([b"\x00\xff"], object)},
     '{\n    "predictions": [{\n            "b64": "AP8="\n        }\n    ]\n}'),
]


@pytest.mark.parametrize("outputs, text", ROW_CASES)
def test_row_response(outputs, text):
    assert jt.predict_response(outputs, jt.ROW) == text


COLUMNAR_CASES = [
    ({"y": np.array([3.5, 4.0], np.float32)},
     '{\n    "outputs": [\n        3.5,\n        4.0\n    ]\n}'),
    ({"y": np.float32(7)}, '{\n    "outputs": 7.0\n}'),
    ({"a": np.array([1], np.int64), "b": np.array(b"x", object)},
     '{\n    "outputs": {\n        "a": [\n            1\n        ],\n        "b": "x"\n    }\n}'),
]


@pytest.mark.parametrize("outputs, text", COLUMNAR_CASES)
def test_columnar_response(outputs, text):
    assert jt.predict_response(outputs, jt.COLUMNAR) == text


@pytest.mark.parametrize("outputs, message", [
    ({"y": np.float32(1)}, "Tensor name: y has no shape information "),
    ({"a": np.zeros(2), "b": np.zeros(3)},
     "Tensor name: b has inconsistent batch size: 3 expecting: 2"),
    ({"h": np.zeros(2, np.float16)}, "Failed to write JSON value for tensor type: float16"),
    ({}, "Cannot convert empty tensor map to JSON"),
])
def test_response_errors(outputs, message):
    with pytest.raises(ServingError) as e:
        jt.predict_response(outputs, jt.ROW)
    assert e.value.message == message and e.value.http_status == 400


ONE_FLOAT = {"x": DT_FLOAT}
TWO = {"x": DT_FLOAT, "k": DT_INT64}
REQUEST_CASES = [
    # (body, inputs, signature_name, format, {name: (dtype, values)})
    ('{"instances": [[1.0, 2.0], [3.0, 4.0]]}', ONE_FLOAT, "", jt.ROW,
     {"x": (np.float32, [[1, 2], [3, 4]])}),
    ('{"signature_name": "s", "inputs": [3, 4]}', ONE_FLOAT, "s", jt.COLUMNAR,
     {"x": (np.float32, [3, 4])}),
    ('{"instances": [{"x": [1], "k": 2}, {"x": [3], "k": 4}]}', TWO, "", jt.ROW,
     {"x": (np.float32, [[1], [3]]), "k": (np.int64, [2, 4])}),
    ('{"inputs": {"x": 1.5, "k": [[1, 2]]}}', TWO, "", jt.COLUMNAR,
     {"x": (np.float32, 1.5), "k": (np.int64, [[1, 2]])}),
    ('{"instances": [{"b64": "aGk="}, "yo"]}', {"s": DT_STRING}, "", jt.ROW,
     {"s": (object, [b"hi", b"yo"])}),
    ('{"inputs": {"b64": "AAE="}}', {"s": DT_STRING}, "", jt.COLUMNAR,
     {"s": (object, b"\x00\x01")}),
    ('{"instances": [true, false]} trailing', {"b": DT_BOOL}, "", jt.ROW,
     {"b": (np.bool_, [True, False])}),
    ('{"instances": [NaN, Infinity]}', {"d": DT_DOUBLE}, "", jt.ROW,
     {"d": (np.float64, [np.nan, np.inf])}),
]


@pytest.mark.parametrize("body, inputs, sig, fmt, want", REQUEST_CASES)
def test_predict_request(body, inputs, sig, fmt, want):
    seen = []
    got_sig, got_fmt, arrays = jt.parse_predict_request(
        body.encode(), lambda name: seen.append(name) or inputs)
    assert (got_sig, got_fmt, seen) == (sig, fmt, [sig])
    assert sorted(arrays) == sorted(want)
    for name, (dtype, values) in want.items():
        assert arrays[name].dtype == np.dtype(dtype)
        np.testing.assert_array_equal(arrays[name], np.array(values, dtype=dtype))


ERROR_CASES = [
    ("", ONE_FLOAT, "JSON Parse error: The document is empty"),
    ("instances = [1, 2]", ONE_FLOAT, "JSON Parse error: Invalid value. at offset: 0"),
    ('{"instances": [1,', ONE_FLOAT, "JSON Parse error: Invalid value. at offset: 17"),
    ("[1]", ONE_FLOAT, "JSON Value: [1] Is not object"),
    ('{"instances": ["x", "y"]}', ONE_FLOAT,
     "Failed to process element: 0 of 'instances' list. Error: INVALID_ARGUMENT: JSON Value: "
     '"x" Type: String is not of expected type: float'),
    ('{"signature_name": 100}', ONE_FLOAT,
     'JSON Value: {\n    "signature_name": 100\n} not formatted correctly. '
     "'signature_name' key must be a string value."),
    ('{"instances": [[1], [1, 2]]}', ONE_FLOAT,
     "Failed to process element: 1 of 'instances' list. Error: INVALID_ARGUMENT: Expecting "
     "tensor size: 1 but got: 2"),
    ('{"instances": [[1, 2], [[1], [2]]]}', ONE_FLOAT,
     "Failed to process element: 1 of 'instances' list. Error: INVALID_ARGUMENT: Expecting "
     "shape [2] but got: [2,1]"),
    ('{"instances": [[1, [2]]]}', ONE_FLOAT,
     "Failed to process element: 0 of 'instances' list. Error: INVALID_ARGUMENT: Encountered "
     "list at unexpected level: 1 expected < 1"),
    ('{"instances": [[[1], 2]]}', ONE_FLOAT,
     "Failed to process element: 0 of 'instances' list. Error: INVALID_ARGUMENT: JSON Value: "
     "2 found at incorrect level: 2 in the JSON DOM. Expected at level: 2"),
    ('{"instances": [1.5]}', {"k": DT_INT32},
     "Failed to process element: 0 of 'instances' list. Error: INVALID_ARGUMENT: JSON Value: "
     "1.5 Type: Number is not of expected type: int32"),
    ('{"instances": [{"y": 1}]}', ONE_FLOAT,
     "Failed to process element: 0 key: y of 'instances' list. Error: INVALID_ARGUMENT: JSON "
     "object: does not have named input: y"),
    ('{"instances": [{"x": 1}]}', TWO,
     'Failed to process element: 0 of \'instances\' list. JSON object: {\n    "x": 1\n} keys '
     "must be equal to: k,x"),
    ('{"instances": [1, 2]}', TWO, "instances is a plain list, but expecting list of objects "
                                   "as multiple input tensors required as per tensorinfo_map"),
    ('{"instances": [{"x": 1, "k": 1}, 2]}', TWO, "Expecting object but got list at item 1 of "
                                                  "input list"),
    ('{"instances": [1, {"x": 1}]}', ONE_FLOAT, "Expecting value/list but got object at item "
                                                "1 of input list"),
    ('{"inputs": [1]}', TWO, "inputs is a plain value/list, but expecting an object as "
                             "multiple input tensors required as per tensorinfo_map"),
    ('{"inputs": {"x": 1}}', TWO, "Missing named input: k in 'inputs' object."),
    ('{"instances": []}', ONE_FLOAT, 'JSON Value: {\n    "instances": []\n} No values in '
                                     "'instances' array"),
    ('{"instances": 1}', ONE_FLOAT, 'JSON Value: {\n    "instances": 1\n} Expecting '
                                    "'instances' to be an list/array"),
    ('{"instances": [1], "inputs": [1]}', ONE_FLOAT,
     'JSON Value: {\n    "instances": [1],\n    "inputs": [1]\n} Not formatted correctly '
     "expecting only one of 'inputs' or 'instances' keys to exist "),
    ('{"instancez": [1]}', ONE_FLOAT, "Missing 'inputs' or 'instances' key"),
    ('{"inputs": {"b64": "!!"}}', {"s": DT_STRING}, "Unable to base64 decode"),
    ('{"inputs": [1]}', {}, "Failed to get input map for signature: DEFAULT"),
]


@pytest.mark.parametrize("body, inputs, message", ERROR_CASES)
def test_predict_request_errors(body, inputs, message):
    with pytest.raises(ServingError) as e:
        jt.parse_predict_request(body.encode(), lambda name: inputs)
    assert e.value.message == message
    assert e.value.http_status == 400
    assert json.loads(error_json(e.value.message)) == {"error": message}


def test_unimplemented_dtype_is_501():
    with pytest.raises(ServingError) as e:
        jt.parse_predict_request(b'{"inputs": [1]}', lambda name: {"h": 19})
    assert (e.value.code, e.value.http_status) == ("UNIMPLEMENTED", 501)
    assert e.value.message == "Conversion of JSON Value: 1 to type: half"
