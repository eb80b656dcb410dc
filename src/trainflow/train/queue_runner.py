"""The `tf.train.queue_runner` module: QueueRunner and its collection helpers."""
from trainflow._src.train.queue_runner_impl import (  # noqa: F401
    QueueRunner, add_queue_runner, start_queue_runners)
