"""`tf.saved_model.loader` (TF1): `load` imports the MetaGraphDef of a SavedModel whose
tags match into the session's graph, restores its variables from `variables/`, and runs
its main op (or legacy init op) with the asset paths fed."""
import logging
import os

from google.protobuf import message, text_format

from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.op_def_proto import add_default_attrs
from trainflow._src.gfile import file_ops
from trainflow._src.gfile.gfile import GFile
from trainflow._src.protos import meta_graph_pb2, saved_model_pb2
from trainflow._src.saved_model import constants, utils
from trainflow._src.train.meta_graph_restore import _import_meta_graph_with_return_elements
from trainflow._src.train.saveable_object import all_saveable_objects
from trainflow._src.train.saver import Saver
from trainflow._src.protos._pool import POOL

_log = logging.getLogger(__name__)

# A text SavedModel from TensorFlow spells packed protos out under TF's package name; ours
# has the same messages under `trainflow`.


def _text(path):
    path = os.fspath(path)
    return path.decode("utf-8") if isinstance(path, bytes) else path


def parse_saved_model(export_dir):
    """The SavedModel proto of `export_dir` (`saved_model.pb`, else `saved_model.pbtxt`).

    Raises:
      IOError: neither file exists, or the one there does not parse.
    """
    export_dir = _text(export_dir)
    path_pb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    path_pbtxt = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    saved_model = saved_model_pb2.SavedModel()
    if file_ops.exists(path_pb):
        with GFile(path_pb, "rb") as f:
            content = f.read()
        try:
            saved_model.ParseFromString(content)
        except message.DecodeError as e:
            raise OSError(f"Cannot parse file {path_pb}: {e}.") from None
        return saved_model
    if file_ops.exists(path_pbtxt):
        with GFile(path_pbtxt, "rb") as f:
            content = f.read()
        try:
            text = content.decode("utf-8")
            text_format.Merge(text, saved_model, descriptor_pool=POOL)
        except (text_format.ParseError, UnicodeDecodeError) as e:
            raise OSError(f"Cannot parse file {path_pbtxt}: {e}.") from None
        return saved_model
    raise OSError(f"SavedModel file does not exist at: {export_dir}/"
                  f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|"
                  f"{constants.SAVED_MODEL_FILENAME_PB}}}")


def _unpack_assets(col_def):
    protos = []
    for packed in col_def.any_list.value:
        if packed.type_url.rsplit("/", 1)[-1] == "tensorflow.AssetFileDef":
            protos.append(meta_graph_pb2.AssetFileDef.FromString(packed.value))
    return protos


def get_asset_tensors(export_dir, meta_graph_def_to_load, import_scope=None):
    """{asset tensor name: the asset's path under `export_dir/assets`}: the feeds of the
    init op."""
    if meta_graph_def_to_load.asset_file_def:
        asset_protos = list(meta_graph_def_to_load.asset_file_def)
    elif constants.ASSETS_KEY in meta_graph_def_to_load.collection_def:
        asset_protos = _unpack_assets(meta_graph_def_to_load.collection_def[
            constants.ASSETS_KEY])
    else:
        asset_protos = []
    assets_dir = os.path.join(_text(export_dir), constants.ASSETS_DIRECTORY)
    tensors = {}
    for asset_proto in asset_protos:
        name = asset_proto.tensor_info.name
        if import_scope:
            name = f"{import_scope}/{name}"
        tensors[name] = os.path.join(assets_dir, asset_proto.filename)
    return tensors


def _get_main_op_tensor(meta_graph_def_to_load, init_op_key=constants.MAIN_OP_KEY):
    if init_op_key not in meta_graph_def_to_load.collection_def:
        return None
    names = meta_graph_def_to_load.collection_def[init_op_key].node_list.value
    if len(names) != 1:
        raise RuntimeError(f"Expected exactly one SavedModel init op. Found: {list(names)}")
    return get_default_graph().get_collection(init_op_key)[0]


def get_init_op(meta_graph_def, import_scope=None):
    """The op to run after restoring: the signature-listed init op of a TF2-built model,
    else the main op, else the legacy init op (None when there is none)."""
    key = constants.INIT_OP_SIGNATURE_KEY
    if key in meta_graph_def.signature_def:
        return utils.get_element_from_tensor_info(
            meta_graph_def.signature_def[key].outputs[key], import_scope=import_scope)
    return (_get_main_op_tensor(meta_graph_def, constants.MAIN_OP_KEY)
            or _get_main_op_tensor(meta_graph_def, constants.LEGACY_INIT_OP_KEY))


def maybe_saved_model_directory(export_dir):
    """Whether `export_dir` holds a SavedModel file (`saved_model.pb` or `.pbtxt`)."""
    export_dir = _text(export_dir)
    return (file_ops.exists(os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT))
            or file_ops.exists(os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)))


contains_saved_model = maybe_saved_model_directory


class SavedModelLoader:
    """Loads a SavedModel in steps: `load_graph`, `restore_variables`, `run_init_ops`
    (what `load` does at once)."""

    def __init__(self, export_dir):
        self._export_dir = _text(export_dir)
        self._variables_path = utils.get_variables_path(self._export_dir)
        self._saved_model = parse_saved_model(self._export_dir)

    @property
    def export_dir(self):
        return self._export_dir

    @property
    def variables_path(self):
        return self._variables_path

    @property
    def saved_model(self):
        return self._saved_model

    def get_meta_graph_def_from_tags(self, tags):
        """The MetaGraphDef whose tag set equals `tags`.

        Raises:
          RuntimeError: no MetaGraphDef has that tag set.
        """
        available = []
        for meta_graph_def in self._saved_model.meta_graphs:
            tag_set = set(meta_graph_def.meta_info_def.tags)
            available.append(tag_set)
            if tag_set == set(tags):
                return meta_graph_def
        raise RuntimeError(
            f"MetaGraphDef associated with tags {str(tags).strip('[]')} could not be found "
            "in SavedModel, with available tags '" + str(available) + "'. To inspect "
            "available tag-sets in the SavedModel, please use the SavedModel CLI: "
            "`saved_model_cli`.")

    def load_graph(self, graph, tags, import_scope=None, **saver_kwargs):
        """Imports the MetaGraphDef tagged `tags` into `graph`; returns (the Saver or None,
        the requested return elements)."""
        meta_graph_def = self.get_meta_graph_def_from_tags(tags)
        # As TF's importer, fill in the defaults of stripped attrs in the proto itself (the
        # MetaGraphDef `load` returns shows them).
        add_default_attrs(meta_graph_def.graph_def.node)
        with graph.as_default():
            return _import_meta_graph_with_return_elements(
                meta_graph_def, import_scope=import_scope, **saver_kwargs)

    def restore_variables(self, sess, saver, import_scope=None):
        """Restores the variables from `variables/` with `saver`.

        Raises:
          ValueError: the graph has variables but no saver was given.
        """
        with sess.graph.as_default():
            if saver is None and not all_saveable_objects(scope=import_scope):
                _log.info("The specified SavedModel has no variables; no checkpoints were "
                          "restored.")
            elif isinstance(saver, Saver):
                saver.restore(sess, self._variables_path)
            else:
                raise ValueError("No tf.train.Saver object was passed to the function "
                                 "`SavedModelLoader.restore_variables`. Since there are "
                                 "variables in the graph, a saver is required.")

    def run_init_ops(self, sess, tags, import_scope=None):
        """Runs the MetaGraphDef's init op, feeding the asset paths."""
        meta_graph_def = self.get_meta_graph_def_from_tags(tags)
        with sess.graph.as_default():
            assets = get_asset_tensors(self._export_dir, meta_graph_def,
                                       import_scope=import_scope)
            init_op = get_init_op(meta_graph_def, import_scope)
            if init_op is not None:
                sess.run(fetches=[init_op], feed_dict=assets)

    def load(self, sess, tags, import_scope=None, **saver_kwargs):
        """Loads the MetaGraphDef tagged `tags` into `sess` (see `load`)."""
        with sess.graph.as_default():
            saver, _ = self.load_graph(sess.graph, tags, import_scope, **saver_kwargs)
            self.restore_variables(sess, saver, import_scope)
            self.run_init_ops(sess, tags, import_scope)
        return self.get_meta_graph_def_from_tags(tags)


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Loads the SavedModel in `export_dir` into `sess`: imports the MetaGraphDef whose tags
    equal `tags` into `sess.graph` (under `import_scope`), restores its variables and runs
    its main op with the asset paths fed.

    Args:
      sess: the Session to restore the variables in.
      tags: the tag set of the MetaGraphDef to load (a list of strings).
      export_dir: the SavedModel directory.
      import_scope: a name scope for the imported ops.
      **saver_kwargs: passed to the Saver import_meta_graph builds.

    Returns:
      The loaded MetaGraphDef (its signature_def map names the inputs and outputs).

    Raises:
      RuntimeError: no MetaGraphDef has those tags.
      IOError: `export_dir` holds no SavedModel.
    """
    return SavedModelLoader(export_dir).load(sess, tags, import_scope, **saver_kwargs)
