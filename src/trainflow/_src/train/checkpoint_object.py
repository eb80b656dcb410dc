"""`tf.train.Checkpoint` (TF 2.4's compat.v1, graph mode) and `CheckpointOptions`.

A Checkpoint saves the variables reachable from its keyword arguments under object-path
keys, plus the serialized object graph (`_CHECKPOINTABLE_OBJECT_GRAPH`), so TensorFlow reads
what it writes and the other way round. In graph mode saving runs in a session; restoring
adds restore ops that `run_restore_ops` / `initialize_or_restore` run.
"""
import os

from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import device
from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import placeholder
from trainflow._src.ops.io import save_restore
from trainflow._src.ops.state.variables import Variable
from trainflow._src.train import checkpoint_management, iterator_state_ops
from trainflow._src.train import object_graph
from trainflow._src.train.checkpoint_status import (
    CheckpointLoadStatus, InitializationOnlyStatus, NameBasedSaverStatus, session_or_default)
from trainflow._src.train.checkpoint_reader import NewCheckpointReader


class CheckpointOptions:
    """Options of Checkpoint save/restore (`tf.train.CheckpointOptions`); trainflow saves
    and restores on the host, so the I/O device and async options change nothing."""

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False,
                 experimental_skip_slot_variables=False,
                 experimental_sharding_callback=None):
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = experimental_enable_async_checkpoint
        self.experimental_write_callbacks = experimental_write_callbacks
        self.enable_async = enable_async
        self.experimental_skip_slot_variables = experimental_skip_slot_variables
        self.experimental_sharding_callback = experimental_sharding_callback


class Checkpoint:
    """Groups trackable objects (variables, optimizers, objects holding them) for saving.

    Args:
      **kwargs: the objects to save, by name.

    Raises:
      ValueError: a value is not trackable, or a name is reserved.
    """

    def __init__(self, **kwargs):
        self._names = []
        self._save_counter = None
        self._save_assign_op = None
        self._save_ops = {}
        for name, value in sorted(kwargs.items(), key=lambda kv: kv[0]):
            if name == "save_counter":
                raise ValueError("`save_counter` is reserved for the Checkpoint's own counter")
            if not object_graph._is_trackable(value):
                raise ValueError(f"`Checkpoint` was expecting a trackable object (an object "
                                 f"derived from `Trackable`), got {value}.")
            setattr(self, name, value)
            self._names.append(name)

    def _checkpoint_children(self):
        kids = [(n, getattr(self, n)) for n in self._names]
        if self._save_counter is not None:
            kids.append(("save_counter", self._save_counter))
        return kids

    def _maybe_create_save_counter(self):
        if self._save_counter is None:
            with get_default_graph().control_dependencies(None), device("/cpu:0"):
                self._save_counter = Variable(0, dtype=dtypes.int64, trainable=False,
                                              name="save_counter",
                                              collections=[GraphKeys.GLOBAL_VARIABLES])
        return self._save_counter

    @property
    def save_counter(self):
        """The int64 variable counting `save` calls (created on first use)."""
        return self._maybe_create_save_counter()

    # -- writing ------------------------------------------------------------------------------
    def _save_op(self, view):
        saved = dict(view.variables, **view.iterators)
        key = (id(get_default_graph()), tuple(sorted((k, id(v)) for k, v in saved.items())))
        cached = self._save_ops.get(key)
        if cached is None:
            names = sorted(saved)
            with device("/cpu:0"):
                prefix = placeholder(dtypes.string, [], name="saver_filename")
                graph_value = placeholder(dtypes.string, [], name="object_graph")
                tensors = [saved[n]._ref() if n in view.variables else
                           iterator_state_ops.state_tensor(saved[n]._iterator_resource)
                           for n in names] + [graph_value]
                op = save_restore.save_v2(prefix, names + [object_graph.OBJECT_GRAPH_KEY],
                                          [""] * (len(names) + 1), tensors)
            cached = self._save_ops[key] = (op, prefix, graph_value)
        return cached

    def write(self, file_prefix, session=None, options=None):
        """Writes a checkpoint at `file_prefix` (no counter, no state file); returns it."""
        del options
        session = session_or_default(session)
        file_prefix = os.fspath(file_prefix)
        view = object_graph.ObjectGraphView(self)
        op, prefix, graph_value = self._save_op(view)
        session.run(op, {prefix: file_prefix,
                         graph_value: view.to_proto().SerializeToString()})
        return file_prefix

    def save(self, file_prefix, session=None, options=None):
        """Saves at `file_prefix-N` (N: the incremented save counter), records it in the
        directory's `checkpoint` state file, and returns that path."""
        session = session_or_default(session)
        if self._save_counter is None:
            session.run(self.save_counter.initializer)
        if self._save_assign_op is None:
            with get_default_graph().colocate_with(self._save_counter.op):
                self._save_assign_op = self._save_counter.assign_add(1)
        number = session.run(self._save_assign_op)
        file_path = self.write(f"{os.fspath(file_prefix)}-{int(number)}", session, options)
        checkpoint_management.update_checkpoint_state_internal(
            save_dir=os.path.dirname(os.fspath(file_prefix)), model_checkpoint_path=file_path,
            all_model_checkpoint_paths=[file_path], save_relative_paths=True)
        return file_path

    # -- reading --------------------------------------------------------------------------------
    def restore(self, save_path, options=None):
        """Adds restore ops for the objects the checkpoint at `save_path` has values for.

        Returns:
          A status: `run_restore_ops(session)`, `initialize_or_restore(session)`,
          `assert_consumed()`, `assert_existing_objects_matched()`,
          `assert_nontrivial_match()`, `expect_partial()`. With `save_path=None`, a status
          that only initializes.

        Raises:
          NotFoundError: no checkpoint at `save_path`.
        """
        del options
        self._maybe_create_save_counter()
        view = object_graph.ObjectGraphView(self)
        if save_path is None:
            return InitializationOnlyStatus(view)
        save_path = os.fspath(save_path)
        with NewCheckpointReader(save_path) as reader:
            graph_proto = reader.get_object_graph()
            dtypes_map = reader.get_variable_to_dtype_map()
        if graph_proto is None:
            return NameBasedSaverStatus(view, save_path, optional=[self._save_counter])
        return CheckpointLoadStatus(view, graph_proto, save_path, dtypes_map)

    def read(self, save_path, options=None):
        """`restore` for a path written by `write` (the same here); returns the status."""
        return self.restore(save_path, options)
