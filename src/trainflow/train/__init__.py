"""The `tf.train` namespace."""
# Each area adds its public names in its own section below.

# --- formats: Example protos and other protos (issue 3, records/events) ---
from trainflow._src.protos.cluster_pb2 import ClusterDef, JobDef  # noqa: F401
from trainflow._src.protos.example_pb2 import Example, SequenceExample  # noqa: F401
from trainflow._src.protos.feature_pb2 import (  # noqa: F401
    BytesList, Feature, FeatureList, FeatureLists, Features, FloatList, Int64List)
from trainflow._src.protos.saver_pb2 import SaverDef  # noqa: F401
from trainflow._src.protos.tensorflow_server_pb2 import ServerDef  # noqa: F401

# --- formats: checkpoint reading, checkpoint state (issue 3, checkpoints) ---
from trainflow._src.train.checkpoint_management import (  # noqa: E402,F401
    checkpoint_exists, generate_checkpoint_state_proto, get_checkpoint_mtimes,
    get_checkpoint_state, latest_checkpoint, remove_checkpoint, update_checkpoint_state)
from trainflow._src.train.checkpoint_reader import NewCheckpointReader  # noqa: E402,F401
from trainflow._src.train.checkpoint_utils import (  # noqa: E402,F401
    checkpoints_iterator, list_variables, load_checkpoint, load_variable,
    wait_for_new_checkpoint)

# --- events: summary_iterator, SummaryWriter alias (issue 3, events) ---
from trainflow._src.summary.summary_iterator import summary_iterator  # noqa: E402,F401
from trainflow._src.summary.writer import SummaryWriter  # noqa: E402,F401

# --- graph core / training (issues 2, 4) ---
from trainflow._src.ops.state import training_ops as _training_ops  # noqa: E402,F401  (registers Apply* ops)
from trainflow._src.train.adadelta import AdadeltaOptimizer  # noqa: E402,F401
from trainflow._src.train.adagrad import AdagradOptimizer  # noqa: E402,F401
from trainflow._src.train.adagrad_da import AdagradDAOptimizer  # noqa: E402,F401
from trainflow._src.train.adam import AdamOptimizer  # noqa: E402,F401
from trainflow._src.train.ftrl import FtrlOptimizer  # noqa: E402,F401
from trainflow._src.train.gradient_descent import GradientDescentOptimizer  # noqa: E402,F401
from trainflow._src.train.momentum import MomentumOptimizer  # noqa: E402,F401
from trainflow._src.train.proximal_adagrad import ProximalAdagradOptimizer  # noqa: E402,F401
from trainflow._src.train.proximal_gradient_descent import (  # noqa: E402,F401
    ProximalGradientDescentOptimizer)
from trainflow._src.train.rmsprop import RMSPropOptimizer  # noqa: E402,F401
from trainflow._src.train.optimizer import Optimizer  # noqa: E402,F401
from trainflow._src.train.training_util import (  # noqa: E402,F401
    assert_global_step, create_global_step, get_global_step, get_or_create_global_step,
    global_step)

# --- training math: schedules (issue 9) ---
from trainflow._src.train.learning_rate_decay import (  # noqa: E402,F401
    cosine_decay, cosine_decay_restarts, exponential_decay, inverse_time_decay,
    linear_cosine_decay, natural_exp_decay, noisy_linear_cosine_decay, piecewise_constant,
    piecewise_constant_decay, polynomial_decay)
from trainflow._src.train.moving_averages import (  # noqa: E402,F401
    ExponentialMovingAverage, assign_moving_average)
from trainflow.train import experimental  # noqa: E402,F401
from trainflow._src.ops.state.sdca_ops import sdca_shrink_l1  # noqa: E402,F401
from trainflow._src.ops.state.sdca_ops import sdca_fprint  # noqa: E402,F401
from trainflow._src.ops.state.sdca_optimizer import sdca_optimizer  # noqa: E402,F401
from trainflow._src.train.quantize_training import do_quantize_training_on_graphdef  # noqa: E402,F401
# --- queues, threads and input pipelines (issue 12) ---
from trainflow.train import queue_runner  # noqa: E402,F401
from trainflow._src.train.coordinator import Coordinator, LooperThread  # noqa: E402,F401
from trainflow._src.train.queue_runner_impl import (  # noqa: E402,F401
    QueueRunner, add_queue_runner, start_queue_runners)
from trainflow._src.train.input import (  # noqa: E402,F401
    batch, batch_join, input_producer, limit_epochs, match_filenames_once, maybe_batch,
    maybe_batch_join, maybe_shuffle_batch, maybe_shuffle_batch_join, range_input_producer,
    shuffle_batch, shuffle_batch_join, slice_input_producer, string_input_producer)
# --- Saver, meta graphs (issue 10) ---
from trainflow._src.train.meta_graph_io import export_meta_graph, write_graph  # noqa: E402,F401
from trainflow._src.train.meta_graph_restore import import_meta_graph  # noqa: E402,F401
from trainflow._src.train.saver import Saver  # noqa: E402,F401
from trainflow._src.train.saver_builder import BaseSaverBuilder, BulkSaverBuilder  # noqa: E402,F401
from trainflow._src.train.checkpoint_init import init_from_checkpoint  # noqa: E402,F401
from trainflow._src.train.warm_start import VocabInfo, warm_start  # noqa: E402,F401
from trainflow._src.train.checkpoint_object import Checkpoint, CheckpointOptions  # noqa: E402,F401
from trainflow._src.train.checkpoint_manager import CheckpointManager  # noqa: E402,F401
# --- hooks, monitored sessions, session manager, supervisor (issue 13) ---
from trainflow._src.train.basic_loops import basic_train_loop  # noqa: E402,F401
from trainflow._src.train.basic_session_run_hooks import (  # noqa: E402,F401
    FeedFnHook, FinalOpsHook, GlobalStepWaiterHook, LoggingTensorHook,
    NanLossDuringTrainingError, NanTensorHook, StopAtStepHook)
from trainflow._src.train.checkpoint_hooks import (  # noqa: E402,F401
    CheckpointSaverHook, CheckpointSaverListener)
from trainflow._src.train.monitored_session import (  # noqa: E402,F401
    MonitoredSession, SingularMonitoredSession)
from trainflow._src.train.scaffold import Scaffold  # noqa: E402,F401
from trainflow._src.train.session_creators import (  # noqa: E402,F401
    ChiefSessionCreator, SessionCreator, WorkerSessionCreator)
from trainflow._src.train.session_manager import SessionManager  # noqa: E402,F401
from trainflow._src.train.session_run_hook import (  # noqa: E402,F401
    SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues)
from trainflow._src.train.session_run_timer import SecondOrStepTimer  # noqa: E402,F401
from trainflow._src.train.summary_hooks import (  # noqa: E402,F401
    ProfilerHook, StepCounterHook, SummarySaverHook)
from trainflow._src.train.training_session import MonitoredTrainingSession  # noqa: E402,F401
from trainflow._src.train.supervisor import Supervisor  # noqa: E402,F401

# --- distributed: cluster description and device placement (issue 17) ---
from trainflow._src.train.cluster_spec import ClusterSpec  # noqa: E402,F401
from trainflow._src.train.device_setter import replica_device_setter  # noqa: E402,F401
# --- distributed: server (issue 17) ---
from trainflow._src.distributed.server_lib import Server  # noqa: E402,F401
# --- distributed: synchronous replicas (issue 17) ---
from trainflow._src.train.sync_replicas_optimizer import SyncReplicasOptimizer  # noqa: E402,F401
