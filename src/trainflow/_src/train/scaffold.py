"""`tf.train.Scaffold`: the pieces a monitored session needs to create or restore a
session (init, ready checks, local init, summary op, saver), with TF's defaults."""
from trainflow._src import tf_logging as logging
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.ops.control_flow import control_flow_ops
from trainflow._src.ops.state import tables, variable_helpers
from trainflow._src.ops.summary.summary_ops import merge_all
from trainflow._src.train.saver import Saver


def _default_init_op():
    return control_flow_ops.group(variable_helpers.global_variables_initializer())


def _default_ready_op():
    return variable_helpers.report_uninitialized_variables()


def _default_ready_for_local_init_op():
    return variable_helpers.report_uninitialized_variables(
        variable_helpers.global_variables())


def _default_summary_op():
    return merge_all()


def get_saver_or_default():
    """The Saver of the SAVERS collection, or a new sharded one added to it.

    Raises:
      RuntimeError: if the collection holds more than one Saver.
    """
    graph = get_default_graph()
    savers = graph.get_collection(GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please "
                               "indicate which one to use by passing it to the constructor.")
        return savers[0]
    saver = Saver(sharded=True, allow_empty=True)
    graph.add_to_collection(GraphKeys.SAVERS, saver)
    return saver


class Scaffold:
    """Holds what creates, initializes or restores a model's session.

    Every argument left as None is filled by `finalize()` from the graph's collection
    of the same name, or else by TF's default (initialize all global variables; report
    uninitialized variables; initialize local variables; merge all summaries; a sharded
    Saver).

    Args:
      init_op, init_feed_dict, init_fn: what initializes a model not restored from a
        checkpoint; `init_fn(scaffold, session)` runs after init_op.
      ready_op: a string tensor naming what is not initialized (empty when ready).
      ready_for_local_init_op: the same check run before local_init_op.
      local_init_op: runs on every new session (local variables, tables).
      summary_op: the op SummarySaverHook runs.
      saver: the Saver used to restore and save.
      copy_from_scaffold: a Scaffold whose fields fill those not given here.

    Raises:
      TypeError: if copy_from_scaffold is not a Scaffold.
    """

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None,
                 saver=None, copy_from_scaffold=None, local_init_feed_dict=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")

            def coalesce(mine, theirs):
                return mine if mine is not None else theirs

            c = copy_from_scaffold
            init_op = coalesce(init_op, c.init_op)
            init_feed_dict = coalesce(init_feed_dict, c.init_feed_dict)
            # The copy's init_fn is already wrapped to take only the session.
            init_fn = coalesce(init_fn, c._user_init_fn)
            ready_op = coalesce(ready_op, c.ready_op)
            ready_for_local_init_op = coalesce(ready_for_local_init_op,
                                               c.ready_for_local_init_op)
            local_init_op = coalesce(local_init_op, c.local_init_op)
            local_init_feed_dict = coalesce(local_init_feed_dict, c.local_init_feed_dict)
            summary_op = coalesce(summary_op, c.summary_op)
            saver = coalesce(saver, c.saver)
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._local_init_feed_dict = local_init_feed_dict
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self):
        """Fills the missing pieces (collections, then TF's defaults) and finalizes the
        default graph. Returns self."""
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default("init_op", GraphKeys.INIT_OP,
                                                    _default_init_op)
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default("ready_op", GraphKeys.READY_OP,
                                                     _default_ready_op)
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op", GraphKeys.READY_FOR_LOCAL_INIT_OP,
                _default_ready_for_local_init_op)
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op)
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default("summary_op", GraphKeys.SUMMARY_OP,
                                                       _default_summary_op)
        if self._saver is None:
            self._saver = get_saver_or_default()
        if hasattr(self._saver, "build"):
            self._saver.build()  # TF builds a defer_build Saver here
        get_default_graph().finalize()
        logging.info("Graph was finalized.")
        return self

    @property
    def init_fn(self):
        """fn(session) run after init_op, or None."""
        return self._init_fn

    @property
    def init_op(self):
        return self._init_op

    @property
    def ready_op(self):
        return self._ready_op

    @property
    def ready_for_local_init_op(self):
        return self._ready_for_local_init_op

    @property
    def local_init_op(self):
        return self._local_init_op

    @property
    def local_init_feed_dict(self):
        return self._local_init_feed_dict

    @property
    def summary_op(self):
        return self._summary_op

    @property
    def saver(self):
        return self._saver

    @property
    def init_feed_dict(self):
        return self._init_feed_dict

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The one item of collection `collection_key`, else `default_constructor()`
        (added to the collection when not None).

        Raises:
          RuntimeError: if the collection holds more than one item.
        """
        graph = get_default_graph()
        elements = graph.get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(f"More than one item in the collection {collection_key}. "
                                   "Please indicate which one to use by passing it to the "
                                   f"tf.Scaffold constructor as: tf.Scaffold({arg_name}=item "
                                   "to use)")
            return elements[0]
        op = default_constructor()
        if op is not None:
            graph.add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op():
        """Initializes the local variables and the lookup tables, as TF's does."""
        return control_flow_ops.group(variable_helpers.local_variables_initializer(),
                                      tables.tables_initializer())
