"""`tf.distributions`: TF1's (deprecated) probability distributions, built from graph ops."""
