"""`tf.logging`: TF1's logging functions and verbosity levels, on the `trainflow` logger."""
from trainflow._src.tf_logging import (  # noqa: F401
    DEBUG, ERROR, FATAL, INFO, TaskLevelStatusMessage, WARN, debug, error, fatal, flush,
    get_verbosity, info, log, log_every_n, log_first_n, log_if, set_verbosity, vlog, warn,
    warning)
