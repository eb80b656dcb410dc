"""`tf.estimator.classifier_parse_example_spec` / `regressor_parse_example_spec`: the
`parse_example` spec of feature columns plus the label and weight features."""
from trainflow._src.feature_column.columns import numeric_column
from trainflow._src.feature_column.dense import NumericColumn
from trainflow._src.feature_column.layers import make_parse_example_spec
from trainflow._src.framework import dtypes
from trainflow._src.ops.io.parsing_config import FixedLenFeature


def classifier_parse_example_spec(feature_columns, label_key, label_dtype=dtypes.int64,
                                  label_default=None, weight_column=None):
    """The parsing spec of `feature_columns` with a [1] `label_key` of `label_dtype`."""
    parsing_spec = make_parse_example_spec(feature_columns)
    label_spec = FixedLenFeature((1,), label_dtype, label_default)
    return _add_label_and_weight(parsing_spec, label_key, label_spec, weight_column)


def regressor_parse_example_spec(feature_columns, label_key, label_dtype=dtypes.float32,
                                 label_default=None, label_dimension=1, weight_column=None):
    """The parsing spec of `feature_columns` with a [label_dimension] `label_key`."""
    parsing_spec = make_parse_example_spec(feature_columns)
    label_spec = FixedLenFeature((label_dimension,), label_dtype, label_default)
    return _add_label_and_weight(parsing_spec, label_key, label_spec, weight_column)


def _add_label_and_weight(parsing_spec, label_key, label_spec, weight_column):
    if label_key in parsing_spec:
        raise ValueError(f"label should not be used as feature. label_key: {label_key}, "
                         f"features: {parsing_spec.keys()}")
    parsing_spec[label_key] = label_spec
    if weight_column is None:
        return parsing_spec
    if isinstance(weight_column, str):
        weight_column = numeric_column(weight_column)
    if not isinstance(weight_column, NumericColumn):
        raise ValueError(f"weight_column should be an instance of "
                         f"tf.feature_column.numeric_column. Given type: "
                         f"{type(weight_column)} value: {weight_column}")
    parsing_spec.update(weight_column._parse_example_spec)
    return parsing_spec
