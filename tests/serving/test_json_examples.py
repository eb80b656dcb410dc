"""TF Serving's JSON for :classify and :regress: examples and context to tf.train.Examples,
their errors, and the "results" written back."""
import pytest

from trainflow._src.protos import example_pb2
from trainflow._src.serving import json_examples as je
from trainflow._src.serving.status import ServingError


def _features(serialized):
    ex = example_pb2.Example.FromString(serialized)
    out = {}
    for name, f in ex.features.feature.items():
        kind = f.WhichOneof("kind")
        out[name] = (kind, list(getattr(f, kind).value)) if kind else (None, [])
    return out


@pytest.mark.parametrize("body, sig, want", [
    ('{"examples": [{"x": 80.0}]}', "", [{"x": ("float_list", [80.0])}]),
    ('{"signature_name": "r", "examples": [{"i": [1, 2], "b": true, "s": ["a", {"b64": "eHk="}]'
     ', "e": []}]}', "r",
     [{"i": ("int64_list", [1, 2]), "b": ("int64_list", [1]), "s": ("bytes_list", [b"a", b"xy"]),
       "e": (None, [])}]),
    ('{"context": {"c": 1, "x": 5.0}, "examples": [{"x": 2.0}, {"y": "z"}]}', "",
     [{"c": ("int64_list", [1]), "x": ("float_list", [2.0])},
      {"c": ("int64_list", [1]), "x": ("float_list", [5.0]), "y": ("bytes_list", [b"z"])}]),
])
def test_examples_request(body, sig, want):
    got_sig, examples = je.parse_examples_request(body.encode())
    assert got_sig == sig
    assert [_features(e) for e in examples] == want


@pytest.mark.parametrize("body, message", [
    ('{"examples": [{"x": [1, 2.0]}]}', "Unexpected element type in feature: x expecting type: "
                                        "int64"),
    ('{"examples": [{"x": ["a", 1]}]}', "Unexpected element type in feature: x expecting type: "
                                        "bytes"),
    ('{"examples": [{"x": null}]}', "Feature: x has element with unexpected JSON type: Null"),
    ('{"examples": [{"x": [[1]]}]}', "Feature: x has element with unexpected JSON type: Array"),
    ('{"examples": [{"x": {"a": 1}}]}', "Feature: x has element with unexpected JSON type: "
                                        "Object"),
    ('{"examples": [{"x": 18446744073709551615}]}', "Feature: x has uint64_t element. Only "
                                                    "int64_t is supported."),
    ('{"examples": [1]}', "Example must be JSON object but got JSON Number"),
    ('{"examples": []}', 'JSON Value: {\n    "examples": []\n} \'examples\' value is an empty '
                         "array"),
    ('{"examples": {}}', 'JSON Value: {\n    "examples": {}\n} Expecting \'examples\' value to '
                         "be an list/array"),
    ("{}", "JSON Value: {} When method is classify, key 'examples' is expected and was not "
           "found"),
])
def test_examples_request_errors(body, message):
    with pytest.raises(ServingError) as e:
        je.parse_examples_request(body.encode())
    assert (e.value.message, e.value.http_status) == (message, 400)


def test_classification_response():
    assert je.classification_response([[(b"", 12.0)]]) == \
        '{\n    "results": [[["", 12.0]]\n    ]\n}'
    assert je.classification_response([[(b"a", 0.5), (b"b", 0.25)], [(b"a", 1), (b"b", 0)]]) \
        == '{\n    "results": [[["a", 0.5], ["b", 0.25]], [["a", 1.0], ["b", 0.0]]\n    ]\n}'


def test_regression_response():
    assert je.regression_response([42.0, 0.2]) == '{\n    "results": [42.0, 0.2]\n}'
    with pytest.raises(ServingError):
        je.regression_response([])
