"""Python functions as graph ops (`tf.py_func`)."""
