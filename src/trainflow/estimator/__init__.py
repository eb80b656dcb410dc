"""`tf.estimator` (tensorflow_estimator 1.15's TF1 API): Estimator, EstimatorSpec,
RunConfig, train_and_evaluate, exporters, warm starting, and the hooks TF re-exports."""
from trainflow.estimator import experimental  # noqa: F401
from trainflow.estimator import export  # noqa: F401
from trainflow.estimator import inputs  # noqa: F401
from trainflow._src.estimator.estimator import Estimator, VocabInfo, WarmStartSettings  # noqa: F401
from trainflow._src.estimator.exporter import (  # noqa: F401
    BestExporter, Exporter, FinalExporter, LatestExporter)
from trainflow._src.estimator.mode_keys import ModeKeys  # noqa: F401
from trainflow._src.estimator.model_fn import EstimatorSpec  # noqa: F401
from trainflow._src.estimator.run_config import RunConfig  # noqa: F401
from trainflow._src.estimator.training import (  # noqa: F401
    EvalSpec, TrainSpec, train_and_evaluate)
from trainflow._src.train.basic_session_run_hooks import (  # noqa: F401
    FeedFnHook, FinalOpsHook, GlobalStepWaiterHook, LoggingTensorHook,
    NanLossDuringTrainingError, NanTensorHook, StopAtStepHook)
from trainflow._src.train.checkpoint_hooks import (  # noqa: F401
    CheckpointSaverHook, CheckpointSaverListener)
from trainflow._src.train.session_run_hook import (  # noqa: F401
    SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues)
from trainflow._src.train.session_run_timer import SecondOrStepTimer  # noqa: F401
from trainflow._src.train.summary_hooks import (  # noqa: F401
    ProfilerHook, StepCounterHook, SummarySaverHook)
from trainflow._src.estimator.canned.dnn import (  # noqa: F401
    DNNClassifier, DNNEstimator, DNNRegressor)
from trainflow._src.estimator.canned.baseline import (  # noqa: F401
    BaselineClassifier, BaselineEstimator, BaselineRegressor)
from trainflow._src.estimator.canned.dnn_linear_combined import (  # noqa: F401
    DNNLinearCombinedClassifier, DNNLinearCombinedEstimator, DNNLinearCombinedRegressor)
from trainflow._src.estimator.canned.linear import (  # noqa: F401
    LinearClassifier, LinearEstimator, LinearRegressor)
from trainflow._src.estimator.canned.parsing_utils import (  # noqa: F401
    classifier_parse_example_spec, regressor_parse_example_spec)
from trainflow._src.estimator.extenders import add_metrics  # noqa: F401
from trainflow._src.estimator.canned.head_v2 import (  # noqa: F401
    BinaryClassHead, Head, LogisticRegressionHead, MultiClassHead, PoissonRegressionHead,
    RegressionHead)
from trainflow._src.estimator.canned.multi_label_head import MultiLabelHead  # noqa: F401
from trainflow._src.estimator.canned.multi_head import MultiHead  # noqa: F401
