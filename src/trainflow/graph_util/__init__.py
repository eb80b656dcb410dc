"""The `tf.graph_util` namespace: GraphDef surgery and freezing variables into constants."""
from trainflow._src.framework.graph_def import import_graph_def  # noqa: F401
from trainflow._src.graph_util.convert_variables import (  # noqa: F401
    convert_variables_to_constants)
from trainflow._src.graph_util.graph_util_impl import (  # noqa: F401
    extract_sub_graph, must_run_on_cpu, remove_training_nodes, tensor_shape_from_node_def_name)
