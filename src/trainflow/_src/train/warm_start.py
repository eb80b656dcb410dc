"""`tf.train.warm_start` and `tf.train.VocabInfo`: initialize a model's variables from a
checkpoint, remapping embedding rows (or columns) by vocabulary where a VocabInfo says so."""
import collections
import logging

from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.io import checkpoint_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.state import init_ops, state_ops
from trainflow._src.ops.state.partitioned_variables import PartitionInfo, PartitionedVariable
from trainflow._src.ops.state.variables import Variable
from trainflow._src.framework import dtypes
from trainflow._src.train.checkpoint_init import _checkpoint_filename, init_from_checkpoint
from trainflow._src.train.saveable_object import op_list_to_dict
from trainflow._src.train.saver_object_restore import object_graph_key_mapping

_log = logging.getLogger(__name__)


class VocabInfo(collections.namedtuple("VocabInfo", [
        "new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab", "old_vocab_size",
        "backup_initializer", "axis"])):
    """How to warm-start an embedding-like variable whose rows (axis 0) or columns (axis 1)
    follow a vocabulary: the new and old vocabulary files and sizes, OOV buckets, and the
    initializer of entries not in the old vocabulary (default zeros).

    Raises:
      ValueError: axis is not 0 or 1.
    """

    def __new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size=-1,
                backup_initializer=None, axis=0):
        if axis not in (0, 1):
            raise ValueError("The only supported values for the axis argument are 0 and 1.  "
                             f"Provided axis: {axis}")
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab,
                               old_vocab_size, backup_initializer, axis)


def _infer_var_name(var):
    names = op_list_to_dict(var)
    if len(names) > 1:
        raise TypeError(f"`var` = {var} passed as arg violates the constraints.  "
                        f"name_to_var_dict = {names}")
    return next(iter(names))


def _as_var_list(var):
    if isinstance(var, Variable):
        return [var]
    if isinstance(var, PartitionedVariable):
        return list(var)
    if isinstance(var, list) and all(isinstance(v, Variable) for v in var):
        return var
    raise TypeError("var MUST be one of the following: a Variable, list of Variable or "
                    f"PartitionedVariable, but is {type(var)}")


def _remap_initializer(ckpt_path, old_tensor_name, new_row_vocab_size, new_col_vocab_size,
                       old_row_vocab_size, old_row_vocab_file, new_row_vocab_file,
                       old_col_vocab_file, new_col_vocab_file, num_row_oov_buckets,
                       num_col_oov_buckets, initializer):
    """An initializer loading `old_tensor_name` remapped by vocabulary (TF's
    `_load_and_remap_matrix_initializer`)."""
    initializer = initializer or init_ops.zeros_initializer()
    if not callable(initializer):
        raise TypeError(f"initializer must be callable, instead of {type(initializer)}")

    def _initializer(shape, dtype=dtypes.float32, partition_info=None):
        if dtype != dtypes.float32:
            raise TypeError(f"Currently, only float32 is supported. Received dtype: {dtype}")
        if len(shape) != 2:
            raise ValueError(f"Expected 2-dim shape, but received: {shape}")
        if shape[1] != new_col_vocab_size + num_col_oov_buckets:
            raise ValueError(
                "Expected shape[1] = new_col_vocab_size + num_col_oov_buckets = "
                f"{new_col_vocab_size} + {num_col_oov_buckets} = "
                f"{new_col_vocab_size + num_col_oov_buckets}, but received: {shape[1]}")
        offset = partition_info.single_offset(shape) if partition_info is not None else 0
        if offset + shape[0] > new_row_vocab_size + num_row_oov_buckets:
            raise ValueError(
                f"Trying to initialize {shape[0]} additional rows after {offset} rows, but "
                f"only {new_row_vocab_size + num_row_oov_buckets} rows are available "
                f"({new_row_vocab_size} vocab + {num_row_oov_buckets} OOV buckets).")
        row_oov = min(shape[0], max(0, offset + shape[0] - new_row_vocab_size))
        num_rows = shape[0] - row_oov
        if offset > new_row_vocab_size:
            return initializer(shape)
        return _load_and_remap(ckpt_path, old_tensor_name, offset, num_rows,
                               new_col_vocab_size, initializer, old_row_vocab_size,
                               old_row_vocab_file, new_row_vocab_file, old_col_vocab_file,
                               new_col_vocab_file, row_oov, num_col_oov_buckets)
    return _initializer


def _load_and_remap(ckpt_path, old_tensor_name, row_offset, num_rows, num_cols, initializer,
                    old_row_vocab_size, old_row_vocab_file, new_row_vocab_file,
                    old_col_vocab_file, new_col_vocab_file, row_oov, col_oov):
    rows_present = num_rows
    if old_row_vocab_file:
        rows, rows_present = checkpoint_ops.generate_vocab_remapping(
            new_row_vocab_file, old_row_vocab_file, new_vocab_offset=row_offset,
            num_new_vocab=num_rows, old_vocab_size=old_row_vocab_size)
    else:
        rows = math_ops.range(row_offset, row_offset + num_rows, dtype=dtypes.int64)
    cols, cols_present = convert_to_tensor([], dtype=dtypes.int64), num_cols
    if new_col_vocab_file:
        cols, cols_present = checkpoint_ops.generate_vocab_remapping(
            new_col_vocab_file, old_col_vocab_file, new_vocab_offset=0, num_new_vocab=num_cols)
    if isinstance(rows_present, int) and isinstance(cols_present, int):
        shape = [num_rows * num_cols - rows_present * cols_present, 1]
    else:
        missing = num_rows * num_cols - math_ops.multiply(rows_present, cols_present)
        shape = array_ops.stack([missing, 1])
    init_vals = initializer(shape)
    out = checkpoint_ops.load_and_remap_matrix(
        ckpt_path, old_tensor_name, rows, cols, init_vals, num_rows=num_rows,
        num_cols=num_cols)
    if row_oov > 0:
        out = array_ops.concat([out, convert_to_tensor(initializer([row_oov, num_cols]))], 0)
    if col_oov > 0:
        out = array_ops.concat(
            [out, convert_to_tensor(initializer([num_rows + row_oov, col_oov]))], 1)
    return out


def _warm_start_var_with_vocab(var, current_vocab_path, current_vocab_size, prev_ckpt,
                               prev_vocab_path, previous_vocab_size=-1, current_oov_buckets=0,
                               prev_tensor_name=None, initializer=None, axis=0):
    if not (current_vocab_path and current_vocab_size and prev_ckpt and prev_vocab_path):
        raise ValueError("Invalid args: Must provide all of [current_vocab_path, "
                         "current_vocab_size, prev_ckpt, prev_vocab_path}.")
    var = _as_var_list(var)
    prev_tensor_name = prev_tensor_name or _infer_var_name(var)
    total_rows = sum(v.get_shape().as_list()[0] for v in var)
    for v in var:
        v_shape = v.get_shape().as_list()
        info = v._get_save_slice_info()
        partition_info = PartitionInfo(info.full_shape, info.var_offset) if info else None
        if axis == 0:
            args = (current_vocab_size, v_shape[1], previous_vocab_size, prev_vocab_path,
                    current_vocab_path, None, None, current_oov_buckets, 0)
        else:
            args = (total_rows, current_vocab_size, -1, None, None, prev_vocab_path,
                    current_vocab_path, 0, current_oov_buckets)
        init = _remap_initializer(_checkpoint_filename(prev_ckpt), prev_tensor_name, *args,
                                  initializer=initializer)
        value = convert_to_tensor(init(shape=v_shape, partition_info=partition_info))
        v._initializer_op = state_ops.assign(v, value).op


def _get_grouped_variables(vars_to_warm_start):
    g = get_default_graph()
    if isinstance(vars_to_warm_start, str) or vars_to_warm_start is None:
        _log.info("Warm-starting variables only in TRAINABLE_VARIABLES.")
        found = g.get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=vars_to_warm_start)
    elif isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            found = []
            for v in vars_to_warm_start:
                found += g.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=v)
        elif all(isinstance(v, Variable) for v in vars_to_warm_start):
            found = vars_to_warm_start
        else:
            raise ValueError("If `vars_to_warm_start` is a list, it must be all `Variable` or "
                             f"all `str`.  Given types are "
                             f"{[type(v) for v in vars_to_warm_start]}")
    else:
        raise ValueError("`vars_to_warm_start must be a `list` or `str`.  Given type is "
                         f"{type(vars_to_warm_start)}")
    grouped = {}
    for v in found:
        grouped.setdefault(_infer_var_name([v]), []).append(v)
    return grouped


def _object_checkpoint_renames(path, names):
    mapping = object_graph_key_mapping(_checkpoint_filename(path))
    if mapping is None:
        return {}
    missing = [n for n in names if n not in mapping]
    if missing:
        raise ValueError(f"Attempting to warm-start from an object-based checkpoint, but "
                         f"found that the checkpoint did not contain values for all "
                         f"variables. The following variables were missing: {missing}")
    return {n: mapping[n] for n in names}


def warm_start(ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
               var_name_to_prev_var_name=None):
    """Warm-starts variables from a checkpoint (changes their initializers).

    Args:
      ckpt_to_initialize_from: a checkpoint prefix or directory.
      vars_to_warm_start: a regex over TRAINABLE_VARIABLES, a list of regexes over
        GLOBAL_VARIABLES, a list of Variables, or None (only those with a VocabInfo).
      var_name_to_vocab_info: {variable name: VocabInfo}.
      var_name_to_prev_var_name: {variable name: its name in the checkpoint}.

    Raises:
      ValueError: names in the two dicts matched no variable, or bad arguments.
    """
    _log.info("Warm-starting from: %s", ckpt_to_initialize_from)
    grouped = _get_grouped_variables(vars_to_warm_start)
    vocab_infos = var_name_to_vocab_info or {}
    prev_names = var_name_to_prev_var_name or \
        _object_checkpoint_renames(ckpt_to_initialize_from, grouped.keys())
    prev_used, vocab_used = set(), set()
    vocabless = {}
    count = 0
    for var_name, variable in grouped.items():
        prev_name = prev_names.get(var_name)
        if prev_name:
            prev_used.add(var_name)
        vocab_info = vocab_infos.get(var_name)
        if vocab_info:
            vocab_used.add(var_name)
            count += 1
            _warm_start_var_with_vocab(
                variable, vocab_info.new_vocab, vocab_info.new_vocab_size,
                ckpt_to_initialize_from, vocab_info.old_vocab, vocab_info.old_vocab_size,
                vocab_info.num_oov_buckets, prev_name, vocab_info.backup_initializer,
                vocab_info.axis)
        elif vars_to_warm_start:
            count += 1
            var = variable[0] if len(variable) == 1 else variable
            tensor_name = prev_name or _infer_var_name(_as_var_list(var))
            if tensor_name in vocabless:
                init_from_checkpoint(ckpt_to_initialize_from, vocabless)
                vocabless.clear()
            vocabless[tensor_name] = var
    if vocabless:
        init_from_checkpoint(ckpt_to_initialize_from, vocabless)
    _log.info("Warm-started %d variables.", count)
    unused = set(prev_names) - prev_used
    if unused and var_name_to_prev_var_name:
        raise ValueError("You provided the following variables in var_name_to_prev_var_name "
                         f"that were not used: {unused}.  Perhaps you misspelled them?  Here "
                         f"is the list of viable variable names: {list(grouped)}")
    unused = set(vocab_infos) - vocab_used
    if unused:
        raise ValueError("You provided the following variables in var_name_to_vocab_info "
                         f"that were not used: {unused}.  Perhaps you misspelled them?  Here "
                         f"is the list of viable variable names: {list(grouped)}")
