"""TF1 while-loop frames in a GraphDef rewritten as functional While ops, so that graphs
exported by TF1 programs (control flow v1) import and run.

A TF1 loop is a frame of nodes: per loop variable Enter -> Merge -> Switch (on LoopCond)
-> Identity -> ... -> NextIteration -> back into the Merge, with Switch's false output
leaving through Exit; loop-invariant tensors come in through constant Enters. Each frame
becomes one `While` (or `StatelessWhile`) node whose cond and body functions are built
from the frame's nodes (invariants become extra loop values, returned unchanged), and
readers of an Exit read the While output instead. Inner frames are rewritten first, so
nested loops nest. TF1's loop gradients are frames too: the forward frame gains a counter
and pushes values on stacks (ops/data_flow/stack_ops.py) that the gradient frame pops;
stateful nodes that feed nothing in a frame (the pushes) run in every body iteration.
`import_meta_graph` applies this to every meta graph it imports.
"""
import itertools
import logging

from trainflow._src.framework import registry
from trainflow._src.framework import dtypes
from trainflow._src.framework.attr_value import to_attr_value
from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.framework.graph_export import _function_def
from trainflow._src.framework.graph import Graph
from trainflow._src.framework.tensor_shape import unknown_shape
from trainflow._src.protos import attr_value_pb2, graph_pb2

_log = logging.getLogger(__name__)

_ENTER = ("Enter", "RefEnter")
_ids = itertools.count(1)


def _src(ref):
    """(node name, output index, is control) of a NodeDef input string."""
    if ref.startswith("^"):
        return ref[1:], -1, True
    name, _, idx = ref.partition(":")
    return name, int(idx) if idx else 0, False


def has_loop_frames(graph_def):
    """True if `graph_def` holds TF1 loop frames."""
    return any(n.op in _ENTER for n in graph_def.node)


def _frames(nodes):
    frames = {}
    for n in nodes.values():
        if n.op in _ENTER:
            frames.setdefault(n.attr["frame_name"].s.decode(), []).append(n.name)
    return frames


def _consumers(nodes):
    out = {}
    for n in nodes.values():
        for ref in n.input:
            out.setdefault(_src(ref)[0], []).append(n.name)
    return out


def _frame_nodes(nodes, consumers, enters):
    """The nodes of a frame: everything reached from its Enters, up to its Exits."""
    inside, queue = set(enters), list(enters)
    while queue:
        name = queue.pop()
        if nodes[name].op in ("Exit", "RefExit"):
            continue
        for c in consumers.get(name, []):
            if c not in inside:
                inside.add(c)
                queue.append(c)
    return inside


def _only(names, nodes, op_types, what):
    found = [n for n in names if nodes[n].op in op_types]
    if len(found) != 1:
        raise ValueError(f"TF1 loop frame: expected one {what}, found {found}")
    return found[0]


class _Frame:
    """One loop frame's structure, read from the GraphDef's nodes."""

    def __init__(self, name, nodes, consumers, enter_names):
        self.name = name
        self.nodes = _frame_nodes(nodes, consumers, enter_names)
        enters = sorted(enter_names, key=list(nodes).index)
        self.loop_enters = [e for e in enters if not nodes[e].attr["is_constant"].b]
        self.const_enters = [e for e in enters if nodes[e].attr["is_constant"].b]
        self.merges, self.switches, self.exits, self.results = [], [], [], []
        self.cond = None
        for e in self.loop_enters:
            merge = _only(consumers[e], nodes, ("Merge", "RefMerge"), f"Merge after {e}")
            switch = _only(consumers[merge], nodes, ("Switch", "RefSwitch"),
                           f"Switch after {merge}")
            nxt = [_src(r)[0] for r in nodes[merge].input
                   if nodes[_src(r)[0]].op in ("NextIteration", "RefNextIteration")]
            if len(nxt) != 1:
                raise ValueError(f"TF1 loop frame {name}: unexpected structure at {merge}")
            self.merges.append(merge)
            self.switches.append(switch)
            self.results.append(nodes[nxt[0]].input[0])
            # The frame's predicate: what its LoopCond node reads.
            self.cond = nodes[_src(nodes[switch].input[1])[0]].input[0]
        # Each Exit returns a loop value's last value: it reads the Switch's false output,
        # possibly through Identity nodes (TF1 gradients add control dependencies there).
        self.exit_map = {}
        index = {sw: k for k, sw in enumerate(self.switches)}
        for x in self.nodes:
            if nodes[x].op not in ("Exit", "RefExit"):
                continue
            src, idx, _ = _src(nodes[x].input[0])
            while src not in index and nodes[src].op in ("Identity", "RefIdentity"):
                src, idx, _ = _src(nodes[src].input[0])
            if src not in index or idx != 0:
                raise ValueError(f"TF1 loop frame {name}: Exit {x} does not return a loop value")
            self.exit_map[x] = index[src]
        self.exits = sorted(self.exit_map)
        self.parallel_iterations = nodes[enters[0]].attr["parallel_iterations"].i or 10


def _closure(nodes, roots, stop):
    """Names of the nodes computing `roots` (refs), not going past `stop` names."""
    seen, queue = set(), [_src(r)[0] for r in roots]
    while queue:
        name = queue.pop()
        if name in seen or name in stop:
            continue
        seen.add(name)
        queue.extend(_src(r)[0] for r in nodes[name].input)
    return seen


def _drop_colocation(node, keep):
    """Removes `loc:@X` colocation entries of `node` whose X is not in `keep`."""
    if "_class" not in node.attr:
        return
    kept = [c for c in node.attr["_class"].list.s
            if not c.startswith(b"loc:@") or c[5:].decode() in keep]
    if kept:
        del node.attr["_class"].list.s[:]
        node.attr["_class"].list.s.extend(kept)
    else:
        del node.attr["_class"]


def _arg_types(nodes, enters):
    return [dtypes.as_dtype(nodes[e].attr["T"].type) for e in enters]


def _build_function(import_graph_def, graph_def, nodes, names, arg_map, arg_types, result_refs,
                    fname, pass_through, anchors=()):
    """A FunctionDef computing `result_refs` from arguments standing for the nodes in
    `arg_map` (name -> argument index); the arguments at `pass_through` are returned too,
    and the results wait for the `anchors` nodes. The nodes are imported into the function
    graph with `import_graph_def` (graph_def's, which calls this module)."""
    sub = graph_pb2.GraphDef()
    sub.versions.CopyFrom(graph_def.versions)
    sub.library.CopyFrom(graph_def.library)
    taken = {n.name for n in graph_def.node}
    arg_names = []
    for i, t in enumerate(arg_types):
        name = f"loop_arg_{i}"
        while name in taken:
            name += "_"
        arg_names.append(name)
        ph = sub.node.add()
        ph.name, ph.op = name, "Placeholder"
        ph.attr["dtype"].CopyFrom(to_attr_value(t, "type"))
        ph.attr["shape"].CopyFrom(to_attr_value(unknown_shape(), "shape"))
    for n in graph_def.node:
        if n.name not in names:
            continue
        node = sub.node.add()
        node.CopyFrom(n)
        del node.input[:]
        for ref in n.input:
            src, _, control = _src(ref)
            if src in arg_map:
                if not control:
                    node.input.append(f"{arg_names[arg_map[src]]}:0")
            else:
                node.input.append(ref)
        _drop_colocation(node, names)

    def ref_of(r):
        src, idx, _ = _src(r)
        return f"{arg_names[arg_map[src]]}:0" if src in arg_map else f"{src}:{idx}"
    if anchors:
        anchored = []
        for k, r in enumerate(result_refs):
            node = sub.node.add()
            node.name, node.op = f"{arg_names[0]}_result_{k}", "Identity"
            node.input.append(ref_of(r))
            node.input.extend(f"^{a}" for a in anchors)
            node.attr["T"].CopyFrom(to_attr_value(arg_types[k], "type"))
            anchored.append(f"{node.name}:0")
        result_refs = anchored
        arg_map = {}
    fg = FuncGraph(fname, Graph())
    with fg.as_default():
        got = import_graph_def(sub, return_elements=[f"{a}:0" for a in arg_names] +
                               [ref_of(r) for r in result_refs], name="")
    args, outputs = got[:len(arg_names)], got[len(arg_names):]
    fg.inputs = list(args)
    fg.outputs = outputs + [args[i] for i in pass_through]
    stateful = any(registry.is_registered(n.op) and registry.get(n.op).stateful
                   for n in sub.node)
    return _function_def(fg), stateful


def _rewrite(import_graph_def, graph_def, frame, nodes):
    n_loop, n_const = len(frame.loop_enters), len(frame.const_enters)
    types = _arg_types(nodes, frame.loop_enters) + _arg_types(nodes, frame.const_enters)
    uid = next(_ids)
    base = frame.name[:-len("/while_context")] if frame.name.endswith("/while_context") \
        else frame.name
    const_args = {e: n_loop + i for i, e in enumerate(frame.const_enters)}
    cond_args = dict(const_args, **{m: i for i, m in enumerate(frame.merges)})
    cond_nodes = _closure(nodes, [frame.cond], set(cond_args))
    cond_def, cond_stateful = _build_function(
        import_graph_def, graph_def, nodes, cond_nodes, cond_args, types, [frame.cond],
        f"{base.replace('/', '_')}_cond_tf1_{uid}", [])
    body_args = dict(const_args)
    # In the body a loop value is the Switch's true output (or the Merge before it).
    for i, (m, switch) in enumerate(zip(frame.merges, frame.switches)):
        body_args[m] = i
        body_args[switch] = i
    body_nodes = _closure(nodes, frame.results, set(body_args))
    structural = set(frame.loop_enters + frame.const_enters + frame.merges) | \
        set(frame.exits) | \
        {x for x in frame.nodes if nodes[x].op in ("Switch", "RefSwitch", "NextIteration",
                                                   "RefNextIteration", "LoopCond")}
    # Stateful nodes of the frame that feed neither the predicate nor the next iteration
    # still run in every iteration in TF (stack pushes of TF1 gradients, prints): the body
    # runs them before returning. Others are dead code there too.
    extras = sorted(x for x in frame.nodes - structural - cond_nodes - body_nodes
                    if registry.is_registered(nodes[x].op) and
                    registry.get(nodes[x].op).stateful)
    body_nodes |= _closure(nodes, extras, set(body_args))
    body_def, body_stateful = _build_function(
        import_graph_def, graph_def, nodes, body_nodes, body_args, types, frame.results,
        f"{base.replace('/', '_')}_body_tf1_{uid}", list(range(n_loop, n_loop + n_const)),
        anchors=extras)
    taken = {n.name for n in graph_def.node if n.name not in frame.nodes}
    name = base
    while name in taken:
        name = f"{base}_{next(_ids)}"
    exits = frame.exit_map
    out = graph_pb2.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    out.library.function.extend([cond_def, body_def])
    placed = False
    for n in graph_def.node:
        if n.name in frame.nodes:
            if not placed:
                placed = True
                w = out.node.add()
                w.name = name
                w.op = "While" if cond_stateful or body_stateful else "StatelessWhile"
                w.input.extend(nodes[e].input[0] for e in frame.loop_enters + frame.const_enters)
                w.attr["T"].CopyFrom(to_attr_value(types, "list(type)"))
                w.attr["cond"].func.name = cond_def.signature.name
                w.attr["body"].func.name = body_def.signature.name
                w.attr["parallel_iterations"].i = frame.parallel_iterations
                w.attr["output_shapes"].CopyFrom(attr_value_pb2.AttrValue(
                    list=attr_value_pb2.AttrValue.ListValue()))
            continue
        node = out.node.add()
        node.CopyFrom(n)
        _drop_colocation(node, taken)
        del node.input[:]
        for ref in n.input:
            src, idx, control = _src(ref)
            if src in frame.nodes:
                if src not in exits:
                    raise ValueError(f"Node {n.name} reads {ref} from inside TF1 loop frame "
                                     f"{frame.name}, which only its Exit nodes may leave")
                node.input.append(f"^{name}" if control else f"{name}:{exits[src]}")
            else:
                node.input.append(ref)
    return out


def functionalize(graph_def, import_graph_def):
    """A copy of `graph_def` with every TF1 loop frame replaced by a functional While;
    `import_graph_def` builds the cond and body functions (`graph_def.functionalize_loop_frames`
    passes its own).

    Raises:
      ValueError: a frame does not have the structure tf.while_loop builds.
    """
    while has_loop_frames(graph_def):
        nodes = {n.name: n for n in graph_def.node}
        consumers = _consumers(nodes)
        frames = _frames(nodes)
        done = False
        for frame_name, enters in frames.items():
            inside = _frame_nodes(nodes, consumers, enters)
            if any(nodes[x].op in _ENTER and x not in enters for x in inside):
                continue  # an outer frame: its inner frames first
            frame = _Frame(frame_name, nodes, consumers, enters)
            graph_def = _rewrite(import_graph_def, graph_def, frame, nodes)
            done = True
            break
        if not done:
            raise ValueError("TF1 loop frames could not be ordered innermost first")
    return graph_def
