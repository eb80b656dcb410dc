"""`tf.logging`: TF1's logging functions on a standard `logging` logger named "trainflow".

As in TensorFlow, the logger gets a stderr handler (stdout in an interactive
session, where the level also starts at INFO) when the root logger has no
handlers, and its effective level starts at the root's (WARNING by default),
so `info` messages show after `set_verbosity(INFO)`. Records name the
caller's file and line, not this module's.
"""

import logging as _logging
import os as _os
import sys as _sys
import threading as _threading
import traceback as _traceback
from logging import DEBUG, ERROR, FATAL, INFO, WARN, WARNING

__all__ = [
    "DEBUG", "INFO", "WARN", "WARNING", "ERROR", "FATAL", "get_logger", "set_verbosity",
    "get_verbosity", "log", "debug", "info", "warn", "warning", "error", "fatal", "vlog",
    "log_if", "log_every_n", "log_first_n", "TaskLevelStatusMessage", "flush",
]

LOGGER_NAME = "trainflow"

_logger = None
_logger_lock = _threading.Lock()
_counter_lock = _threading.Lock()
_log_counts = {}

# Frames in these files are skipped when finding the caller of a log call.
_SKIPPED_FILES = frozenset(
    _os.path.normcase(f) for f in (__file__, _logging.__file__)
    if f is not None)


def _is_skipped(code):
    return _os.path.normcase(code.co_filename) in _SKIPPED_FILES


def _caller_frame():
    """The innermost frame outside this module and the logging package."""
    frame = _sys._getframe(1)
    while frame is not None and _is_skipped(frame.f_code):
        frame = frame.f_back
    return frame


def _find_caller(stack_info=False, stacklevel=1):
    """Replacement for Logger.findCaller that skips this module's frames."""
    frame = _caller_frame()
    sinfo = None
    if stack_info:
        sinfo = "Stack (most recent call last):\n" + "".join(_traceback.format_stack(frame))
    if frame is None:
        return "(unknown file)", 0, "(unknown function)", sinfo
    return frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name, sinfo


def _interactive():
    return hasattr(_sys, "ps1") or bool(_sys.flags.interactive)


def get_logger():
    """Returns the `logging.Logger` named "trainflow" that `tf.logging` writes to."""
    global _logger
    if _logger is not None:
        return _logger
    with _logger_lock:
        if _logger is None:
            logger = _logging.getLogger(LOGGER_NAME)
            logger.findCaller = _find_caller
            if not _logging.getLogger().handlers and not logger.handlers:
                if _interactive():
                    logger.setLevel(INFO)
                    stream = _sys.stdout
                else:
                    stream = _sys.stderr
                handler = _logging.StreamHandler(stream)
                handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT, None))
                logger.addHandler(handler)
            _logger = logger
    return _logger


def set_verbosity(v):
    """Sets the lowest level that is logged (DEBUG, INFO, WARN, ERROR, FATAL or an int)."""
    get_logger().setLevel(v)


def get_verbosity():
    """The lowest level that is logged (the logger's effective level)."""
    return get_logger().getEffectiveLevel()


def log(level, msg, *args, **kwargs):
    """Logs `msg % args` at `level`."""
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    """Logs at DEBUG."""
    get_logger().debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    """Logs at INFO."""
    get_logger().info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    """Logs at WARNING."""
    get_logger().warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    """Logs at ERROR."""
    get_logger().error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    """Logs at FATAL (CRITICAL); like TensorFlow, does not exit."""
    get_logger().fatal(msg, *args, **kwargs)


def vlog(level, msg, *args, **kwargs):
    """Logs at the numeric `level` itself (so vlog(1, ...) is below DEBUG)."""
    get_logger().log(level, msg, *args, **kwargs)


def log_if(level, msg, condition, *args):
    """Logs `msg % args` at `level` only if `condition` is true."""
    if condition:
        vlog(level, msg, *args)


def _next_count():
    """How many times the calling line has counted before (0 the first time)."""
    frame = _caller_frame()
    token = ("<unknown>", 0) if frame is None else (frame.f_code.co_filename, frame.f_lineno)
    with _counter_lock:
        count = _log_counts.get(token, -1) + 1
        _log_counts[token] = count
    return count


def log_every_n(level, msg, n, *args):
    """Logs `msg % args` on the 1st, (n+1)th, (2n+1)th ... call from the same line."""
    log_if(level, msg, not _next_count() % n, *args)


def log_first_n(level, msg, n, *args):
    """Logs `msg % args` on the first `n` calls from the same line."""
    log_if(level, msg, _next_count() < n, *args)


def TaskLevelStatusMessage(msg):  # noqa: N802 - TF1 name
    """Logs a task status message (at ERROR, as TensorFlow does)."""
    error(msg)


def flush():
    """Flushes every handler of the logger and of its ancestors."""
    logger = get_logger()
    while logger is not None:
        for handler in logger.handlers:
            handler.flush()
        logger = logger.parent if logger.propagate else None
