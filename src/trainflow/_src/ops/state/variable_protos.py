"""Registers VariableDef (de)serialization for the variable collections of a MetaGraphDef."""
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.meta_graph import register_proto_function
from trainflow._src.ops.state.variables import Variable
from trainflow._src.protos import variable_pb2


def _to_proto(variable, export_scope=None):
    return variable.to_proto(export_scope=export_scope)


def _from_proto(variable_def, import_scope=None):
    return Variable.from_proto(variable_def, import_scope=import_scope)


for _key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES,
             GraphKeys.MOVING_AVERAGE_VARIABLES, GraphKeys.LOCAL_VARIABLES,
             GraphKeys.MODEL_VARIABLES, GraphKeys.GLOBAL_STEP,
             GraphKeys.METRIC_VARIABLES):
    register_proto_function(_key, proto_type=variable_pb2.VariableDef, to_proto=_to_proto,
                            from_proto=_from_proto)
