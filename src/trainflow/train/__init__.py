"""The `tf.train` namespace, by topic: optimizers, global step and schedules, checkpoints
and savers, sessions and hooks, queues and input pipelines, Example protos, distributed
training."""
# Registers the Apply*/SparseApply* op types the optimizers build.
from trainflow._src.ops.state import training_ops as _training_ops  # noqa: F401

# --- optimizers ---
from trainflow._src.train.optimizer import Optimizer  # noqa: F401
from trainflow._src.train.adadelta import AdadeltaOptimizer  # noqa: F401
from trainflow._src.train.adagrad import AdagradOptimizer  # noqa: F401
from trainflow._src.train.adagrad_da import AdagradDAOptimizer  # noqa: F401
from trainflow._src.train.adam import AdamOptimizer  # noqa: F401
from trainflow._src.train.ftrl import FtrlOptimizer  # noqa: F401
from trainflow._src.train.gradient_descent import GradientDescentOptimizer  # noqa: F401
from trainflow._src.train.momentum import MomentumOptimizer  # noqa: F401
from trainflow._src.train.proximal_adagrad import ProximalAdagradOptimizer  # noqa: F401
from trainflow._src.train.proximal_gradient_descent import (  # noqa: F401
    ProximalGradientDescentOptimizer)
from trainflow._src.train.rmsprop import RMSPropOptimizer  # noqa: F401
from trainflow._src.ops.state.sdca_ops import sdca_fprint, sdca_shrink_l1  # noqa: F401
from trainflow._src.ops.state.sdca_optimizer import sdca_optimizer  # noqa: F401
from trainflow.train import experimental  # noqa: F401  (loss scaling, mixed precision)

# --- global step, learning-rate schedules, moving averages ---
from trainflow._src.train.training_util import (  # noqa: F401
    assert_global_step, create_global_step, get_global_step, get_or_create_global_step,
    global_step)
from trainflow._src.train.learning_rate_decay import (  # noqa: F401
    cosine_decay, cosine_decay_restarts, exponential_decay, inverse_time_decay,
    linear_cosine_decay, natural_exp_decay, noisy_linear_cosine_decay, piecewise_constant,
    piecewise_constant_decay, polynomial_decay)
from trainflow._src.train.moving_averages import ExponentialMovingAverage  # noqa: F401

# --- checkpoints, savers and meta graphs ---
from trainflow._src.protos.saver_pb2 import SaverDef  # noqa: F401
from trainflow._src.train.saver import Saver  # noqa: F401
from trainflow._src.train.checkpoint_management import (  # noqa: F401
    checkpoint_exists, generate_checkpoint_state_proto, get_checkpoint_mtimes,
    get_checkpoint_state, latest_checkpoint, remove_checkpoint, update_checkpoint_state)
from trainflow._src.train.checkpoint_reader import NewCheckpointReader  # noqa: F401
from trainflow._src.train.checkpoint_utils import (  # noqa: F401
    checkpoints_iterator, list_variables, load_checkpoint, load_variable)
from trainflow._src.train.checkpoint_init import init_from_checkpoint  # noqa: F401
from trainflow._src.train.warm_start import VocabInfo, warm_start  # noqa: F401
from trainflow._src.train.checkpoint_object import Checkpoint, CheckpointOptions  # noqa: F401
from trainflow._src.train.checkpoint_manager import CheckpointManager  # noqa: F401
from trainflow._src.train.meta_graph_io import export_meta_graph, write_graph  # noqa: F401
from trainflow._src.train.meta_graph_restore import import_meta_graph  # noqa: F401
from trainflow._src.train.quantize_training import do_quantize_training_on_graphdef  # noqa: F401

# --- sessions, hooks and training loops ---
from trainflow._src.train.monitored_session import (  # noqa: F401
    MonitoredSession, SingularMonitoredSession)
from trainflow._src.train.training_session import MonitoredTrainingSession  # noqa: F401
from trainflow._src.train.session_creators import (  # noqa: F401
    ChiefSessionCreator, SessionCreator, WorkerSessionCreator)
from trainflow._src.train.scaffold import Scaffold  # noqa: F401
from trainflow._src.train.session_manager import SessionManager  # noqa: F401
from trainflow._src.train.supervisor import Supervisor  # noqa: F401
from trainflow._src.train.basic_loops import basic_train_loop  # noqa: F401
from trainflow._src.train.session_run_hook import (  # noqa: F401
    SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues)
from trainflow._src.train.basic_session_run_hooks import (  # noqa: F401
    FeedFnHook, FinalOpsHook, GlobalStepWaiterHook, LoggingTensorHook,
    NanLossDuringTrainingError, NanTensorHook, StopAtStepHook)
from trainflow._src.train.checkpoint_hooks import (  # noqa: F401
    CheckpointSaverHook, CheckpointSaverListener)
from trainflow._src.train.summary_hooks import (  # noqa: F401
    ProfilerHook, StepCounterHook, SummarySaverHook)
from trainflow._src.train.session_run_timer import SecondOrStepTimer  # noqa: F401
from trainflow._src.summary.summary_iterator import summary_iterator  # noqa: F401
from trainflow._src.summary.writer import SummaryWriter  # noqa: F401 - pre-1.0 FileWriter

# --- queues, threads and input pipelines ---
from trainflow.train import queue_runner  # noqa: F401
from trainflow._src.train.coordinator import Coordinator, LooperThread  # noqa: F401
from trainflow._src.train.queue_runner_impl import (  # noqa: F401
    QueueRunner, add_queue_runner, start_queue_runners)
from trainflow._src.train.input import (  # noqa: F401
    batch, batch_join, input_producer, limit_epochs, match_filenames_once, maybe_batch,
    maybe_batch_join, maybe_shuffle_batch, maybe_shuffle_batch_join, range_input_producer,
    shuffle_batch, shuffle_batch_join, slice_input_producer, string_input_producer)

# --- Example protos ---
from trainflow._src.protos.example_pb2 import Example, SequenceExample  # noqa: F401
from trainflow._src.protos.feature_pb2 import (  # noqa: F401
    BytesList, Feature, FeatureList, FeatureLists, Features, FloatList, Int64List)

# --- distributed training ---
from trainflow._src.protos.cluster_pb2 import ClusterDef, JobDef  # noqa: F401
from trainflow._src.protos.tensorflow_server_pb2 import ServerDef  # noqa: F401
from trainflow._src.train.cluster_spec import ClusterSpec  # noqa: F401
from trainflow._src.distributed.server_lib import Server  # noqa: F401
from trainflow._src.train.device_setter import replica_device_setter  # noqa: F401
from trainflow._src.train.sync_replicas_optimizer import SyncReplicasOptimizer  # noqa: F401
