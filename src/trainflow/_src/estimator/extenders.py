"""`tf.estimator.add_metrics`: an Estimator whose evaluation adds `metric_fn`'s metrics."""
from trainflow._src.estimator.estimator import Estimator
from trainflow._src.estimator.mode_keys import ModeKeys
from trainflow._src.estimator.util import fn_args

_VALID_METRIC_FN_ARGS = {"features", "labels", "predictions", "config"}


def add_metrics(estimator, metric_fn):
    """A new Estimator sharing `estimator`'s model_fn, model_dir and config whose EVAL spec
    also has the metrics `metric_fn(features, labels, predictions, config)` returns (any
    subset of those arguments)."""
    invalid = sorted(set(fn_args(metric_fn)) - _VALID_METRIC_FN_ARGS)
    if invalid:
        raise ValueError(f"metric_fn ({metric_fn}) has following not expected args: "
                         f"{invalid}")

    def new_model_fn(features, labels, mode, config):
        spec = estimator.model_fn(features, labels, mode, config)
        if mode != ModeKeys.EVAL:
            return spec
        available = {"features": features, "labels": labels,
                     "predictions": spec.predictions, "config": config}
        new_metrics = metric_fn(**{k: v for k, v in available.items()
                                   if k in fn_args(metric_fn)})
        all_metrics = dict(spec.eval_metric_ops or {})
        all_metrics.update(new_metrics)
        return spec._replace(eval_metric_ops=all_metrics)

    return Estimator(model_fn=new_model_fn, model_dir=estimator.model_dir,
                     config=estimator.config, warm_start_from=estimator._warm_start_settings)
