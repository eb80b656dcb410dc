"""Linear algebra ops (`tf.linalg`)."""
