"""What `Checkpoint.restore` returns: the match between a checkpoint's object graph and the
Python objects, the restore ops it built, and TF's assertions about the match."""
import logging

from trainflow._src.data.iterator_ops import Iterator
from trainflow._src.framework import dtypes
from trainflow._src.framework.session_stack import get_default_session
from trainflow._src.ops.control_flow import control_flow_ops
from trainflow._src.ops.io import save_restore
from trainflow._src.ops.state.variables import Variable
from trainflow._src.ops.state import state_ops
from trainflow._src.train.checkpoint_reader import NewCheckpointReader
from trainflow._src.train import iterator_state_ops
from trainflow._src.train.object_graph import VARIABLE_VALUE
from trainflow._src.train.optimizer import Optimizer

_log = logging.getLogger(__name__)


def session_or_default(session):
    """`session`, else the default session; raises RuntimeError when there is neither."""
    if session is not None:
        return session
    session = get_default_session()
    if session is None:
        raise RuntimeError("Saving or restoring an object-based checkpoint in graph mode "
                           "needs a session: pass `session=` or use `with sess.as_default()`")
    return session


def _match(view, graph_proto):
    """{checkpoint node id: our node id}, walking children by name from the roots, then
    the optimizers' slot variables."""
    matched = {0: 0}
    queue = [0]
    while queue:
        ckpt_id = queue.pop(0)
        ours = dict(view.child_ids(matched[ckpt_id]))
        for child in graph_proto.nodes[ckpt_id].children:
            if child.node_id in matched or child.local_name not in ours:
                continue
            matched[child.node_id] = ours[child.local_name]
            queue.append(child.node_id)
    for ckpt_id, node in enumerate(graph_proto.nodes):
        opt = view.nodes[matched[ckpt_id]] if ckpt_id in matched else None
        if not isinstance(opt, Optimizer):
            continue
        for ref in node.slot_variables:
            var_id = matched.get(ref.original_variable_node_id)
            var = view.nodes[var_id] if var_id is not None else None
            slot = opt.get_slot(var, ref.slot_name) if isinstance(var, Variable) else None
            if slot is not None and id(slot) in view.ids:
                matched[ref.slot_variable_node_id] = view.ids[id(slot)]
    return matched


class _Status:
    def __init__(self, view):
        self._view = view
        self._restore_ops = []
        self._restored = set()  # our node ids given a value

    def _variables(self):
        return [(i, o) for i, o in enumerate(self._view.nodes) if isinstance(o, Variable)]

    def _iterator_initializers(self):
        """The initializers of the initializable iterators not restored."""
        return [o._initializer for i, o in enumerate(self._view.nodes)
                if isinstance(o, Iterator) and o._initializer is not None and
                i not in self._restored]

    def run_restore_ops(self, session=None):
        """Runs the restore ops (in `session`, default: the default session)."""
        if self._restore_ops:
            session_or_default(session).run(self._restore_ops)

    def initialize_or_restore(self, session=None):
        """Restores what the checkpoint has and initializes the other variables."""
        session = session_or_default(session)
        others = [o.initializer for i, o in self._variables() if i not in self._restored]
        session.run(self._restore_ops + others + self._iterator_initializers())

    def expect_partial(self):
        """Silences warnings about unused checkpoint values; returns self."""
        return self


class CheckpointLoadStatus(_Status):
    """The status of restoring an object-based checkpoint (TF's CheckpointLoadStatus)."""

    def __init__(self, view, graph_proto, save_path, dtypes_map):
        super().__init__(view)
        self._proto = graph_proto
        self._path = save_path
        self._matched = _match(view, graph_proto)
        self._unused_attributes = []
        for ckpt_id, our_id in sorted(self._matched.items()):
            node = graph_proto.nodes[ckpt_id]
            obj = view.nodes[our_id]
            for attr in node.attributes:
                if attr.name == iterator_state_ops.ITERATOR_ATTRIBUTE and \
                        isinstance(obj, Iterator):
                    self._restore_iterator(
                        obj, attr.checkpoint_key + iterator_state_ops.STATE_SUFFIX, our_id)
                    continue
                if attr.name != VARIABLE_VALUE or not isinstance(obj, Variable):
                    self._unused_attributes.append((obj, attr.name))
                    continue
                dtype = dtypes_map.get(attr.checkpoint_key, obj.dtype.base_dtype)
                with obj.graph.device("/cpu:0"):
                    value = save_restore.restore_v2(save_path, [attr.checkpoint_key], [""],
                                                    [dtype])[0]
                self._restore_ops.append(state_ops.assign(obj._ref(), value).op)
                self._restored.add(our_id)
        if self._restore_ops:
            self._restore_ops = [control_flow_ops.group(*self._restore_ops,
                                                        name="restore_checkpoint")]

    def _restore_iterator(self, iterator, key, our_id):
        """An iterator's position: (re)initialized, then put where the checkpoint says."""
        resource = iterator._iterator_resource
        with resource.graph.device("/cpu:0"):
            value = save_restore.restore_v2(self._path, [key], [""], [dtypes.string])[0]
        self._restore_ops.append(iterator_state_ops.restore_op(
            resource, value, iterator_state_ops.feedless_initializer(resource)))
        self._restored.add(our_id)

    def assert_consumed(self):
        """Checks that every checkpointed value was matched and every saveable Python object
        got a value.

        Raises:
          AssertionError: naming what was not matched.
        """
        for ckpt_id, node in enumerate(self._proto.nodes):
            if ckpt_id not in self._matched and (node.attributes or node.children or
                                                 node.slot_variables):
                raise AssertionError(f"Unresolved object in checkpoint {self._path}: {node}")
        if self._unused_attributes:
            raise AssertionError("Unused attributes in these objects (the attributes exist in "
                                 f"the checkpoint but were not restored):\n"
                                 f"{self._unused_attributes}")
        self.assert_existing_objects_matched()
        return self

    def assert_existing_objects_matched(self):
        """Checks that every variable reachable from the root got a checkpointed value.

        Raises:
          AssertionError: listing the Python objects that were not bound.
        """
        unbound = [o for i, o in self._variables() if i not in self._restored]
        if unbound:
            raise AssertionError("Some Python objects were not bound to checkpointed values, "
                                 f"likely due to changes in the Python program: {unbound}")
        return self

    def assert_nontrivial_match(self):
        """Checks that something besides the root matched.

        Raises:
          AssertionError: nothing but the root matched.
        """
        if len(self._matched) <= 1:
            raise AssertionError("Nothing except the root object matched a checkpointed "
                                 "value. Typically this means that the checkpoint does not "
                                 "match the Python program.")
        return self


class InitializationOnlyStatus(_Status):
    """`restore(None)`: nothing to restore; `initialize_or_restore` initializes."""

    def assert_consumed(self):
        """Raises AssertionError: nothing is being restored."""
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed


class NameBasedSaverStatus(_Status):
    """Restoring a name-based (tf.train.Saver) checkpoint by the variables' graph names."""

    def __init__(self, view, save_path, optional=()):
        super().__init__(view)
        self._optional = {id(v) for v in optional}
        _log.warning("Restoring a name-based tf.train.Saver checkpoint using the object-based "
                     "restore API. This mode uses global names to match variables, and so is "
                     "somewhat fragile. It also adds new restore ops to the graph each time it "
                     "is called when graph building.")
        with NewCheckpointReader(save_path) as reader:
            present = set(reader.get_variable_to_shape_map())
        for i, var in self._variables():
            name = var.op.name
            if name not in present:
                continue
            with var.graph.device("/cpu:0"):
                value = save_restore.restore_v2(save_path, [name], [""],
                                                [var.dtype.base_dtype])[0]
            self._restore_ops.append(state_ops.assign(var._ref(), value).op)
            self._restored.add(i)

    def assert_consumed(self):
        """Checks that every variable was restored by name.

        Raises:
          AssertionError: a variable has no value in the checkpoint.
        """
        unbound = [o for i, o in self._variables()
                   if i not in self._restored and id(o) not in self._optional]
        if unbound:
            raise AssertionError(f"Some objects had dependencies which were not restored: "
                                 f"{unbound}")
        return self

    assert_existing_objects_matched = assert_consumed

    def assert_nontrivial_match(self):
        """Checks that some variable was restored by name."""
        if not self._restored:
            raise AssertionError("Nothing was restored by name from the checkpoint.")
        return self
