"""`tf.estimator.experimental`: the early-stopping hooks, the supervised input receiver
builder for TRAIN/EVAL exports, call_logit_fn."""
from trainflow._src.estimator.early_stopping import (  # noqa: F401
    make_early_stopping_hook, stop_if_higher_hook, stop_if_lower_hook,
    stop_if_no_decrease_hook, stop_if_no_increase_hook)
from trainflow._src.estimator.export import build_raw_supervised_input_receiver_fn  # noqa: F401
from trainflow._src.estimator.hooks import (  # noqa: F401
    InMemoryEvaluatorHook, make_stop_at_checkpoint_step_hook)
from trainflow._src.estimator.model_fn import call_logit_fn  # noqa: F401
from trainflow._src.estimator.canned.dnn import dnn_logit_fn_builder  # noqa: F401
from trainflow._src.estimator.canned.linear import linear_logit_fn_builder  # noqa: F401
