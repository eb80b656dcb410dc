"""`tf.feature_column`: TF1's feature columns, input_layer and linear_model."""
from trainflow._src.feature_column.columns import (  # noqa: F401
    bucketized_column, categorical_column_with_hash_bucket, categorical_column_with_identity,
    categorical_column_with_vocabulary_file, categorical_column_with_vocabulary_list,
    crossed_column, embedding_column, indicator_column, numeric_column,
    sequence_categorical_column_with_hash_bucket, sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list, sequence_numeric_column,
    shared_embedding_columns, weighted_categorical_column)
from trainflow._src.feature_column.layers import (  # noqa: F401
    input_layer, linear_model, make_parse_example_spec)

__all__ = ["bucketized_column", "categorical_column_with_hash_bucket",
           "categorical_column_with_identity", "categorical_column_with_vocabulary_file",
           "categorical_column_with_vocabulary_list", "crossed_column", "embedding_column",
           "indicator_column", "input_layer", "linear_model", "make_parse_example_spec",
           "numeric_column", "sequence_categorical_column_with_hash_bucket",
           "sequence_categorical_column_with_identity",
           "sequence_categorical_column_with_vocabulary_file",
           "sequence_categorical_column_with_vocabulary_list", "sequence_numeric_column",
           "shared_embedding_columns", "weighted_categorical_column"]
