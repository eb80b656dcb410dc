"""`tf.train.Saver`: saves and restores variables through the graph ops of TF's Saver.

`save` runs the SaverDef's save tensor with the checkpoint path fed to its filename
tensor, records the checkpoint in the `checkpoint` state file, deletes checkpoints past
`max_to_keep` and writes the meta graph; `restore` runs the restore op. Because the ops and
their names are TF's, `sess.run(saver_def.restore_op_name, {saver_def.filename_tensor_name:
path})` works as in TF, and a graph exported here restores in TF.
"""
import logging
import os

from trainflow._src.framework import errors, meta_graph
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.ops.state.variables import prepend_name_scope, strip_name_scope
from trainflow._src.protos import saver_pb2
from trainflow._src.train import checkpoint_management, saver_object_restore
from trainflow._src.train import training_util
from trainflow._src.train.meta_graph_io import export_meta_graph
from trainflow._src.train.saveable_object import all_saveable_objects
from trainflow._src.train.saver_builder import BaseSaverBuilder, BulkSaverBuilder  # noqa: F401
from trainflow._src.train.saver_rotation import CheckpointRotation

_log = logging.getLogger(__name__)


def _as_str(path):
    if isinstance(path, bytes):
        return path.decode("utf-8")
    return os.fspath(path)


class Saver(CheckpointRotation):
    """Saves and restores variables (`tf.train.Saver`).

    Args:
      var_list: a list of Variables / PartitionedVariables / SaveableObjects, a dict of
        checkpoint name -> Variable (or list of slices), or None for every global variable
        and saveable object.
      reshape: restore tensors saved with another shape of the same size.
      sharded: save one shard per device.
      max_to_keep: how many recent checkpoints to keep (None or 0: all).
      keep_checkpoint_every_n_hours: keep one checkpoint per this many hours as well.
      name: the name scope of the saver's ops (default "save").
      restore_sequentially: restore one variable after the other.
      saver_def: build from this SaverDef instead (ops must exist in the graph).
      builder: a SaverBuilder (default BulkSaverBuilder).
      defer_build: build the ops later, in `build()`.
      allow_empty: with no variables, save and restore do nothing instead of raising.
      write_version: SaverDef.V2 (default) or SaverDef.V1.
      pad_step_number: write "-00000001" style step suffixes.
      save_relative_paths: write paths relative to the directory into the state file.
      filename: the default checkpoint path of the filename tensor.

    Raises:
      ValueError: defer_build with a var_list; no variables to save; a bad saver_def.
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                 saver_def=None, builder=None, defer_build=False, allow_empty=False,
                 write_version=saver_pb2.SaverDef.V2, pad_step_number=False,
                 save_relative_paths=False, filename=None):
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. Either "
                             "set defer_build=False or var_list=None.")
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially
        self.saver_def = saver_def
        self._builder = builder
        self._is_built = False
        self._allow_empty = allow_empty
        self._is_empty = None
        self._write_version = write_version
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._init_rotation()
        if not defer_build:
            self.build()
        if self.saver_def:
            self._check_saver_def()
            self._write_version = self.saver_def.version
        self._save_relative_paths = save_relative_paths
        self._object_restore_saver = None

    # -- building -------------------------------------------------------------------------------
    def build(self):
        """Adds the save and restore ops (once)."""
        self._build(self._filename, build_save=True, build_restore=True)

    def _build(self, checkpoint_path, build_save, build_restore):
        if self._is_built:
            return
        self._is_built = True
        if not self.saver_def:
            if self._builder is None:
                self._builder = BulkSaverBuilder(self._write_version)
            if self._var_list is None:
                self._var_list = all_saveable_objects()
            if not self._var_list:
                if self._allow_empty:
                    self._is_empty = True
                    return
                raise ValueError("No variables to save")
            self._is_empty = False
            self.saver_def = self._builder._build_internal(
                self._var_list, reshape=self._reshape, sharded=self._sharded,
                max_to_keep=self._max_to_keep,
                keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours,
                name=self._name, restore_sequentially=self._restore_sequentially,
                filename=checkpoint_path, build_save=build_save, build_restore=build_restore)
        elif self._name:
            # With a saver_def, `name` is the scope the SaverDef's graph was imported under.
            d = self.saver_def
            d.filename_tensor_name = prepend_name_scope(d.filename_tensor_name, self._name)
            d.save_tensor_name = prepend_name_scope(d.save_tensor_name, self._name)
            d.restore_op_name = prepend_name_scope(d.restore_op_name, self._name)
        self._check_saver_def()
        self._reset_keep_time()

    def _check_saver_def(self):
        if not isinstance(self.saver_def, saver_pb2.SaverDef):
            raise ValueError(f"saver_def must be a saver_pb2.SaverDef: {self.saver_def}")
        if not self.saver_def.save_tensor_name:
            raise ValueError(f"saver_def must specify the save_tensor_name: {self.saver_def}")
        if not self.saver_def.restore_op_name:
            raise ValueError(f"saver_def must specify the restore_op_name: {self.saver_def}")

    def as_saver_def(self):
        """The SaverDef of this saver."""
        return self.saver_def

    def to_proto(self, export_scope=None):
        """The SaverDef with names relative to `export_scope` (None if outside it)."""
        if export_scope is None:
            return self.saver_def
        d = self.saver_def
        if not (d.filename_tensor_name.startswith(export_scope) and
                d.save_tensor_name.startswith(export_scope) and
                d.restore_op_name.startswith(export_scope)):
            return None
        out = saver_pb2.SaverDef()
        out.CopyFrom(d)
        out.filename_tensor_name = strip_name_scope(d.filename_tensor_name, export_scope)
        out.save_tensor_name = strip_name_scope(d.save_tensor_name, export_scope)
        out.restore_op_name = strip_name_scope(d.restore_op_name, export_scope)
        return out

    @staticmethod
    def from_proto(saver_def, import_scope=None):
        """A Saver for `saver_def` (ops already in the graph, under `import_scope`)."""
        return Saver(saver_def=saver_def, name=import_scope)

    # -- saving ---------------------------------------------------------------------------------
    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False):
        """Saves the variables to `save_path` (with `-STEP` appended if `global_step`).

        Returns:
          The checkpoint prefix written (None for an empty saver).

        Raises:
          RuntimeError: the ops were not built yet (defer_build).
          TypeError: `sess` is not a Session.
          ValueError: `latest_filename` has a directory part or equals the file name, or
            the parent directory is missing (V1).
        """
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if latest_filename is None:
            latest_filename = "checkpoint"
        if self._write_version != saver_pb2.SaverDef.V2:
            _log.warning("TensorFlow's V1 checkpoint format has been deprecated; consider "
                         "the V2 format (the default).")
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = _as_str(save_path)
        if global_step is not None:
            if not isinstance(global_step, int):
                global_step = training_util.global_step(sess, global_step)
            step = f"{int(global_step):08d}" if self._pad_step_number else str(int(global_step))
            checkpoint_file = f"{save_path}-{step}"
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError(f"'latest_filename' collides with 'save_path': "
                                 f"'{latest_filename}' and '{save_path}'")
        if not hasattr(sess, "run") or not hasattr(sess, "graph"):
            raise TypeError(f"'sess' must be a Session; {sess}")
        parent = os.path.dirname(save_path)
        model_checkpoint_path = None
        if not self._is_empty:
            try:
                model_checkpoint_path = _as_str(sess.run(
                    self.saver_def.save_tensor_name,
                    {self.saver_def.filename_tensor_name: checkpoint_file}))
            except (errors.FailedPreconditionError, errors.NotFoundError) as exc:
                if parent and not os.path.isdir(parent):
                    raise ValueError(f"Parent directory of {save_path} doesn't exist, can't "
                                     "save.") from exc
                raise
            if write_state:
                self._RecordLastCheckpoint(model_checkpoint_path)
                checkpoint_management.update_checkpoint_state_internal(
                    save_dir=parent, model_checkpoint_path=model_checkpoint_path,
                    all_model_checkpoint_paths=self.last_checkpoints,
                    latest_filename=latest_filename,
                    save_relative_paths=self._save_relative_paths)
                self._MaybeDeleteOldCheckpoints(meta_graph_suffix=meta_graph_suffix)
        if write_meta_graph:
            filename = checkpoint_management.meta_graph_filename(
                checkpoint_file, meta_graph_suffix=meta_graph_suffix)
            with sess.graph.as_default():
                self.export_meta_graph(filename, strip_default_attrs=strip_default_attrs,
                                       save_debug_info=save_debug_info)
        return model_checkpoint_path

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False,
                          export_scope=None, clear_devices=False,
                          clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False):
        """Writes the default graph with this saver's SaverDef as a MetaGraphDef.

        Returns:
          The MetaGraphDef.
        """
        return export_meta_graph(
            filename=filename,
            graph_def=get_default_graph().as_graph_def(add_shapes=True),
            saver_def=self.saver_def, collection_list=collection_list, as_text=as_text,
            export_scope=export_scope, clear_devices=clear_devices,
            clear_extraneous_savers=clear_extraneous_savers,
            strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info)

    # -- restoring --------------------------------------------------------------------------------
    def restore(self, sess, save_path):
        """Restores the variables from the checkpoint at `save_path`.

        An object-based checkpoint (tf.train.Checkpoint) is restored through its object graph.

        Raises:
          ValueError: `save_path` is None or names no checkpoint.
          NotFoundError: a variable is missing from the checkpoint (naming it).
          InvalidArgumentError: a shape or dtype differs from the checkpoint's.
        """
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        prefix = _as_str(save_path)
        if not checkpoint_management.checkpoint_exists(prefix):
            raise ValueError("The passed save_path is not a valid checkpoint: " + prefix)
        _log.info("Restoring parameters from %s", prefix)
        try:
            sess.run(self.saver_def.restore_op_name,
                     {self.saver_def.filename_tensor_name: prefix})
        except errors.NotFoundError as err:
            names_to_keys = saver_object_restore.object_graph_key_mapping(prefix)
            if names_to_keys is None:
                raise _wrap_restore_error(err, "a Variable name or other graph key that is "
                                               "missing") from None
            _log.warning("Restoring an object-based checkpoint using a name-based saver. This "
                         "may be somewhat fragile, and will re-build the Saver. Instead, "
                         "consider loading object-based checkpoints using "
                         "tf.train.Checkpoint().")
            self._object_restore_saver = saver_object_restore.saver_from_object_based_checkpoint(
                prefix, self._var_list, self._builder, names_to_keys,
                self._object_restore_saver, Saver)
            self._object_restore_saver.restore(sess=sess, save_path=prefix)
        except errors.InvalidArgumentError as err:
            raise _wrap_restore_error(err, "a mismatch between the current graph and the "
                                           "graph") from None


def _wrap_restore_error(err, what):
    msg = ("Restoring from checkpoint failed. This is most likely due to {} from the "
           "checkpoint. Please ensure that you have not altered the graph expected based on "
           "the checkpoint. Original error:\n\n{}").format(what, err.message)
    return type(err)(err.node_def, err.op, msg)


def _saver_to_proto(saver, export_scope=None):
    return saver.to_proto(export_scope=export_scope)


def _saver_from_proto(saver_def, import_scope=None):
    return Saver.from_proto(saver_def, import_scope=import_scope)


def _register_collection_protos():
    meta_graph.register_proto_function(GraphKeys.SAVERS, proto_type=saver_pb2.SaverDef,
                                       to_proto=_saver_to_proto, from_proto=_saver_from_proto)


_register_collection_protos()
