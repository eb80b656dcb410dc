"""TF Serving's JSON for :classify and :regress: "examples" (and an optional "context") as
serialized tf.train.Examples, and the "results" written back."""
from trainflow._src.protos import example_pb2, feature_pb2
from trainflow._src.serving.json_tensor import (
    b64decode, debug_string, is_b64, json_type, parse_json, signature_name_of)
from trainflow._src.serving.json_writer import PrettyWriter, format_decimal
from trainflow._src.serving.status import invalid_argument

_KIND_WORDS = {"bytes_list": "bytes", "float_list": "float", "int64_list": "int64",
               None: "UNKNOWN"}


def _check_kind(feature, kind, name):
    current = feature.WhichOneof("kind")
    if current is not None and current != kind:
        raise invalid_argument(f"Unexpected element type in feature: {name} expecting type: "
                               f"{_KIND_WORDS[current]}")


def _add_value(v, name, feature):
    """AddValueToFeature: the kind of list a JSON value goes to."""
    if v is None or isinstance(v, list) or (isinstance(v, dict) and not is_b64(v)):
        raise invalid_argument(f"Feature: {name} has element with unexpected JSON type: "
                               f"{json_type(v)}")
    if v is True or v is False:
        _check_kind(feature, "int64_list", name)
        feature.int64_list.value.append(1 if v else 0)
    elif isinstance(v, dict):
        _check_kind(feature, "bytes_list", name)
        feature.bytes_list.value.append(b64decode(v))
    elif isinstance(v, str):
        _check_kind(feature, "bytes_list", name)
        feature.bytes_list.value.append(v.encode("utf-8", "surrogateescape"))
    elif isinstance(v, float) or v > 2 ** 64 - 1 or v < -2 ** 63:
        _check_kind(feature, "float_list", name)
        feature.float_list.value.append(float(v))
    else:
        _check_kind(feature, "int64_list", name)
        if v > 2 ** 63 - 1:
            raise invalid_argument(f"Feature: {name} has uint64_t element. Only int64_t is "
                                   "supported.")
        feature.int64_list.value.append(v)


def make_example(obj):
    """A JSON object of feature name -> value or list of values as a tf.train.Example."""
    if not isinstance(obj, dict):
        raise invalid_argument(f"Example must be JSON object but got JSON {json_type(obj)}")
    example = example_pb2.Example()
    for name, content in obj.items():
        feature = feature_pb2.Feature()
        for v in (content if isinstance(content, list) else [content]):
            _add_value(v, name, feature)
        example.features.feature[name].CopyFrom(feature)
    return example


def parse_examples_request(body):
    """A classify or regress request -> (signature_name, [serialized Example]); with a
    "context", each example is the context's bytes followed by its own (TF Serving's
    ExampleListWithContext: the example's features win)."""
    doc = parse_json(body)
    signature_name = signature_name_of(doc)
    context = b""
    if "context" in doc:
        context = make_example(doc["context"]).SerializeToString()
    if "examples" not in doc:
        raise invalid_argument("JSON Value: ", debug_string(doc), " When method is classify, "
                               "key 'examples' is expected and was not found")
    examples = doc["examples"]
    if not isinstance(examples, list):
        raise invalid_argument("JSON Value: ", debug_string(doc),
                               " Expecting 'examples' value to be an list/array")
    if not examples:
        raise invalid_argument("JSON Value: ", debug_string(doc),
                               " 'examples' value is an empty array")
    return signature_name, [context + make_example(e).SerializeToString() for e in examples]


def classification_response(classifications):
    """The JSON text of a classify response: one list of [label, score] per example."""
    if not classifications:
        raise invalid_argument("Cannot convert empty ClassificationResults to JSON")
    w = PrettyWriter()
    w.start_object()
    w.key("results")
    w.start_array()
    for classes in classifications:
        w.single_line_arrays = True
        w.start_array()
        for label, score in classes:
            w.start_array()
            w.string(label.decode("utf-8", "surrogateescape"))
            w.raw(format_decimal(score))
            w.end_array()
        w.end_array()
        w.single_line_arrays = False
    w.end_array()
    w.end_object()
    return w.text()


def regression_response(values):
    """The JSON text of a regress response: one value per example."""
    if not len(values):
        raise invalid_argument("Cannot convert empty RegressionResults to JSON")
    w = PrettyWriter()
    w.start_object()
    w.key("results")
    w.single_line_arrays = True
    w.start_array()
    for v in values:
        w.raw(format_decimal(v))
    w.end_array()
    w.end_object()
    return w.text()
