"""The `tf.train` namespace."""
# Each area adds its public names in its own section below.

# --- formats: Example protos and other protos (issue 3, records/events) ---
from trainflow.protos.cluster_pb2 import ClusterDef, JobDef  # noqa: F401
from trainflow.protos.example_pb2 import Example, SequenceExample  # noqa: F401
from trainflow.protos.feature_pb2 import (  # noqa: F401
    BytesList, Feature, FeatureList, FeatureLists, Features, FloatList, Int64List)
from trainflow.protos.saver_pb2 import SaverDef  # noqa: F401
from trainflow.protos.tensorflow_server_pb2 import ServerDef  # noqa: F401

# --- formats: checkpoint reading, checkpoint state (issue 3, checkpoints) ---
from trainflow.train.checkpoint_management import (  # noqa: E402,F401
    checkpoint_exists, generate_checkpoint_state_proto, get_checkpoint_mtimes,
    get_checkpoint_state, latest_checkpoint, remove_checkpoint, update_checkpoint_state)
from trainflow.train.checkpoint_reader import NewCheckpointReader  # noqa: E402,F401
from trainflow.train.checkpoint_utils import (  # noqa: E402,F401
    checkpoints_iterator, list_variables, load_checkpoint, load_variable,
    wait_for_new_checkpoint)

# --- events: summary_iterator, SummaryWriter alias (issue 3, events) ---
from trainflow.summary.summary_iterator import summary_iterator  # noqa: E402,F401
from trainflow.summary.writer import SummaryWriter  # noqa: E402,F401

# --- graph core / training (issues 2, 4) ---
from trainflow.ops.state import training_ops as _training_ops  # noqa: E402,F401  (registers Apply* ops)
from trainflow.train.adam import AdamOptimizer  # noqa: E402,F401
from trainflow.train.gradient_descent import GradientDescentOptimizer  # noqa: E402,F401
from trainflow.train.optimizer import Optimizer  # noqa: E402,F401
from trainflow.train.training_util import (  # noqa: E402,F401
    assert_global_step, create_global_step, get_global_step, get_or_create_global_step,
    global_step)

# --- distributed: cluster, device setter, server (issue 17) ---
from trainflow.train.cluster_spec import ClusterSpec  # noqa: E402,F401
from trainflow.train.device_setter import replica_device_setter  # noqa: E402,F401
from trainflow.distributed.server_lib import Server  # noqa: E402,F401
