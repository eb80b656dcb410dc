"""`tf.app.flags` / `tf.flags`: absl flags under TF1's names (see `trainflow._src.app.flags`)."""
from trainflow._src.app.flags import *  # noqa: F401,F403
