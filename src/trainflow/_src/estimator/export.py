"""`tf.estimator.export`: serving input receivers, their builders, the signature defs of an
export, and `Estimator.export_saved_model` (TF 1.15's export_lib and estimator.py)."""
import collections
import os

from trainflow._src import tf_logging as logging
from trainflow._src.estimator.export_output import (  # noqa: F401 - re-exported
    ClassificationOutput, EvalOutput, ExportOutput, PredictOutput, RegressionOutput,
    TrainOutput, export_outputs_for_mode)
from trainflow._src.estimator.mode_keys import ModeKeys
from trainflow._src.estimator.util import get_timestamped_dir
from trainflow._src.framework import dtypes, errors, tensor_shape
from trainflow._src.framework.constant_op import placeholder
from trainflow._src.framework.graph import Graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.random_seed import set_random_seed
from trainflow._src.framework.scopes import get_collection
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor import Tensor
from trainflow._src.gfile import file_ops
from trainflow._src.ops.io.parsing_ops import parse_example
from trainflow._src.runtime.session import Session
from trainflow._src.saved_model import signature_def_utils, tag_constants
from trainflow._src.saved_model.builder import SavedModelBuilder
from trainflow._src.train import checkpoint_management
from trainflow._src.train.saver import Saver
from trainflow._src.train.scaffold import Scaffold

SINGLE_FEATURE_DEFAULT_NAME = "feature"
SINGLE_RECEIVER_DEFAULT_NAME = "input"
SINGLE_LABEL_DEFAULT_NAME = "label"
_SINGLE_TENSOR_DEFAULT_NAMES = {
    "feature": SINGLE_FEATURE_DEFAULT_NAME, "label": SINGLE_LABEL_DEFAULT_NAME,
    "receiver_tensor": SINGLE_RECEIVER_DEFAULT_NAME,
    "receiver_tensors_alternative": SINGLE_RECEIVER_DEFAULT_NAME}
EXPORT_TAG_MAP = {ModeKeys.PREDICT: [tag_constants.SERVING],
                  ModeKeys.TRAIN: [tag_constants.TRAINING],
                  ModeKeys.EVAL: [tag_constants.EVAL]}


def _check_tensor(tensor, name, error_label="feature"):
    if not isinstance(tensor, (Tensor, SparseTensor)):
        fmt_name = f" {name}" if name else ""
        raise ValueError(f"{error_label}{fmt_name} must be a Tensor or SparseTensor.")


def _check_tensor_key(name, error_label="feature", allow_ints=False):
    if not isinstance(name, str):
        if not allow_ints:
            raise ValueError(f"{error_label} keys must be strings: {name}.")
        if not isinstance(name, int):
            raise ValueError(f"{error_label} keys must be strings or ints: {name}.")


def wrap_and_check_input_tensors(tensors, field_name, allow_int_keys=False):
    """A dict of tensors: a single tensor is named by the field's default name."""
    if tensors is None:
        raise ValueError(f"{field_name}s must be defined.")
    if not isinstance(tensors, dict):
        tensors = {_SINGLE_TENSOR_DEFAULT_NAMES[field_name]: tensors}
    for name, tensor in tensors.items():
        _check_tensor_key(name, error_label=field_name, allow_ints=allow_int_keys)
        _check_tensor(tensor, name, error_label=field_name)
    return tensors


class ServingInputReceiver(collections.namedtuple(
        "ServingInputReceiver",
        ["features", "receiver_tensors", "receiver_tensors_alternatives"])):
    """What a serving_input_receiver_fn returns: the features the model_fn gets and the
    tensors a served request feeds."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        features = wrap_and_check_input_tensors(features, "feature", allow_int_keys=True)
        receiver_tensors = wrap_and_check_input_tensors(receiver_tensors, "receiver_tensor")
        if receiver_tensors_alternatives is not None:
            if not isinstance(receiver_tensors_alternatives, dict):
                raise ValueError("receiver_tensors_alternatives must be a dict: "
                                 f"{receiver_tensors_alternatives}.")
            for name, alt in list(receiver_tensors_alternatives.items()):
                receiver_tensors_alternatives[name] = wrap_and_check_input_tensors(
                    alt, "receiver_tensors_alternative")
        return super().__new__(cls, features=features, receiver_tensors=receiver_tensors,
                               receiver_tensors_alternatives=receiver_tensors_alternatives)


class TensorServingInputReceiver(collections.namedtuple(
        "TensorServingInputReceiver",
        ["features", "receiver_tensors", "receiver_tensors_alternatives"])):
    """A ServingInputReceiver whose features are one Tensor, passed to the model_fn as
    is."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        if features is None:
            raise ValueError("features must be defined.")
        _check_tensor(features, None)
        receiver = ServingInputReceiver(
            features=features, receiver_tensors=receiver_tensors,
            receiver_tensors_alternatives=receiver_tensors_alternatives)
        return super().__new__(
            cls, features=receiver.features[SINGLE_FEATURE_DEFAULT_NAME],
            receiver_tensors=receiver.receiver_tensors,
            receiver_tensors_alternatives=receiver.receiver_tensors_alternatives)


def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A serving_input_receiver_fn that takes serialized tf.Examples (`examples`) and parses
    them with `feature_spec`."""
    def serving_input_receiver_fn():
        serialized_tf_example = placeholder(dtype=dtypes.string, shape=[default_batch_size],
                                            name="input_example_tensor")
        receiver_tensors = {"examples": serialized_tf_example}
        features = parse_example(serialized_tf_example, feature_spec)
        return ServingInputReceiver(features, receiver_tensors)
    return serving_input_receiver_fn


def _placeholder_from_tensor(t, default_batch_size=None):
    shape_list = t.get_shape().as_list()
    shape_list[0] = default_batch_size
    return placeholder(dtype=t.dtype, shape=tensor_shape.TensorShape(shape_list),
                       name=t.op.name)


def _placeholders_from_receiver_tensors_dict(input_vals, default_batch_size=None):
    return {name: _placeholder_from_tensor(t, default_batch_size)
            for name, t in input_vals.items()}


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A serving_input_receiver_fn whose features are placeholders shaped like `features`
    (a dict of tensors; batch dimension `default_batch_size`), named like them."""
    def serving_input_receiver_fn():
        receiver_tensors = _placeholders_from_receiver_tensors_dict(features,
                                                                    default_batch_size)
        return ServingInputReceiver(receiver_tensors, receiver_tensors.copy())
    return serving_input_receiver_fn


class SupervisedInputReceiver(collections.namedtuple(
        "SupervisedInputReceiver", ["features", "labels", "receiver_tensors"])):
    """What a TRAIN or EVAL export's input_receiver_fn returns: features and labels for the
    model_fn, and the tensors a request feeds."""

    def __new__(cls, features, labels, receiver_tensors):
        for input_vals in (features, labels):
            wrap_and_check_input_tensors(input_vals, "feature", allow_int_keys=True)
        receiver_tensors = wrap_and_check_input_tensors(receiver_tensors, "receiver_tensor")
        return super().__new__(cls, features=features, labels=labels,
                               receiver_tensors=receiver_tensors)


def build_raw_supervised_input_receiver_fn(features, labels, default_batch_size=None):
    """An input_receiver_fn for TRAIN/EVAL exports: placeholders shaped like `features` and
    `labels` (tensors or dicts of tensors), all of them receiver tensors."""
    if isinstance(features, dict) and isinstance(labels, dict):
        overlap = set(features) & set(labels)
        if overlap:
            raise ValueError("Features and labels must have distinct names. Overlapping "
                             f"names: {overlap}")

    def supervised_input_receiver_fn():
        def placeholders(values, default_name):
            if isinstance(values, dict):
                made = _placeholders_from_receiver_tensors_dict(values, default_batch_size)
                return made, made
            made = _placeholder_from_tensor(values, default_batch_size)
            return made, {default_name: made}
        feature_out, feature_receivers = placeholders(features, SINGLE_FEATURE_DEFAULT_NAME)
        label_out, label_receivers = placeholders(labels, SINGLE_LABEL_DEFAULT_NAME)
        receiver_tensors = dict(feature_receivers)
        receiver_tensors.update(label_receivers)
        return SupervisedInputReceiver(feature_out, label_out, receiver_tensors)
    return supervised_input_receiver_fn


def build_all_signature_defs(receiver_tensors, export_outputs,
                             receiver_tensors_alternatives=None, serving_only=True):
    """{signature name: SignatureDef} for every export output (and every alternative
    receiver as `<receiver>:<output>`); outputs that can't take the receiver are left out."""
    if not isinstance(receiver_tensors, dict):
        receiver_tensors = {SINGLE_RECEIVER_DEFAULT_NAME: receiver_tensors}
    if export_outputs is None or not isinstance(export_outputs, dict):
        raise ValueError(f"export_outputs must be a dict and not {type(export_outputs)}")
    signature_def_map, excluded = {}, {}
    receivers = [(None, receiver_tensors)]
    for receiver_name, alt in (receiver_tensors_alternatives or {}).items():
        if not isinstance(alt, dict):
            alt = {SINGLE_RECEIVER_DEFAULT_NAME: alt}
        receivers.append((receiver_name or "None", alt))
    for receiver_name, tensors in receivers:
        for output_key, export_output in export_outputs.items():
            name = f"{output_key or 'None'}"
            if receiver_name is not None:
                name = f"{receiver_name}:{name}"
            try:
                signature_def_map[name] = export_output.as_signature_def(tensors)
            except ValueError as e:
                excluded[name] = str(e)
    for name, why in excluded.items():
        logging.warning("Export includes no signature for '%s' because: %s", name, why)
    if serving_only:
        return {k: v for k, v in signature_def_map.items()
                if signature_def_utils.is_valid_signature(v)}
    return signature_def_map


def get_timestamped_export_dir(export_dir_base):
    """export_dir_base/<seconds since the epoch> (bytes, as TF returns it)."""
    base = export_dir_base.decode() if isinstance(export_dir_base, bytes) else export_dir_base
    return get_timestamped_dir(os.fspath(base), file_ops.exists).encode()


def get_temp_export_dir(timestamped_export_dir):
    """The temp-<timestamp> sibling an export is written to before it is renamed."""
    dirname, basename = os.path.split(timestamped_export_dir)
    if isinstance(basename, bytes):
        return os.path.join(dirname, b"temp-" + basename)
    return os.path.join(dirname, "temp-" + basename)


class ExportMixin:
    """Estimator's export_saved_model and export_savedmodel."""

    def export_saved_model(self, export_dir_base, serving_input_receiver_fn,
                           assets_extra=None, as_text=False, checkpoint_path=None,
                           experimental_mode=ModeKeys.PREDICT):
        """Exports the latest (or given) checkpoint as a SavedModel in a new timestamped
        directory under export_dir_base; returns that directory (bytes)."""
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        return self._export_all_saved_models(
            export_dir_base, {experimental_mode: serving_input_receiver_fn},
            assets_extra=assets_extra, as_text=as_text, checkpoint_path=checkpoint_path,
            strip_default_attrs=True)

    def export_savedmodel(self, export_dir_base, serving_input_receiver_fn, assets_extra=None,
                          as_text=False, checkpoint_path=None, strip_default_attrs=False):
        """The older spelling of export_saved_model."""
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        return self._export_all_saved_models(
            export_dir_base, {ModeKeys.PREDICT: serving_input_receiver_fn},
            assets_extra=assets_extra, as_text=as_text, checkpoint_path=checkpoint_path,
            strip_default_attrs=strip_default_attrs)

    def experimental_export_all_saved_models(self, export_dir_base, input_receiver_fn_map,
                                             assets_extra=None, as_text=False,
                                             checkpoint_path=None):
        """Exports one SavedModel with a MetaGraphDef per mode of `input_receiver_fn_map`
        ({ModeKeys: input_receiver_fn}; TRAIN and EVAL take SupervisedInputReceivers)."""
        return self._export_all_saved_models(export_dir_base, input_receiver_fn_map,
                                             assets_extra=assets_extra, as_text=as_text,
                                             checkpoint_path=checkpoint_path,
                                             strip_default_attrs=True)

    def _export_checkpoint_path(self, checkpoint_path):
        if checkpoint_path:
            return checkpoint_path
        checkpoint_path = self.latest_checkpoint()
        if checkpoint_path:
            return checkpoint_path
        if self._warm_start_settings:
            checkpoint_path = self._warm_start_settings.ckpt_to_initialize_from
            if file_ops.isdir(checkpoint_path):
                checkpoint_path = checkpoint_management.latest_checkpoint(checkpoint_path)
            return checkpoint_path
        raise ValueError(f"Couldn't find trained model at {self._model_dir}.")

    def _export_all_saved_models(self, export_dir_base, input_receiver_fn_map,
                                 assets_extra=None, as_text=False, checkpoint_path=None,
                                 strip_default_attrs=True):
        checkpoint_path = self._export_checkpoint_path(checkpoint_path)
        export_dir = get_timestamped_export_dir(export_dir_base)
        temp_export_dir = get_temp_export_dir(export_dir)
        builder = SavedModelBuilder(temp_export_dir.decode())
        save_variables = True
        for mode in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            if input_receiver_fn_map.get(mode):
                self._add_meta_graph_for_mode(builder, input_receiver_fn_map, checkpoint_path,
                                              save_variables, mode=mode,
                                              strip_default_attrs=strip_default_attrs)
                save_variables = False
        if save_variables:
            raise ValueError("No valid modes for exporting found. Got "
                             f"{input_receiver_fn_map.keys()}.")
        builder.save(as_text)
        if assets_extra:
            extra_path = os.path.join(temp_export_dir.decode(), "assets.extra")
            for dest_relative, source in assets_extra.items():
                dest_absolute = os.path.join(extra_path, dest_relative)
                file_ops.makedirs(os.path.dirname(dest_absolute))
                file_ops.copy(source, dest_absolute)
        file_ops.rename(temp_export_dir.decode(), export_dir.decode())
        return export_dir

    def _add_meta_graph_for_mode(self, builder, input_receiver_fn_map, checkpoint_path,
                                 save_variables=True, mode=ModeKeys.PREDICT, export_tags=None,
                                 check_variables=True, strip_default_attrs=True):
        export_tags = export_tags or EXPORT_TAG_MAP[mode]
        with Graph().as_default() as g:
            self._create_and_assert_global_step(g)
            set_random_seed(self._config.tf_random_seed)
            receiver = input_receiver_fn_map[mode]()
            spec = self._call_model_fn(features=receiver.features,
                                       labels=getattr(receiver, "labels", None), mode=mode,
                                       config=self.config)
            export_outputs = export_outputs_for_mode(
                spec.mode, serving_export_outputs=spec.export_outputs,
                predictions=spec.predictions, loss=spec.loss, metrics=spec.eval_metric_ops)
            signature_def_map = build_all_signature_defs(
                receiver.receiver_tensors, export_outputs,
                getattr(receiver, "receiver_tensors_alternatives", None),
                serving_only=(mode == ModeKeys.PREDICT))
            with Session(config=self._session_config) as session:
                local_init_op = (spec.scaffold.local_init_op
                                 if spec.scaffold.local_init_op is not None
                                 else Scaffold.default_local_init_op())
                graph_saver = spec.scaffold.saver or Saver(sharded=True)
                if check_variables:
                    try:
                        graph_saver.restore(session, checkpoint_path)
                    except errors.NotFoundError as e:
                        raise ValueError(
                            "Could not load all requested variables from checkpoint. Please "
                            "make sure your model_fn does not expect variables that were not "
                            "saved in the checkpoint.\n\nEncountered error with mode "
                            f"`{mode}` while restoring checkpoint from: `{checkpoint_path}`. "
                            f"Full Traceback:\n\n{e}") from e
                builder._add_train_op(spec.train_op)
                kwargs = dict(tags=export_tags, signature_def_map=signature_def_map,
                              assets_collection=get_collection(GraphKeys.ASSET_FILEPATHS),
                              main_op=local_init_op, saver=graph_saver,
                              strip_default_attrs=strip_default_attrs)
                if save_variables:
                    builder.add_meta_graph_and_variables(session, **kwargs)
                else:
                    builder.add_meta_graph(**kwargs)
