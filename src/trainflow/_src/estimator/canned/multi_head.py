"""`tf.estimator.MultiHead` (tensorflow_estimator 2.x): several named heads over one logits
tensor (split along its last axis) or a dict of logits; the loss is the (weighted) sum of the
heads' losses; predictions are keyed `(head name, key)`."""
from trainflow._src.estimator import export_output
from trainflow._src.estimator import model_fn as model_fn_lib
from trainflow._src.estimator.canned.head import (_DEFAULT_SERVING_KEY, _PREDICT_SERVING_KEY,
                                                   MetricKeys)
from trainflow._src.estimator.canned.head_v2 import Head, _train_op
from trainflow._src.estimator.mode_keys import ModeKeys
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.metrics.mean_metrics import mean
from trainflow._src.ops.array.create import ones_like, zeros_like
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import shape
from trainflow._src.ops.array.slicing import slice as slice_
from trainflow._src.ops.control_flow.grouping import no_op
from trainflow._src.ops.math.arith import add_n, multiply
from trainflow._src.ops.summary.summary_ops import scalar as scalar_summary


def _no_op_train_fn(loss):
    del loss
    return no_op()


def _default_export_output(export_outputs, head_name):
    if len(export_outputs) == 1:
        return next(iter(export_outputs.values()))
    if _DEFAULT_SERVING_KEY not in export_outputs:
        raise ValueError(f"{head_name} did not specify default export_outputs. Given: "
                         f"{export_outputs} Suggested fix: Use one of the heads in "
                         f"tf.estimator, or include key {_DEFAULT_SERVING_KEY} in "
                         "export_outputs.")
    return export_outputs[_DEFAULT_SERVING_KEY]


class MultiHead(Head):
    """Merges named heads (`tf.estimator.MultiHead`)."""

    def __init__(self, heads, head_weights=None):
        if not heads:
            raise ValueError(f"Must specify heads. Given: {heads}")
        if head_weights and len(head_weights) != len(heads):
            raise ValueError(f"heads and head_weights must have the same size. Given "
                             f"len(heads): {len(heads)}. Given len(head_weights): "
                             f"{len(head_weights)}.")
        for head in heads:
            if head.name is None:
                raise ValueError(f"All given heads must have name specified. Given: {head}")
        self._heads = tuple(heads)
        self._head_weights = tuple(head_weights) if head_weights else ()

    @property
    def name(self):
        return "_".join(h.name for h in self._heads)

    @property
    def logits_dimension(self):
        return sum(h.logits_dimension for h in self._heads)

    @property
    def loss_reduction(self):
        reductions = [h.loss_reduction for h in self._heads]
        if len(set(reductions)) > 1:
            raise ValueError(f"The loss_reduction must be the same for different heads. "
                             f"Given: {reductions}")
        return reductions[0]

    def _split_logits(self, logits):
        with name_scope(None, "split_logits"):
            logits = convert_to_tensor(logits)
            dims = [h.logits_dimension for h in self._heads]
            last = logits.shape.as_list()[-1]
            if last is not None and last != sum(dims):
                raise ValueError(
                    f"Could not split logits of shape {logits.shape.as_list()!r} among the "
                    f"heads with individual logits dimensions: {dims!r}. The last dimension "
                    f"of the logits tensor should equal {last} but is {sum(dims)}.")
            batch = shape(logits)[:-1]
            zeros, minus_ones = zeros_like(batch), -1 * ones_like(batch)
            out, begin = {}, 0
            for head in self._heads:
                out[head.name] = slice_(logits, concat([zeros, [begin]], axis=0),
                                        concat([minus_ones, [head.logits_dimension]], axis=0))
                begin += head.logits_dimension
        return out

    def _check_logits_and_labels(self, logits, labels=None):
        names = [h.name for h in self._heads]
        if isinstance(logits, dict):
            missing = list(set(names) - set(logits))
            if missing:
                raise ValueError(f"logits has missing values for head(s): {missing}")
            logits_dict = logits
        else:
            logits_dict = self._split_logits(logits)
        if labels is not None:
            if not isinstance(labels, dict):
                raise ValueError(f"labels must be a dict. Given: {labels}")
            missing = list(set(names) - set(labels))
            if missing:
                raise ValueError(f"labels has missing values for head(s): {missing}")
        return logits_dict

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """The (head-weighted) sum of the heads' training losses plus regularization."""
        logits_dict = self._check_logits_and_labels(logits, labels)
        losses = [h.loss(labels[h.name], logits_dict[h.name], features=features, mode=mode)
                  for h in self._heads]
        with name_scope(None, "merge_losses"):
            if self._head_weights:
                losses = [multiply(loss, w) for loss, w in zip(losses, self._head_weights)]
            loss = add_n(losses)
            if regularization_losses is not None:
                loss = loss + add_n(list(regularization_losses))
        return loss

    def predictions(self, logits, keys=None):
        """Every head's predictions under `(head name, key)`."""
        logits_dict = self._check_logits_and_labels(logits)
        out = {}
        with name_scope("merge_pred"):
            for head in self._heads:
                for k, v in head.predictions(logits_dict[head.name], keys).items():
                    out[(head.name, k)] = v
        return out

    def _metric_ops(self, features, logits, labels, regularization_losses):
        logits_dict = self._check_logits_and_labels(logits, labels)
        metrics = {}
        if regularization_losses is not None:
            metrics[MetricKeys.LOSS_REGULARIZATION] = mean(
                add_n(list(regularization_losses)), name=MetricKeys.LOSS_REGULARIZATION)
        for head in self._heads:
            key = f"{MetricKeys.LOSS}/{head.name}"
            with name_scope("merge_eval"):
                loss = head.loss(labels[head.name], logits_dict[head.name], features=features)
                metrics[key] = mean(loss, name=key)
            metrics.update(head._metric_ops(features, logits_dict[head.name],
                                            labels[head.name], None))
        return metrics

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              trainable_variables=None, train_op_fn=None, update_ops=None,
                              regularization_losses=None):
        """The merged EstimatorSpec of `mode`."""
        with name_scope(self.name, "multi_head"):
            logits_dict = self._check_logits_and_labels(logits, labels)
            specs = [h.create_estimator_spec(features=features, mode=mode,
                                             logits=logits_dict[h.name],
                                             labels=labels[h.name] if labels else None,
                                             train_op_fn=_no_op_train_fn)
                     for h in self._heads]
            predictions = self.predictions(logits)
            if mode == ModeKeys.PREDICT:
                return model_fn_lib.EstimatorSpec(
                    mode=mode, predictions=predictions,
                    export_outputs=self._merge_export_outputs(specs))
            loss = self.loss(labels, logits, features, mode, regularization_losses)
            if mode == ModeKeys.EVAL:
                return model_fn_lib.EstimatorSpec(
                    mode=mode, predictions=predictions, loss=loss,
                    eval_metric_ops=self._metric_ops(features, logits, labels,
                                                     regularization_losses))
            if mode != ModeKeys.TRAIN:
                raise ValueError(f"mode={mode} unrecognized")
            train_op = _train_op(optimizer, trainable_variables, train_op_fn, update_ops, loss)
            with name_scope(""):
                scalar_summary(MetricKeys.LOSS, loss)
                if regularization_losses is not None:
                    scalar_summary(MetricKeys.LOSS_REGULARIZATION,
                                   add_n(list(regularization_losses)))
            return model_fn_lib.EstimatorSpec(mode=mode, loss=loss, train_op=train_op,
                                              predictions=predictions)

    def _merge_export_outputs(self, specs):
        outputs = {_DEFAULT_SERVING_KEY: _default_export_output(specs[0].export_outputs,
                                                                self._heads[0].name)}
        merged = {}
        for head, spec in zip(self._heads, specs):
            for k, v in spec.export_outputs.items():
                outputs[head.name if k == _DEFAULT_SERVING_KEY else f"{head.name}/{k}"] = v
                if k == _PREDICT_SERVING_KEY and isinstance(v, export_output.PredictOutput):
                    for kp, vp in v.outputs.items():
                        merged[f"{head.name}/{kp}"] = vp
        outputs[_PREDICT_SERVING_KEY] = export_output.PredictOutput(merged)
        return outputs
