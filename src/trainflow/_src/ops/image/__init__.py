"""Image ops of `tf.image`: codecs, colour, geometry, resizing."""
