"""The graph a Saver builds (TF's BaseSaverBuilder / BulkSaverBuilder).

Names and structure follow TensorFlow, so a SaverDef points at the same nodes:
`save/filename` and `save/Const` (PlaceholderWithDefault, the filename tensor),
`save/SaveV2` (or `save/SaveSlices` for V1) and `save/control_dependency` (the save
tensor), `save/RestoreV2` on CPU with one `save/Assign_N` per variable, grouped into
`save/restore_all`. Sharded savers save per device through `save/ShardedFilename`
files that `save/MergeV2Checkpoints` merges (V2) or a `save/ShardedFilespec` names (V1).
"""
import os

from trainflow._src.framework.constant_op import constant, placeholder_with_default
from trainflow._src.framework.device_spec import DeviceSpec
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.scopes import control_dependencies, device, name_scope
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import control_flow_ops
from trainflow._src.ops.io import save_restore
from trainflow._src.ops.state.partitioned_variables import PartitionedVariable
from trainflow._src.ops.string.regex_match import regex_full_match
from trainflow._src.ops.string.string_ops import string_join
from trainflow._src.protos import saver_pb2
from trainflow._src.train.saveable_object import (
    SaveableObject, SaveSpec, validate_and_slice_inputs)


def _set_cpu0(device_string):
    """`device_string` with its device type and index replaced by CPU:0."""
    spec = DeviceSpec.from_string(device_string or "")
    return spec.replace(device_type="CPU", device_index=0).to_string()


class BaseSaverBuilder:
    """Builds save and restore ops, restoring each tensor with its own RestoreV2 op.

    Args:
      write_version: SaverDef.V1 or SaverDef.V2.
    """

    # TensorFlow's aliases: custom saveables subclass `saver.BaseSaverBuilder.SaveableObject`.
    SaveSpec = SaveSpec
    SaveableObject = SaveableObject

    def __init__(self, write_version=saver_pb2.SaverDef.V2):
        self._write_version = write_version

    def save_op(self, filename_tensor, saveables):
        """The op saving every spec of `saveables` to `filename_tensor`.

        Raises:
          RuntimeError: an unknown write version.
        """
        names, tensors, slices = [], [], []
        for saveable in saveables:
            for spec in saveable.specs:
                names.append(spec.name)
                tensors.append(spec.tensor)
                slices.append(spec.slice_spec)
        if self._write_version == saver_pb2.SaverDef.V1:
            with name_scope("save") as scope:
                return save_restore.save_slices(
                    filename_tensor, constant(names, name="tensor_names"),
                    constant(slices, name="shapes_and_slices"), tensors, name=scope)
        if self._write_version == saver_pb2.SaverDef.V2:
            with name_scope("SaveV2") as scope:
                return save_restore.save_v2(
                    filename_tensor, constant(names, name="tensor_names"),
                    constant(slices, name="shape_and_slices"), tensors, name=scope)
        raise RuntimeError(f"Unexpected write_version: {self._write_version}")

    def bulk_restore(self, filename_tensor, saveables, preferred_shard, restore_sequentially):
        """One restored tensor per spec of `saveables`, in order."""
        all_tensors = []
        assign_deps = []
        for saveable in saveables:
            if restore_sequentially:
                with control_dependencies(assign_deps):
                    tensors = self.restore_op(filename_tensor, saveable, preferred_shard)
                assign_deps = [t.op for t in tensors]
            else:
                tensors = self.restore_op(filename_tensor, saveable, preferred_shard)
            all_tensors.extend(tensors)
        return all_tensors

    def restore_op(self, filename_tensor, saveable, preferred_shard):
        """The restored tensors of one saveable (a RestoreV2 op per spec)."""
        tensors = []
        for spec in saveable.specs:
            with device("cpu:0"):
                tensors.append(save_restore.restore_v2(
                    filename_tensor, [spec.name], [spec.slice_spec], [spec.dtype])[0])
        return tensors

    def sharded_filename(self, filename_tensor, shard, num_shards):
        """`filename-SSSSS-of-NNNNN` for one shard."""
        return save_restore.sharded_filename(filename_tensor, shard, num_shards)

    # -- pieces of the graph -----------------------------------------------------------------
    def _AddSaveOps(self, filename_tensor, saveables):  # noqa: N802 - TF's name
        save = self.save_op(filename_tensor, saveables)
        return control_flow_ops.with_dependencies([save], filename_tensor)

    def _AddShardedSaveOpsForV2(self, checkpoint_prefix, per_device):  # noqa: N802
        # Each shard is written under "<prefix>_temp/part-SSSSS-of-NNNNN" (".part" on S3),
        # then merged into "<prefix>" and the temporary directory removed.
        with device("CPU"):
            suffix = array_ops.where(
                regex_full_match(checkpoint_prefix, "^s3://.*"), constant(".part"),
                constant(os.path.normpath("_temp/part")))
            tmp_prefix = string_join([checkpoint_prefix, suffix])
        num_shards = len(per_device)
        sharded_saves, sharded_prefixes = [], []
        num_shards_tensor = constant(num_shards, name="num_shards")
        last_device = None
        for shard, (dev, saveables) in enumerate(per_device):
            last_device = dev
            with device(_set_cpu0(dev)):
                filename = self.sharded_filename(tmp_prefix, shard, num_shards_tensor)
                sharded_prefixes.append(filename)
                sharded_saves.append(self._AddSaveOps(filename, saveables))
        with control_dependencies([x.op for x in sharded_saves]):
            with device(_set_cpu0(last_device)):
                merge = save_restore.merge_v2_checkpoints(
                    sharded_prefixes, checkpoint_prefix, delete_old_dirs=True)
                with control_dependencies([merge]):
                    return array_ops.identity(checkpoint_prefix)

    def _AddShardedSaveOps(self, filename_tensor, per_device):  # noqa: N802
        if self._write_version == saver_pb2.SaverDef.V2:
            return self._AddShardedSaveOpsForV2(filename_tensor, per_device)
        num_shards = len(per_device)
        sharded_saves = []
        num_shards_tensor = constant(num_shards, name="num_shards")
        for shard, (dev, saveables) in enumerate(per_device):
            with device(dev):
                filename = self.sharded_filename(filename_tensor, shard, num_shards_tensor)
                sharded_saves.append(self._AddSaveOps(filename, saveables))
        with control_dependencies([x.op for x in sharded_saves]):
            return save_restore.sharded_filespec(filename_tensor, num_shards_tensor)

    def _AddRestoreOps(self, filename_tensor, saveables, restore_sequentially,  # noqa: N802
                       reshape, preferred_shard=-1, name="restore_all"):
        all_tensors = self.bulk_restore(filename_tensor, saveables, preferred_shard,
                                        restore_sequentially)
        assign_ops = []
        idx = 0
        for saveable in saveables:
            tensors = all_tensors[idx:idx + len(saveable.specs)]
            idx += len(saveable.specs)
            shapes = None
            if reshape:
                shapes = []
                for spec in saveable.specs:
                    v = spec.tensor
                    shape = v.get_shape()
                    shapes.append(shape if shape.is_fully_defined() else array_ops.shape(v))
            assign_ops.append(saveable.restore(tensors, shapes))
        return control_flow_ops.group(*assign_ops, name=name)

    def _AddShardedRestoreOps(self, filename_tensor, per_device,  # noqa: N802
                              restore_sequentially, reshape):
        sharded_restores = []
        for shard, (dev, saveables) in enumerate(per_device):
            with device(dev):
                sharded_restores.append(self._AddRestoreOps(
                    filename_tensor, saveables, restore_sequentially, reshape,
                    preferred_shard=shard, name="restore_shard"))
        return control_flow_ops.group(*sharded_restores, name="restore_all")

    @staticmethod
    def _GroupByDevices(saveables):  # noqa: N802
        """[(device, saveables)] sorted by canonical device name.

        Raises:
          ValueError: the specs of one saveable lie on several devices.
        """
        per_device = {}
        for saveable in saveables:
            devices = {DeviceSpec.from_string(s.device or "").to_string()
                       for s in saveable.specs}
            if len(devices) != 1:
                raise ValueError(f"All tensors of a saveable object must be on the same "
                                 f"device: {saveable.name}")
            per_device.setdefault(devices.pop(), []).append(saveable)
        return sorted(per_device.items(), key=lambda t: t[0])

    def _build_internal(self, names_to_saveables, reshape=False, sharded=False,
                        max_to_keep=5, keep_checkpoint_every_n_hours=10000.0, name=None,
                        restore_sequentially=False, filename="model", build_save=True,
                        build_restore=True):
        """Adds save/restore ops for `names_to_saveables`; returns the SaverDef.

        Raises:
          ValueError: save and restore are not built together, or bad `var_list` entries.
        """
        if not build_save or not build_restore:
            raise ValueError("save and restore operations need to be built together  when "
                             "eager execution is not enabled.")
        saveables = validate_and_slice_inputs(names_to_saveables)
        if max_to_keep is None:
            max_to_keep = 0
        graph = get_default_graph()
        with name_scope(name, "save", [s.op for s in saveables]) as scope:
            filename_tensor = placeholder_with_default(filename or "model", shape=(),
                                                       name="filename")
            filename_tensor = placeholder_with_default(filename_tensor, shape=(), name="Const")
            if sharded:
                per_device = self._GroupByDevices(saveables)
                save_tensor = self._AddShardedSaveOps(filename_tensor, per_device)
                restore_op = self._AddShardedRestoreOps(filename_tensor, per_device,
                                                        restore_sequentially, reshape)
            else:
                save_tensor = self._AddSaveOps(filename_tensor, saveables)
                restore_op = self._AddRestoreOps(filename_tensor, saveables,
                                                 restore_sequentially, reshape)
        del scope
        # A PartitionedVariable kept in a collection needs its concat op in the graph, so
        # that an importer of the meta graph can look it up.
        for key in graph.get_all_collection_keys():
            for element in graph.get_collection(key):
                if isinstance(element, PartitionedVariable):
                    try:
                        graph.get_operation_by_name(element.name)
                    except KeyError:
                        element.as_tensor()
        return saver_pb2.SaverDef(
            filename_tensor_name=filename_tensor.name, save_tensor_name=save_tensor.name,
            restore_op_name=restore_op.name, max_to_keep=max_to_keep, sharded=sharded,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            version=self._write_version)


class BulkSaverBuilder(BaseSaverBuilder):
    """A SaverBuilder restoring every tensor with one RestoreV2 op (the Saver's default)."""

    def bulk_restore(self, filename_tensor, saveables, preferred_shard, restore_sequentially):
        del restore_sequentially
        names, slices, types = [], [], []
        for saveable in saveables:
            for spec in saveable.specs:
                names.append(spec.name)
                slices.append(spec.slice_spec)
                types.append(spec.dtype)
        with device("cpu:0"):
            with name_scope("RestoreV2") as scope:
                return save_restore.restore_v2(
                    filename_tensor, constant(names, name="tensor_names"),
                    constant(slices, name="shape_and_slices"), types, name=scope)
