"""The master's partition step: the ops a step needs, cut per task, with `_Send`/`_Recv`
pairs on every edge that crosses tasks and client-terminated ones for feeds and
fetches, each partition a GraphDef as TensorFlow's workers receive it.

Each partition lists its nodes in one global run order (a send before its receive), and
workers run a partition's nodes in that order, so no set of tasks can wait on each other
in a cycle.
"""
import collections

from trainflow._src.framework import graph_export as graph_def_lib
from trainflow._src.protos import graph_pb2, node_def_pb2
from trainflow._src.framework import dtypes
from trainflow._src.distributed import placement, rendezvous, wire

Partitions = collections.namedtuple("Partitions", ["graphs", "feed_keys", "fetch_keys"])
Partitions.__doc__ = """graphs: {task: GraphDef}; feed_keys: {task: [(feed tensor name, key)]};
fetch_keys: {task: [(fetch tensor name, key)]}. Feeds and fetches are keyed on the
client device (the master's task), as TensorFlow's master does."""


def _dtype_attr(node, name, dtype):
    node.attr[name].type = dtype.base_dtype.as_datatype_enum


class _Builder:
    def __init__(self, placer, incarnations, client_device, base):
        self.placer = placer
        self.incarnations = incarnations
        self.client_device = client_device
        self.base = base
        self.nodes = collections.defaultdict(list)
        self.crossed = {}
        self.feed_keys = collections.defaultdict(list)
        self.fetch_keys = collections.defaultdict(list)
        self.counter = 0

    def _name(self, prefix, what):
        self.counter += 1
        return f"{what.replace(':', '_')}/_{prefix}_{self.counter}"

    def _transfer_node(self, op_type, name, tensor_name, dtype, send_dev, recv_dev,
                       client_terminated, input_name=None):
        node = node_def_pb2.NodeDef(name=name, op=op_type)
        if op_type == "_Send":
            node.input.append(input_name)
            node.device = send_dev
            _dtype_attr(node, "T", dtype)
        else:
            node.device = recv_dev
            _dtype_attr(node, "tensor_type", dtype)
        node.attr["tensor_name"].s = tensor_name.encode()
        node.attr["send_device"].s = send_dev.encode()
        node.attr["send_device_incarnation"].i = _signed(self.incarnations[_task(send_dev)])
        node.attr["recv_device"].s = recv_dev.encode()
        node.attr["client_terminated"].b = client_terminated
        return node

    def feed(self, tensor, task):
        """Input name, in `task`, of fed `tensor`: a client-terminated _Recv on the client
        device (the master's task, as TensorFlow keys it), sent on from there."""
        client_task = _task(self.client_device)
        key = ("feed", tensor)
        name = self.crossed.get(key)
        if name is None:
            dev = self.client_device
            name = self._name("recv", tensor.name)
            self.nodes[client_task].append(self._transfer_node(
                "_Recv", name, tensor.name, tensor.dtype, dev, dev, True))
            rkey = rendezvous.create_key(dev, self.incarnations[client_task], dev,
                                         tensor.name)
            self.feed_keys[client_task].append((tensor.name, rkey))
            self.crossed[key] = name
        if task == client_task:
            return name
        return self.cross(("feed", tensor), name, tensor.dtype, client_task, task,
                          tensor.name)

    def cross(self, what, input_name, dtype, src, dst, label):
        """Input name, in task `dst`, of the value `input_name` of task `src`."""
        key = ("edge", what, dst)
        got = self.crossed.get(key)
        if got is None:
            src_dev, dst_dev = placement.cpu_device(src), placement.cpu_device(dst)
            edge = f"edge_{self.counter + 1}_{label}"
            self.nodes[src].append(self._transfer_node(
                "_Send", self._name("send", label), edge, dtype, src_dev, dst_dev, False,
                input_name))
            name = self._name("recv", label)
            self.nodes[dst].append(self._transfer_node(
                "_Recv", name, edge, dtype, src_dev, dst_dev, False))
            got = self.crossed[key] = name
        return got

    def cross_tensor(self, tensor, src, dst):
        return self.cross(tensor, _input_name(tensor), tensor.dtype, src, dst, tensor.name)

    def cross_control(self, op, src, dst):
        """Name, in `dst`, of a _Recv that completes after `op` ran in task `src`."""
        key = ("ctrl", op, dst)
        got = self.crossed.get(key)
        if got is None:
            const = node_def_pb2.NodeDef(name=self._name("ctrl", op.name), op="Const",
                                         device=placement.cpu_device(src),
                                         input=["^" + op.name])
            const.attr["dtype"].type = 1
            wire.to_tensor_proto(_zero(), const.attr["value"].tensor)
            self.nodes[src].append(const)
            got = self.crossed[key] = self.cross(("ctrl", op), const.name, _float32(), src,
                                                 dst, op.name)
        return got

    def fetch(self, tensor, task):
        """A client-terminated _Send of `tensor` on the client device."""
        client_task = _task(self.client_device)
        input_name = _input_name(tensor)
        if task != client_task:
            input_name = self.cross_tensor(tensor, task, client_task)
        dev = self.client_device
        self.nodes[client_task].append(self._transfer_node(
            "_Send", self._name("send", tensor.name), tensor.name, tensor.dtype, dev, dev,
            True, input_name))
        self.fetch_keys[client_task].append((tensor.name, rendezvous.create_key(
            dev, self.incarnations[client_task], dev, tensor.name)))


def partition(ops, fetches, feeds, placer, incarnations, client_device, base_graph_def):
    """Cuts the ordered `ops` of one step into per-task GraphDefs.

    Args:
      ops: the step's ops in run order (planner.needed_ops).
      fetches: Tensors whose values the client wants.
      feeds: Tensors whose values the client supplies.
      placer: a placement.Placer.
      incarnations: {task name: incarnation}, the client's task included.
      client_device: the device the client's feeds come from and fetches go to.
      base_graph_def: the client's GraphDef (versions and function library are copied).

    Returns:
      Partitions.
    """
    b = _Builder(placer, incarnations, client_device, base_graph_def)
    fed = set(feeds)
    for op in ops:
        task = placer.place(op)
        node = node_def_pb2.NodeDef()
        graph_def_lib.fill_node_def(node, op)
        del node.input[:]
        # Placement is done; a colocation peer may be fed, so not in any partition.
        if "_class" in node.attr:
            del node.attr["_class"]
        for t in op._inputs:
            if t in fed:
                node.input.append(b.feed(t, task))
            elif placer.place(t._op) == task:
                node.input.append(_input_name(t))
            else:
                node.input.append(b.cross_tensor(t, placer.place(t._op), task))
        for c in sorted(op._control_inputs, key=lambda o: o._id):
            src = placer.place(c)
            node.input.append("^" + (c.name if src == task else b.cross_control(c, src, task)))
        node.device = placement.cpu_device(task)
        b.nodes[task].append(node)
    for t in fetches:
        if t in fed:
            continue
        b.fetch(t, placer.place(t._op))
    graphs = {}
    for task, nodes in b.nodes.items():
        gd = graph_pb2.GraphDef()
        gd.versions.CopyFrom(base_graph_def.versions)
        gd.library.CopyFrom(base_graph_def.library)
        gd.node.extend(nodes)
        graphs[task] = gd
    return Partitions(graphs, dict(b.feed_keys), dict(b.fetch_keys))


def _input_name(tensor):
    return tensor._as_node_def_input()


def _task(device):
    return device.rsplit("/device:", 1)[0]


def _signed(inc):
    return inc - (1 << 64) if inc >= (1 << 63) else inc


def _zero():
    import numpy as np
    return np.float32(0)


def _float32():
    return dtypes.float32
