"""`tf.saved_model.signature_def_utils.MethodNameUpdater`: changes the method names of a
SavedModel's SignatureDefs in place (or into a new directory), leaving the rest as it is."""
import logging
import os

from google.protobuf import text_format

from trainflow._src.gfile import file_ops
from trainflow._src.saved_model import constants
from trainflow._src.saved_model.loader import parse_saved_model
from trainflow._src.train import checkpoint_management
from trainflow._src.protos._pool import POOL

_log = logging.getLogger(__name__)


class MethodNameUpdater:
    """Updates the method name(s) of a SavedModel's SignatureDefs.

    ```python
    updater = MethodNameUpdater(export_dir)
    updater.replace_method_name("serving_default", "tensorflow/serving/regress", ["serve"])
    updater.save()
    ```
    """

    def __init__(self, export_dir):
        self._export_dir = os.fspath(export_dir)
        self._saved_model = parse_saved_model(self._export_dir)

    def replace_method_name(self, signature_key, method_name, tags=None):
        """Sets the method name of signature `signature_key` in the MetaGraphDefs whose tag
        set is `tags` (every MetaGraphDef when None).

        Raises:
          ValueError: a missing key or name, no MetaGraphDef with those tags, or one without
            that signature.
        """
        if not signature_key:
            raise ValueError("`signature_key` must be defined.")
        if not method_name:
            raise ValueError("`method_name` must be defined.")
        if tags is not None and not isinstance(tags, list):
            tags = [tags]
        found = False
        for meta_graph_def in self._saved_model.meta_graphs:
            if tags is None or set(tags) == set(meta_graph_def.meta_info_def.tags):
                if signature_key not in meta_graph_def.signature_def:
                    raise ValueError(
                        f"MetaGraphDef associated with tags {tags} does not have a "
                        f"signature_def with key: '{signature_key}'. This means either you "
                        "specified the wrong signature key or forgot to put the "
                        "signature_def with the corresponding key in your SavedModel.")
                meta_graph_def.signature_def[signature_key].method_name = method_name
                found = True
        if not found:
            raise ValueError(
                f"MetaGraphDef associated with tags {tags} could not be found in SavedModel. "
                "This means either you specified invalid tags or your SavedModel does not "
                "have a MetaGraphDef with the specified tags.")

    def save(self, new_export_dir=None):
        """Writes the SavedModel proto (in the format it was read in) to `new_export_dir`,
        or over the original. Only the proto is written: copy the variables and assets
        yourself when writing elsewhere."""
        as_text = file_ops.exists(os.path.join(self._export_dir,
                                               constants.SAVED_MODEL_FILENAME_PBTXT))
        target = os.fspath(new_export_dir) if new_export_dir else self._export_dir
        if as_text:
            path = os.path.join(target, constants.SAVED_MODEL_FILENAME_PBTXT)
            data = text_format.MessageToString(self._saved_model, descriptor_pool=POOL)
        else:
            path = os.path.join(target, constants.SAVED_MODEL_FILENAME_PB)
            data = self._saved_model.SerializeToString(deterministic=True)
        checkpoint_management.atomic_write_string_to_file(path, data)
        _log.info("SavedModel written to: %s", path)
