"""`tf.saved_model.builder.SavedModelBuilder` (TF1): writes a SavedModel, TensorFlow's
export format: `saved_model.pb` (or `.pbtxt`) holding tagged MetaGraphDefs, the variables
as a tensor-bundle checkpoint under `variables/`, and the asset files under `assets/`."""
import filecmp
import logging
import os

from google.protobuf import any_pb2, text_format

from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.operation import Operation
from trainflow._src.framework.tensor import Tensor
from trainflow._src.gfile import file_ops
from trainflow._src.protos import meta_graph_pb2, saved_model_pb2, saver_pb2, types_pb2
from trainflow._src.saved_model import constants, utils
from trainflow._src.train import checkpoint_management
from trainflow._src.train.saveable_object import all_saveable_objects
from trainflow._src.train.saver import Saver
from trainflow._src.protos._pool import POOL

_log = logging.getLogger(__name__)

# The type URL TensorFlow gives an AssetFileDef packed into the assets collection: TF's
# loader unpacks only that name, so ours packs under it too (and reads either).


def _text(path):
    path = os.fspath(path)
    return path.decode("utf-8") if isinstance(path, bytes) else path


class SavedModelBuilder:
    """Builds a SavedModel in `export_dir`: one `add_meta_graph_and_variables` (which saves
    the variables), any number of `add_meta_graph` (graphs sharing those variables), then
    `save`.

    Raises:
      AssertionError: `export_dir` exists and is not empty.
    """

    def __init__(self, export_dir):
        self._saved_model = saved_model_pb2.SavedModel()
        self._saved_model.saved_model_schema_version = constants.SAVED_MODEL_SCHEMA_VERSION
        self._export_dir = _text(export_dir)
        if file_ops.exists(self._export_dir):
            if file_ops.listdir(self._export_dir):
                raise AssertionError(
                    "Export directory already exists, and isn't empty. Please choose a "
                    "different export directory, or delete all the contents of the specified "
                    f"directory: {self._export_dir}")
        else:
            file_ops.makedirs(self._export_dir)
        self._has_saved_variables = False

    # -- collections --------------------------------------------------------------------------
    def _save_and_write_assets(self, assets_collection_to_add=None):
        asset_filename_map = _maybe_save_assets(_add_asset_to_collection,
                                                assets_collection_to_add)
        if not asset_filename_map:
            _log.info("No assets to write.")
            return
        copy_assets_to_destination_dir(asset_filename_map, self._export_dir)

    def _maybe_add_main_op(self, main_op):
        if main_op is None:
            return
        if not isinstance(main_op, Operation):
            raise TypeError(f"main_op needs to be an Operation: {main_op!r}")
        graph = get_default_graph()
        for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
            if graph.get_collection(key):
                raise ValueError("Graph already contains one or more main ops under the "
                                 f"collection {key}.")
        graph.add_to_collection(constants.MAIN_OP_KEY, main_op)

    def _add_train_op(self, train_op):
        if train_op is not None:
            if not isinstance(train_op, (Tensor, Operation)):
                raise TypeError(f"train_op needs to be a Tensor or Op: {train_op!r}")
            get_default_graph().add_to_collection(constants.TRAIN_OP_KEY, train_op)

    def _add_collections(self, assets_collection, main_op, train_op):
        self._save_and_write_assets(assets_collection)
        self._maybe_add_main_op(main_op)
        self._add_train_op(train_op)

    # -- validation ---------------------------------------------------------------------------
    @staticmethod
    def _validate_tensor_info(tensor_info):
        if tensor_info is None:
            raise AssertionError("All TensorInfo protos used in the SignatureDefs must have "
                                 "the name and dtype fields set.")
        if tensor_info.WhichOneof("encoding") is None:
            raise AssertionError("All TensorInfo protos used in the SignatureDefs must have "
                                 "one of the 'encoding' fields (e.g., name or coo_sparse) "
                                 f"set: {tensor_info}")
        if tensor_info.dtype == types_pb2.DT_INVALID:
            raise AssertionError("All TensorInfo protos used in the SignatureDefs must have "
                                 f"the dtype field set: {tensor_info}")

    def _validate_signature_def_map(self, signature_def_map):
        for signature_def in signature_def_map.values():
            for info in signature_def.inputs.values():
                self._validate_tensor_info(info)
            for info in signature_def.outputs.values():
                self._validate_tensor_info(info)
        for key in (constants.INIT_OP_SIGNATURE_KEY, constants.TRAIN_OP_SIGNATURE_KEY):
            if key in signature_def_map:
                raise KeyError(f"SignatureDef map key \"{key}\" is reserved for "
                               "initialization. Please use a different key.")

    # -- meta graphs --------------------------------------------------------------------------
    def _tag_and_add_meta_graph(self, meta_graph_def, tags, signature_def_map):
        meta_graph_def.meta_info_def.tags.extend(tags)
        for key, signature_def in (signature_def_map or {}).items():
            meta_graph_def.signature_def[key].CopyFrom(signature_def)
        self._saved_model.meta_graphs.add().CopyFrom(meta_graph_def)

    @staticmethod
    def _maybe_create_saver(saver=None):
        if not saver:
            saver = Saver(all_saveable_objects(), sharded=True,
                          write_version=saver_pb2.SaverDef.V2, allow_empty=True)
        return saver

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None,
                       legacy_init_op=None, clear_devices=False, main_op=None,
                       strip_default_attrs=False, saver=None):
        """Adds the default graph as a MetaGraphDef tagged `tags`, sharing the variables
        `add_meta_graph_and_variables` saved.

        Args:
          tags: the tags of this MetaGraphDef (a list of strings).
          signature_def_map: {key: SignatureDef}.
          assets_collection: string Const tensors naming asset files to copy to assets/.
          legacy_init_op: the older name of `main_op`.
          clear_devices: drop device fields.
          main_op: an Operation the loader runs after restoring the variables.
          strip_default_attrs: drop attrs equal to their defaults.
          saver: the Saver to export (default: a sharded V2 Saver of every saveable).

        Raises:
          AssertionError: no variables were saved yet, or a signature is malformed.
        """
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been "
                                 "saved yet. Please invoke `add_meta_graph_and_variables()` "
                                 "first.")
        signature_def_map = signature_def_map or {}
        self._validate_signature_def_map(signature_def_map)
        main_op = main_op if main_op is not None else legacy_init_op
        self._add_collections(assets_collection, main_op, None)
        saver = self._maybe_create_saver(saver)
        meta_graph_def = saver.export_meta_graph(clear_devices=clear_devices,
                                                 strip_default_attrs=strip_default_attrs)
        self._tag_and_add_meta_graph(meta_graph_def, tags, signature_def_map)

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None,
                                     assets_collection=None, legacy_init_op=None,
                                     clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None):
        """Saves the session's variables to `variables/` and adds the default graph as the
        first MetaGraphDef, tagged `tags` (arguments as `add_meta_graph`).

        Raises:
          AssertionError: called a second time, or a signature is malformed.
        """
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already "
                                 "been saved. Please invoke `add_meta_graph()` instead.")
        signature_def_map = signature_def_map or {}
        self._validate_signature_def_map(signature_def_map)
        main_op = main_op if main_op is not None else legacy_init_op
        self._add_collections(assets_collection, main_op, None)
        utils.get_or_create_variables_dir(self._export_dir)
        variables_path = utils.get_variables_path(self._export_dir)
        saver = self._maybe_create_saver(saver)
        saver.save(sess, variables_path, write_meta_graph=False, write_state=False)
        meta_graph_def = saver.export_meta_graph(clear_devices=clear_devices,
                                                 strip_default_attrs=strip_default_attrs)
        self._tag_and_add_meta_graph(meta_graph_def, tags, signature_def_map)
        self._has_saved_variables = True

    def save(self, as_text=False):
        """Writes `saved_model.pb` (or `saved_model.pbtxt` with `as_text`) and returns its
        path."""
        if as_text:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
            data = text_format.MessageToString(self._saved_model, descriptor_pool=POOL)
        else:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PB)
            data = self._saved_model.SerializeToString(deterministic=True)
        checkpoint_management.atomic_write_string_to_file(path, data)
        _log.info("SavedModel written to: %s", path)
        return path


Builder = SavedModelBuilder


# -- assets -----------------------------------------------------------------------------------
def _asset_path_from_tensor(path_tensor):
    if not isinstance(path_tensor, Tensor):
        raise TypeError("Asset path tensor must be a Tensor.")
    if path_tensor.op.type != "Const":
        raise TypeError("Asset path tensor must be of type constant.")
    if path_tensor.dtype != dtypes.string:
        raise TypeError("Asset path tensor must be of dtype string.")
    values = path_tensor.op.get_attr("value").string_val
    if len(values) != 1:
        raise TypeError("Asset path tensor must be a scalar.")
    return values[0].decode("utf-8")


def _add_asset_to_collection(asset_filename, asset_tensor):
    asset_proto = meta_graph_pb2.AssetFileDef(filename=asset_filename)
    asset_proto.tensor_info.name = asset_tensor.name
    packed = any_pb2.Any()
    packed.Pack(asset_proto)
    get_default_graph().add_to_collection(constants.ASSETS_KEY, packed)


def _get_unique_asset_filename(asset_filename, asset_filename_map):
    i = 1
    unique = asset_filename
    while unique in asset_filename_map:
        unique = f"{asset_filename}_{i}"
        i += 1
    return unique


def get_asset_filename_to_add(asset_filepath, asset_filename_map):
    """The name an asset gets under assets/: its base name, made unique (`name_1` ...) when
    another file of that name with different contents is there already."""
    asset_filename = os.path.basename(asset_filepath)
    if asset_filename not in asset_filename_map:
        return asset_filename
    other = asset_filename_map[asset_filename]
    if other == asset_filepath:
        return asset_filename
    if not filecmp.cmp(asset_filepath, other, shallow=False):
        return _get_unique_asset_filename(asset_filename, asset_filename_map)
    return asset_filename


def _maybe_save_assets(write_fn, assets_to_add=None):
    asset_filename_map = {}
    if assets_to_add is None:
        _log.info("No assets to save.")
        return asset_filename_map
    for asset_tensor in assets_to_add:
        source = _asset_path_from_tensor(asset_tensor)
        if not source:
            raise ValueError(f"Invalid asset filepath tensor {asset_tensor}")
        asset_filename = get_asset_filename_to_add(source, asset_filename_map)
        write_fn(asset_filename, asset_tensor)
        asset_filename_map[asset_filename] = source
    _log.info("Assets added to graph.")
    return asset_filename_map


def copy_assets_to_destination_dir(asset_filename_map, destination_dir):
    """Copies each asset to `destination_dir/assets/<its name there>` (once)."""
    assets_dir = utils.get_or_create_assets_dir(destination_dir)
    for basename, source in asset_filename_map.items():
        target = os.path.join(assets_dir, basename)
        if file_ops.exists(source) and source != target and not file_ops.exists(target):
            file_ops.copy(source, target)
    _log.info("Assets written to: %s", assets_dir)
