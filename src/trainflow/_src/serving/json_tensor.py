"""TF Serving's JSON: predict requests (row "instances" and columnar "inputs") to arrays, output
arrays to "predictions" / "outputs", classify and regress requests ("examples", "context") to
serialized tf.train.Examples and their results to "results" (tensorflow_serving/util/json_tensor.cc
describes the format; the messages are its messages)."""
import base64
import binascii
import json

import numpy as np

from trainflow._src.serving.json_writer import PrettyWriter, format_decimal
from trainflow._src.serving.status import ServingError, invalid_argument

ROW, COLUMNAR = "row", "columnar"
_INT32 = (-2 ** 31, 2 ** 31 - 1)
_INT64 = (-2 ** 63, 2 ** 63 - 1)
_UINT32 = (0, 2 ** 32 - 1)
_UINT64 = (0, 2 ** 64 - 1)
_MAX_DEBUG_CHARS = 256


def _is_int(v, bounds):
    return type(v) is int and bounds[0] <= v <= bounds[1]


def _is_number(v):
    return type(v) in (int, float)


# DataType enum -> (TF's DataTypeString, the test a JSON value passes, the numpy dtype).
_DTYPES = {
    1: ("float", _is_number, np.float32), 2: ("double", _is_number, np.float64),
    3: ("int32", lambda v: _is_int(v, _INT32), np.int32),
    4: ("uint8", lambda v: _is_int(v, _INT32), np.uint8),
    5: ("int16", lambda v: _is_int(v, _INT32), np.int16),
    6: ("int8", lambda v: _is_int(v, _INT32), np.int8),
    7: ("string", lambda v: type(v) is str, object),
    9: ("int64", lambda v: _is_int(v, _INT64), np.int64),
    10: ("bool", lambda v: type(v) is bool, np.bool_),
    22: ("uint32", lambda v: _is_int(v, _UINT32), np.uint32),
    23: ("uint64", lambda v: _is_int(v, _UINT64), np.uint64),
}
_OTHER_DTYPE_NAMES = {14: "bfloat16", 19: "half", 8: "complex64", 18: "complex128",
                      17: "uint16", 11: "qint8", 12: "quint8", 13: "qint32", 20: "resource",
                      21: "variant"}


def dtype_string(dtype):
    """TF's DataTypeString of a DataType enum value."""
    return _DTYPES[dtype][0] if dtype in _DTYPES else _OTHER_DTYPE_NAMES.get(dtype, str(dtype))


def json_type(v):
    """rapidjson's name for the type of a parsed JSON value."""
    if v is None:
        return "Null"
    if v is True or v is False:
        return "True" if v else "False"
    return {dict: "Object", list: "Array", str: "String"}.get(type(v), "Number")


def _write_value(w, v):
    if isinstance(v, dict):
        w.start_object()
        for k, item in v.items():
            w.key(k)
            _write_value(w, item)
        w.end_object()
    elif isinstance(v, list):
        w.start_array()
        for item in v:
            _write_value(w, item)
        w.end_array()
    elif isinstance(v, str):
        w.string(v)
    else:
        w.raw(json.dumps(v))


def debug_string(v):
    """A parsed JSON value as text for an error message (cut at 256 characters)."""
    w = PrettyWriter()
    w.single_line_arrays = True
    _write_value(w, v)
    return w.text()[:_MAX_DEBUG_CHARS]


def _parse_int(text):
    """An integer as rapidjson holds it: int64 or uint64, else a double."""
    value = int(text)
    return value if _INT64[0] <= value <= _UINT64[1] else float(text)


_DECODER = json.JSONDecoder(parse_int=_parse_int)


def parse_json(body):
    """The request body (bytes) as a JSON object; trailing text after the value is ignored,
    as TF Serving's parser stops when done."""
    text = body.decode("utf-8", "surrogateescape") if isinstance(body, bytes) else body
    stripped = text.lstrip()
    if not stripped:
        raise invalid_argument("JSON Parse error: The document is empty")
    try:
        doc, _ = _DECODER.raw_decode(stripped)
    except json.JSONDecodeError as e:
        offset = e.pos + len(text) - len(stripped)
        raise invalid_argument(f"JSON Parse error: {_parse_message(e.msg)} at offset: "
                               f"{offset}") from None
    if not isinstance(doc, dict):
        raise invalid_argument("JSON Value: ", debug_string(doc), " Is not object")
    return doc


def _parse_message(msg):
    """rapidjson's words for the parse errors Python's json reports."""
    for prefix, words in (("Expecting value", "Invalid value."),
                          ("Expecting property name", "Missing a name for object member."),
                          ("Expecting ':'", "Missing a colon after a name of object member."),
                          ("Unterminated string", "Missing a closing quotation mark in string."),
                          ("Invalid \\escape", "Invalid escape character in string.")):
        if msg.startswith(prefix):
            return words
    if msg.startswith("Expecting ',' delimiter"):
        return "Missing a comma or ']' after an array element."
    return msg + "."


def signature_name_of(doc):
    """The optional "signature_name" of a request ('' when absent)."""
    name = doc.get("signature_name", "")
    if not isinstance(name, str):
        raise invalid_argument("JSON Value: ", debug_string(doc), " not formatted correctly. "
                               "'signature_name' key must be a string value.")
    return name


def is_b64(v):
    return isinstance(v, dict) and len(v) == 1 and isinstance(v.get("b64"), str)


def b64decode(v):
    if not is_b64(v):
        raise invalid_argument("JSON Value: ", debug_string(v),
                               " not formatted correctly for base64 data")
    try:
        return base64.b64decode(v["b64"].encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise invalid_argument("Unable to base64 decode") from None


def _dense_shape(v):
    shape = []
    while isinstance(v, list):
        shape.append(len(v))
        if not v:
            break
        v = v[0]
    return shape


def _fill(v, level, shape, dtype, out):
    if not isinstance(v, list):
        if level != len(shape):
            raise invalid_argument("JSON Value: ", debug_string(v), " found at incorrect level: ",
                                   level + 1, " in the JSON DOM. Expected at level: ", len(shape))
        if isinstance(v, dict):
            if dtype != 7:
                raise _type_error(v, dtype)
            out.append(b64decode(v))
            return
        if dtype not in _DTYPES:
            raise _unimplemented(v, dtype)
        if not _DTYPES[dtype][1](v):
            raise _type_error(v, dtype)
        out.append(v.encode("utf-8", "surrogateescape") if dtype == 7 else v)
        return
    if level >= len(shape):
        raise invalid_argument("Encountered list at unexpected level: ", level, " expected < ",
                               len(shape))
    if len(v) != shape[level]:
        raise invalid_argument("Encountered list at unexpected size: ", len(v), " at level: ",
                               level, " expected size: ", shape[level])
    for item in v:
        _fill(item, level + 1, shape, dtype, out)


def _type_error(v, dtype):
    return invalid_argument("JSON Value: ", debug_string(v), " Type: ", json_type(v),
                            " is not of expected type: ", dtype_string(dtype))


def _unimplemented(v, dtype):
    return ServingError("UNIMPLEMENTED", f"Conversion of JSON Value: {debug_string(v)} to "
                                         f"type: {dtype_string(dtype)}")


def to_array(v, dtype):
    """The JSON value `v` (a scalar or nested lists, b64 objects for strings) as an array
    of the DataType `dtype`."""
    shape = _dense_shape(v)
    values = []
    _fill(v, 0, shape, dtype, values)
    np_dtype = _DTYPES[dtype][2]
    if np_dtype is object:
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
    else:
        arr = np.array(values, dtype=np_dtype)
    return arr.reshape(shape)


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _add_instance_item(v, name, input_dtypes, items, shapes):
    if name not in input_dtypes:
        raise invalid_argument("JSON object: does not have named input: ", name)
    arr = to_array(v, input_dtypes[name])
    if name in shapes:
        if int(np.prod(shapes[name])) != arr.size:
            raise invalid_argument("Expecting tensor size: ", int(np.prod(shapes[name])),
                                   " but got: ", arr.size)
        if list(arr.shape) != shapes[name]:
            raise invalid_argument("Expecting shape ", _shape_text(shapes[name]), " but got: ",
                                   _shape_text(arr.shape))
    else:
        shapes[name] = list(arr.shape)
    items.setdefault(name, []).append(arr)


def _from_instances(instances, input_dtypes):
    objects = isinstance(instances[0], dict) and not is_b64(instances[0])
    if not isinstance(instances[0], dict) and len(input_dtypes) > 1:
        raise invalid_argument("instances is a plain list, but expecting list of objects as "
                               "multiple input tensors required as per tensorinfo_map")
    names = sorted(input_dtypes)
    items, shapes = {}, {}
    for i, elem in enumerate(instances):
        elem_is_object = isinstance(elem, dict) and not is_b64(elem)
        if objects:
            if not elem_is_object:
                raise invalid_argument(f"Expecting object but got list at item {i} of input "
                                       "list")
            for name, v in elem.items():
                try:
                    _add_instance_item(v, name, input_dtypes, items, shapes)
                except ServingError as e:
                    raise invalid_argument(f"Failed to process element: {i} key: {name} of "
                                           f"'instances' list. Error: {e}") from None
            if sorted(elem) != names:
                raise invalid_argument(f"Failed to process element: {i} of 'instances' list. "
                                       f"JSON object: {debug_string(elem)} keys must be equal "
                                       f"to: {','.join(names)}")
        else:
            if elem_is_object:
                raise invalid_argument(f"Expecting value/list but got object at item {i} of "
                                       "input list")
            try:
                _add_instance_item(elem, names[0], input_dtypes, items, shapes)
            except ServingError as e:
                raise invalid_argument(f"Failed to process element: {i} of 'instances' list. "
                                       f"Error: {e}") from None
    return {name: np.stack(arrays) for name, arrays in items.items()}


def _from_inputs(value, input_dtypes):
    if not isinstance(value, dict) or is_b64(value):
        if len(input_dtypes) > 1:
            raise invalid_argument("inputs is a plain value/list, but expecting an object as "
                                   "multiple input tensors required as per tensorinfo_map")
        name = sorted(input_dtypes)[0]
        return {name: to_array(value, input_dtypes[name])}
    out = {}
    for name in sorted(input_dtypes):
        if name not in value:
            raise invalid_argument(f"Missing named input: {name} in 'inputs' object.")
        out[name] = to_array(value[name], input_dtypes[name])
    return out


def parse_predict_request(body, input_dtypes_of):
    """A predict request -> (signature_name, ROW or COLUMNAR, {input alias: array}).

    input_dtypes_of(signature_name) gives the signature's {input alias: DataType enum}.
    """
    doc = parse_json(body)
    signature_name = signature_name_of(doc)
    input_dtypes = input_dtypes_of(signature_name)
    if not input_dtypes:
        raise invalid_argument("Failed to get input map for signature: ",
                               signature_name or "DEFAULT")
    if "instances" in doc:
        if "inputs" in doc:
            raise invalid_argument("JSON Value: ", debug_string(doc), " Not formatted correctly "
                                   "expecting only one of 'inputs' or 'instances' keys to exist ")
        instances = doc["instances"]
        if not isinstance(instances, list):
            raise invalid_argument("JSON Value: ", debug_string(doc),
                                   " Expecting 'instances' to be an list/array")
        if not instances:
            raise invalid_argument("JSON Value: ", debug_string(doc),
                                   " No values in 'instances' array")
        return signature_name, ROW, _from_instances(instances, input_dtypes)
    if "inputs" in doc:
        return signature_name, COLUMNAR, _from_inputs(doc["inputs"], input_dtypes)
    raise invalid_argument("Missing 'inputs' or 'instances' key")


def _write_scalar(w, v, dtype, as_b64):
    kind = dtype.kind
    if kind == "f" and dtype.itemsize in (4, 8):
        w.raw(format_decimal(v, 32 if dtype.itemsize == 4 else 64))
    elif kind == "b":
        w.raw("true" if v else "false")
    elif kind in "iu":
        w.raw(str(int(v)))
    elif kind in "OSU":
        data = v if isinstance(v, bytes) else str(v).encode("utf-8")
        if as_b64:
            w.start_object()
            w.key("b64")
            w.string(base64.b64encode(data).decode("ascii"))
            w.end_object()
        else:
            w.string(data.decode("utf-8", "surrogateescape"))
    else:
        raise invalid_argument(f"Failed to write JSON value for tensor type: {dtype.name}")


def _write_tensor(w, arr, as_b64):
    """AddTensorValues: a scalar as it is, else nested arrays."""
    if arr.ndim == 0:
        _write_scalar(w, arr[()], arr.dtype, as_b64)
        return
    w.start_array()
    for i in range(arr.shape[0]):
        if arr.ndim == 1:
            _write_scalar(w, arr[i], arr.dtype, as_b64)
        else:
            _write_tensor(w, arr[i, ...], as_b64)
    w.end_array()


def _is_bytes_output(name, arr):
    """TF Serving writes a DT_STRING output whose alias ends in `_bytes` as {"b64": ...}."""
    return arr.dtype.kind in "OSU" and name.endswith("_bytes")


def predict_response(outputs, fmt):
    """The JSON text of a predict response: `outputs` ({alias: array}) as "predictions"
    (one entry per row, ROW) or "outputs" (COLUMNAR)."""
    if not outputs:
        raise invalid_argument("Cannot convert empty tensor map to JSON")
    names = sorted(outputs)
    w = PrettyWriter()
    w.start_object()
    if fmt == ROW:
        batch = None
        for name in names:
            arr = outputs[name]
            if arr.ndim == 0:
                raise invalid_argument(f"Tensor name: {name} has no shape information ")
            if batch is not None and batch != arr.shape[0]:
                raise invalid_argument(f"Tensor name: {name} has inconsistent batch size: "
                                       f"{arr.shape[0]} expecting: {batch}")
            batch = arr.shape[0]
        w.key("predictions")
        w.start_array()
        for row in range(batch):
            if len(names) > 1:
                w.start_object()
            w.single_line_arrays = True
            for name in names:
                if len(names) > 1:
                    w.key(name)
                _write_tensor(w, outputs[name][row, ...], _is_bytes_output(name, outputs[name]))
            w.single_line_arrays = False
            if len(names) > 1:
                w.end_object()
        w.end_array()
    else:
        w.key("outputs")
        if len(names) > 1:
            w.start_object()
        for name in names:
            if len(names) > 1:
                w.key(name)
            _write_tensor(w, outputs[name], _is_bytes_output(name, outputs[name]))
        if len(names) > 1:
            w.end_object()
    w.end_object()
    return w.text()
