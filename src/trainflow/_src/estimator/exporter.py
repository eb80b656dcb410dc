"""`tf.estimator.Exporter` and its kinds (TF 1.15's exporter.py): LatestExporter (every
evaluation, keeping the newest few), FinalExporter (the last one), BestExporter (when the
metric improves, judged against the eval event files too)."""
import abc
import os

from trainflow._src import tf_logging as logging
from trainflow._src.estimator import gc
from trainflow._src.framework import errors
from trainflow._src.gfile import file_ops
from trainflow._src.gfile.glob import glob
from trainflow._src.summary.summary_iterator import summary_iterator


class Exporter(abc.ABC):
    """Exports a trained model when train_and_evaluate evaluates it."""

    @property
    @abc.abstractmethod
    def name(self):
        """The directory name under model_dir/export."""

    @abc.abstractmethod
    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        """Exports; returns the export directory or None."""


class _SavedModelExporter(Exporter):
    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        self._name = name
        self._serving_input_receiver_fn = serving_input_receiver_fn
        self._assets_extra = assets_extra
        self._as_text = as_text

    @property
    def name(self):
        return self._name

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        del eval_result, is_the_final_export
        return estimator.export_saved_model(export_path, self._serving_input_receiver_fn,
                                            assets_extra=self._assets_extra,
                                            as_text=self._as_text,
                                            checkpoint_path=checkpoint_path)


def _check_exports_to_keep(exports_to_keep):
    if exports_to_keep is not None and exports_to_keep <= 0:
        raise ValueError("`exports_to_keep`, if provided, must be a positive number. Got "
                         f"{exports_to_keep}")


def _garbage_collect_exports(export_dir_base, exports_to_keep):
    """Deletes all but the newest `exports_to_keep` timestamped exports."""
    if exports_to_keep is None:
        return

    def parser(path):
        filename = os.path.basename(path.path)
        if not (len(filename) == 10 and filename.isdigit()):
            return None
        return path._replace(export_version=int(filename))

    delete_filter = gc._negation(gc._largest_export_versions(exports_to_keep))
    for p in delete_filter(gc._get_paths(export_dir_base, parser=parser)):
        try:
            file_ops.rmtree(p.path)
        except errors.NotFoundError as e:
            logging.warning("Can not delete %s recursively: %s", p.path, e)


class FinalExporter(Exporter):
    """Exports only the final evaluation's model."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        self._saved_model_exporter = _SavedModelExporter(name, serving_input_receiver_fn,
                                                         assets_extra, as_text)

    @property
    def name(self):
        return self._saved_model_exporter.name

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        if not is_the_final_export:
            return None
        logging.info("Performing the final export in the end of training.")
        return self._saved_model_exporter.export(estimator, export_path, checkpoint_path,
                                                 eval_result, is_the_final_export)


class LatestExporter(Exporter):
    """Exports after every evaluation, keeping the newest `exports_to_keep`."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False,
                 exports_to_keep=5):
        self._saved_model_exporter = _SavedModelExporter(name, serving_input_receiver_fn,
                                                         assets_extra, as_text)
        _check_exports_to_keep(exports_to_keep)
        self._exports_to_keep = exports_to_keep

    @property
    def name(self):
        return self._saved_model_exporter.name

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        export_result = self._saved_model_exporter.export(
            estimator, export_path, checkpoint_path, eval_result, is_the_final_export)
        _garbage_collect_exports(export_path, self._exports_to_keep)
        return export_result


def _loss_smaller(best_eval_result, current_eval_result):
    key = "loss"
    if not best_eval_result or key not in best_eval_result:
        raise ValueError("best_eval_result cannot be empty or no loss is found in it.")
    if not current_eval_result or key not in current_eval_result:
        raise ValueError("current_eval_result cannot be empty or no loss is found in it.")
    return best_eval_result[key] > current_eval_result[key]


class BestExporter(Exporter):
    """Exports when `compare_fn(best_eval_result, current_eval_result)` says the model
    improved (default: a smaller loss); the best result so far is also read back from the
    eval event files matching `event_file_pattern` under model_dir."""

    def __init__(self, name="best_exporter", serving_input_receiver_fn=None,
                 event_file_pattern="eval/*.tfevents.*", compare_fn=_loss_smaller,
                 assets_extra=None, as_text=False, exports_to_keep=5):
        self._compare_fn = compare_fn
        if self._compare_fn is None:
            raise ValueError("`compare_fn` must not be None.")
        self._event_file_pattern = event_file_pattern
        self._model_dir = None
        self._best_eval_result = None
        self._saved_model_exporter = _SavedModelExporter(name, serving_input_receiver_fn,
                                                         assets_extra, as_text)
        _check_exports_to_keep(exports_to_keep)
        self._exports_to_keep = exports_to_keep

    @property
    def name(self):
        return self._saved_model_exporter.name

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        export_result = None
        if self._model_dir != estimator.model_dir and self._event_file_pattern:
            logging.info("Loading best metric from event files.")
            self._model_dir = estimator.model_dir
            self._best_eval_result = self._get_best_eval_result(
                os.path.join(self._model_dir, self._event_file_pattern))
        if self._best_eval_result is None or self._compare_fn(
                best_eval_result=self._best_eval_result, current_eval_result=eval_result):
            logging.info("Performing best model export.")
            self._best_eval_result = eval_result
            export_result = self._saved_model_exporter.export(
                estimator, export_path, checkpoint_path, eval_result, is_the_final_export)
            _garbage_collect_exports(export_path, self._exports_to_keep)
        return export_result

    def _get_best_eval_result(self, event_files):
        if not event_files:
            return None
        best = None
        for event_file in glob(event_files):
            for event in summary_iterator(event_file):
                if not event.HasField("summary"):
                    continue
                result = {v.tag: v.simple_value for v in event.summary.value
                          if v.HasField("simple_value")}
                if result and (best is None or self._compare_fn(best, result)):
                    best = result
        return best
