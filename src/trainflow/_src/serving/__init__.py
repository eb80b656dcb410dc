"""`trainflow serve`: TensorFlow Serving's REST API over a folder of SavedModel versions."""
