"""Neural-network ops of `tf.nn`: activations, softmax, cross entropy, conv, pooling, batch
norm, sampling."""
