"""tf.feature_column (TF1's v1 columns, input_layer and linear_model)."""
