"""`tf.linalg.LinearOperator` and its subclasses, one module per operator class."""
