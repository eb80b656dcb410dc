"""classifier_parse_example_spec / regressor_parse_example_spec (TF's parsing_utils_test)."""
import pytest

import trainflow.compat.v1 as tf

_FC = [tf.feature_column.numeric_column("a"),
       tf.feature_column.categorical_column_with_hash_bucket("b", 10)]
_BASE = {"a": tf.FixedLenFeature((1,), tf.float32), "b": tf.VarLenFeature(tf.string)}

CASES = [
    ("classifier", lambda: tf.estimator.classifier_parse_example_spec(_FC, "y"),
     dict(_BASE, y=tf.FixedLenFeature((1,), tf.int64))),
    ("classifier_string_label_weight", lambda: tf.estimator.classifier_parse_example_spec(
        _FC, "y", label_dtype=tf.string, label_default="x", weight_column="w"),
     dict(_BASE, y=tf.FixedLenFeature((1,), tf.string, "x"),
          w=tf.FixedLenFeature((1,), tf.float32))),
    ("regressor", lambda: tf.estimator.regressor_parse_example_spec(
        _FC, "y", label_dimension=3,
        weight_column=tf.feature_column.numeric_column("w", dtype=tf.float64)),
     dict(_BASE, y=tf.FixedLenFeature((3,), tf.float32),
          w=tf.FixedLenFeature((1,), tf.float64))),
]


@pytest.mark.parametrize("name,build,expected", CASES, ids=[c[0] for c in CASES])
def test_parse_example_spec(name, build, expected):
    assert build() == expected


@pytest.mark.parametrize("kwargs,message", [
    (dict(label_key="a"), "label should not be used as feature"),
    (dict(label_key="y", weight_column=tf.feature_column.categorical_column_with_identity(
        "w", 3)), "weight_column should be an instance of"),
])
def test_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tf.estimator.classifier_parse_example_spec(_FC, **kwargs)
