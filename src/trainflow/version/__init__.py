"""`tf.version`: the TensorFlow API level trainflow implements and the GraphDef versions."""
from trainflow._src.framework.versions import (  # noqa: F401
    COMPILER_VERSION, GIT_VERSION, GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER,
    GRAPH_DEF_VERSION_MIN_PRODUCER, VERSION)
