"""`tf.linalg`'s classes: the LinearOperator family."""
