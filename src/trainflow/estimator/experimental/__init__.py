"""`tf.estimator.experimental`."""
from trainflow._src.estimator.model_fn import call_logit_fn  # noqa: F401
