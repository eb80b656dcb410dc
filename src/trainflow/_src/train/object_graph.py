"""The object graph of an object-based checkpoint (TF's TrackableObjectGraph).

Starting from a root (a `tf.train.Checkpoint`), objects are visited breadth-first; each
gets a node id in visit order. What an object depends on, in order:

* a Variable: nothing; it has the attribute VARIABLE_VALUE, saved under
  `<path>/.ATTRIBUTES/VARIABLE_VALUE`;
* a tf.data Iterator: nothing; it has the attribute ITERATOR (key
  `<path>/.ATTRIBUTES/ITERATOR`), its position saved under that key + `_STATE`
  (`iterator_state_ops`);
* an Optimizer: its non-slot variables (`beta1_power` ...) by name; its slot variables get
  nodes after all others, saved under
  `<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<slot>/.ATTRIBUTES/VARIABLE_VALUE`;
* a list or tuple: its trackable items, named "0", "1" ...; a dict: its trackable values by key;
* a Checkpoint or any other object: its attributes that hold trackable values, in
  assignment order (what tf.Module / AutoTrackable track).

Path components escape "." as ".." and "/" as "./", as TF does.
"""
from trainflow._src.data.iterator_ops import Iterator
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.ops.state.variables import Variable
from trainflow._src.protos import trackable_object_graph_pb2
from trainflow._src.train.iterator_state_ops import ITERATOR_ATTRIBUTE, STATE_SUFFIX
from trainflow._src.train.optimizer import Optimizer

VARIABLE_VALUE = "VARIABLE_VALUE"
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_ATTRIBUTES = ".ATTRIBUTES"
_SLOT = ".OPTIMIZER_SLOT"
_PLAIN = (str, bytes, int, float, bool, type(None))


def escape(name):
    """A local name as one path component."""
    return name.replace(".", "..").replace("/", "./")


def variable_key(path):
    """The checkpoint key of a variable at object path `path`."""
    return f"{path}/{_ATTRIBUTES}/{VARIABLE_VALUE}"


def iterator_key(path):
    """The attribute key of an iterator at object path `path` (its tensor is saved under
    this key + `_STATE`)."""
    return f"{path}/{_ATTRIBUTES}/{ITERATOR_ATTRIBUTE}"


def slot_path(variable_path, optimizer_path, slot_name):
    """The object path of a slot variable."""
    return f"{variable_path}/{_SLOT}/{optimizer_path}/{escape(slot_name)}"


def _is_trackable(value, depth=0):
    if isinstance(value, (Variable, Optimizer, Iterator)):
        return True
    if isinstance(value, _PLAIN) or depth > 8:
        return False
    if isinstance(value, (list, tuple)):
        return any(_is_trackable(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(_is_trackable(v, depth + 1) for v in value.values())
    children = getattr(value, "_checkpoint_children", None)
    if callable(children):
        return True
    attrs = getattr(value, "__dict__", None)
    return bool(attrs) and type(value).__module__.split(".")[0] not in ("trainflow", "numpy") \
        and any(_is_trackable(v, depth + 1) for k, v in attrs.items())


def children(obj):
    """[(local name, child)] of `obj`, in TF's order."""
    custom = getattr(obj, "_checkpoint_children", None)
    if callable(custom):
        return list(custom())
    if isinstance(obj, (Variable, Iterator)):
        return []
    if isinstance(obj, Optimizer):
        out = []
        for (name, _graph), v in obj._non_slot_dict.items():
            if v.graph is _graph_of_default():
                out.append((name, v))
        return out
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if _is_trackable(v)]
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items() if _is_trackable(v)]
    return [(k, v) for k, v in vars(obj).items() if _is_trackable(v)]


def _graph_of_default():
    return get_default_graph()


class ObjectGraphView:
    """The objects reachable from `root`, with node ids, paths and saved variables.

    Attributes:
      nodes: the objects, by node id (slot variables last).
      paths: node id -> object path ("" for the root).
      variables: {checkpoint key: Variable} of every saved variable.
      iterators: {checkpoint key: Iterator} of every saved tf.data iterator.
    """

    def __init__(self, root):
        self.nodes, self.paths, self._children = [], [], []
        ids = {}
        queue = [(root, "")]
        while queue:
            obj, path = queue.pop(0)
            if id(obj) in ids:
                continue
            ids[id(obj)] = len(self.nodes)
            self.nodes.append(obj)
            self.paths.append(path)
            kids = children(obj)
            self._children.append(kids)
            for name, child in kids:
                queue.append((child, f"{path}/{escape(name)}" if path else escape(name)))
        self.ids = ids
        self.slots = {}
        base = list(self.nodes)
        for node_id, obj in enumerate(base):
            if not isinstance(obj, Optimizer):
                continue
            for slot_name in obj.get_slot_names():
                for var_id, var in enumerate(base):
                    if not isinstance(var, Variable):
                        continue
                    slot = obj.get_slot(var, slot_name)
                    if slot is None or id(slot) in ids:
                        continue
                    ids[id(slot)] = len(self.nodes)
                    self.nodes.append(slot)
                    self.paths.append(slot_path(self.paths[var_id], self.paths[node_id],
                                                slot_name))
                    self._children.append([])
                    self.slots.setdefault(node_id, []).append((var_id, slot_name,
                                                               ids[id(slot)]))
        self.variables = {variable_key(p): o for o, p in zip(self.nodes, self.paths)
                          if isinstance(o, Variable)}
        self.iterators = {iterator_key(p) + STATE_SUFFIX: o
                          for o, p in zip(self.nodes, self.paths) if isinstance(o, Iterator)}

    def child_ids(self, node_id):
        """[(local name, node id)] of a node's children."""
        return [(name, self.ids[id(child)]) for name, child in self._children[node_id]]

    def to_proto(self):
        """The TrackableObjectGraph proto."""
        graph = trackable_object_graph_pb2.TrackableObjectGraph()
        has_values = self._has_values()
        for node_id, obj in enumerate(self.nodes):
            node = graph.nodes.add()
            for name, child_id in self.child_ids(node_id):
                ref = node.children.add()
                ref.node_id = child_id
                ref.local_name = name
            if isinstance(obj, Variable):
                attr = node.attributes.add()
                attr.name = VARIABLE_VALUE
                attr.full_name = obj.op.name
                attr.checkpoint_key = variable_key(self.paths[node_id])
            if isinstance(obj, Iterator):
                attr = node.attributes.add()
                attr.name = ITERATOR_ATTRIBUTE
                attr.checkpoint_key = iterator_key(self.paths[node_id])
            for var_id, slot_name, slot_id in self.slots.get(node_id, []):
                ref = node.slot_variables.add()
                ref.original_variable_node_id = var_id
                ref.slot_name = slot_name
                ref.slot_variable_node_id = slot_id
            if has_values[node_id]:
                node.has_checkpoint_values.value = True
        return graph

    def _has_values(self):
        has = [isinstance(o, (Variable, Iterator)) for o in self.nodes]
        changed = True
        while changed:
            changed = False
            for node_id in range(len(self.nodes)):
                if not has[node_id] and any(has[c] for _, c in self.child_ids(node_id)):
                    has[node_id] = changed = True
                if not has[node_id] and self.slots.get(node_id):
                    has[node_id] = changed = True
        return has
