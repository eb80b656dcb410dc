"""Fetch structures of Session.run: flatten nested fetches to unique graph elements
and rebuild the same structure around the results."""
import collections

from trainflow._src.framework.operation import Operation
from trainflow._src.framework.tensor import Tensor


class _Leaf:
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


class FetchStructure:
    """The flattened form of one `fetches` argument.

    Attributes:
      elements: unique Tensors and Operations to compute, in first-seen order.
    """

    def __init__(self, graph, fetches):
        self._graph = graph
        self.elements = []
        self._index = {}
        self._template = self._flatten(fetches)

    def _add(self, element):
        idx = self._index.get(element)
        if idx is None:
            idx = self._index[element] = len(self.elements)
            self.elements.append(element)
        return _Leaf(idx)

    def _resolve(self, fetch):
        if isinstance(fetch, (Tensor, Operation)):
            el = fetch
        else:
            conv = getattr(fetch, "_as_graph_element", None)
            if callable(conv):
                el = conv()
            elif isinstance(fetch, str):
                el = fetch
            else:
                raise TypeError(f"Argument `fetch` = {fetch} has invalid type "
                                f'"{type(fetch).__name__}" must be a string or Tensor. (Can not '
                                f"convert a {type(fetch).__name__} into a Tensor or Operation.)")
        try:
            el = self._graph.as_graph_element(el, allow_tensor=True, allow_operation=True)
        except TypeError as e:
            raise TypeError(f"Argument `fetch` = {fetch} has invalid type "
                            f'"{type(fetch).__name__}" must be a string or Tensor. ({e})') \
                from None
        except (ValueError, KeyError) as e:
            raise ValueError(f"Argument `fetch` = {fetch} cannot be interpreted as a Tensor. "
                             f"({e})") from None
        return el

    def _flatten(self, fetch):
        if fetch is None:
            raise TypeError('Argument `fetch` = None has invalid type "NoneType". Cannot be '
                            "None")
        if isinstance(fetch, (Tensor, Operation, str)):
            return self._add(self._resolve(fetch))
        composite = getattr(fetch, "_fetch_components", None)
        if callable(composite):
            parts, rebuild = composite()
            return ("composite", [self._flatten(p) for p in parts], rebuild)
        if isinstance(fetch, dict):
            return ("dict", type(fetch), [(k, self._flatten(v)) for k, v in fetch.items()])
        if isinstance(fetch, tuple) and hasattr(fetch, "_fields"):
            return ("namedtuple", type(fetch), [self._flatten(v) for v in fetch])
        if isinstance(fetch, (list, tuple)):
            return ("seq", type(fetch), [self._flatten(v) for v in fetch])
        if hasattr(fetch, "__attrs_attrs__"):
            names = [a.name for a in fetch.__attrs_attrs__]
            return ("attrs", type(fetch), [(n, self._flatten(getattr(fetch, n))) for n in names])
        return self._add(self._resolve(fetch))

    def build(self, values):
        """Rebuilds the fetch structure with `values` (one per element)."""
        return self._build(self._template, values)

    def _build(self, node, values):
        if isinstance(node, _Leaf):
            return values[node.index]
        kind = node[0]
        if kind == "seq":
            items = [self._build(n, values) for n in node[2]]
            return items if node[1] is list else node[1](items) if node[1] is not tuple \
                else tuple(items)
        if kind == "namedtuple":
            return node[1](*[self._build(n, values) for n in node[2]])
        if kind == "dict":
            items = [(k, self._build(n, values)) for k, n in node[2]]
            cls = node[1]
            if cls is collections.defaultdict:
                out = collections.defaultdict(None)
                out.update(items)
                return out
            try:
                return cls(items)
            except TypeError:
                return dict(items)
        if kind == "attrs":
            return node[1](**{k: self._build(n, values) for k, n in node[2]})
        if kind == "composite":
            return node[2]([self._build(n, values) for n in node[1]])
        raise AssertionError(kind)
