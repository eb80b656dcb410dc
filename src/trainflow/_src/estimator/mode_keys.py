"""`tf.estimator.ModeKeys`: the three modes a model_fn is called in."""


class ModeKeys:
    """Standard names for Estimator model modes: TRAIN, EVAL, PREDICT."""
    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"
