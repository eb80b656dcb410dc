"""`tf.saved_model.simple_save`: a SavedModel for serving in one call."""
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.saved_model import signature_constants, signature_def_utils, tag_constants
from trainflow._src.saved_model.builder import SavedModelBuilder


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """Writes the session's graph and variables to `export_dir` as a SavedModel tagged
    `serve`, with one predict signature (`serving_default`) of `inputs` and `outputs`
    ({name: tensor}), the graph's ASSET_FILEPATHS as assets and devices cleared.

    Args:
      session: the Session holding the variables.
      export_dir: the directory to create (it must not exist or be empty).
      inputs, outputs: {name: Tensor} of the signature.
      legacy_init_op: an op the loader runs after restoring (the main op).
    """
    signature_def_map = {
        signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
            signature_def_utils.predict_signature_def(inputs, outputs)}
    builder = SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(
        session, tags=[tag_constants.SERVING], signature_def_map=signature_def_map,
        assets_collection=get_default_graph().get_collection(GraphKeys.ASSET_FILEPATHS),
        main_op=legacy_init_op, clear_devices=True)
    builder.save()
