"""`tf.Module`: a named container of variables and sub-modules."""
