"""The NumPy kernel of CTCBeamSearchDecoder: TensorFlow's prefix beam search
(`ctc_beam_search.h`) with its default beam scorer, step for step.

Each beam entry is a node of a prefix trie holding the log probabilities of its prefix
ending in a blank, ending in its label, and their total, at the previous frame (`o*`)
and the current one (`n*`). A frame first extends every entry in the beam, then grows
children from the entries (best first) whose previous total could still enter the beam,
evicting the worst entry once the beam is full, exactly in TensorFlow's order, so the
kept prefixes and their log probabilities are TensorFlow's. Each frame's logits are
normalized to log probabilities (log-softmax), as TensorFlow does; with `merge_repeated`
repeated labels of a result path are merged.
"""
import heapq
import itertools
import math

import numpy as np

from trainflow._src.ops.array.shape_util import invalid_argument
from trainflow._src.ops.nn.ctc_kernels import check_decoder_inputs, sparse_paths

_NEG = -math.inf


def _lse(a, b):
    if a == _NEG:
        return b
    if b == _NEG:
        return a
    return a + math.log1p(math.exp(b - a)) if a > b else b + math.log1p(math.exp(a - b))


class _Entry:
    __slots__ = ("parent", "label", "children", "ob", "ol", "ot", "nb", "nl", "nt")

    def __init__(self, parent, label):
        self.parent, self.label, self.children = parent, label, None
        self.ob = self.ol = self.ot = self.nb = self.nl = self.nt = _NEG

    def reset_new(self):
        self.nb = self.nl = self.nt = _NEG

    def label_seq(self, merge_repeated):
        labels, prev, node = [], -1, self
        while node.parent is not None:
            if not merge_repeated or node.label != prev:
                labels.append(node.label)
            prev, node = node.label, node.parent
        return labels[::-1]


class _Beam:
    """The leaves of one batch entry's search: a heap of (total, order, entry)."""

    def __init__(self, width, num_classes):
        self.width, self.blank = width, num_classes - 1
        root = _Entry(None, -1)
        root.nt = root.nb = 0.0
        self.counter = itertools.count()
        self.heap = [(0.0, next(self.counter), root)]
        self.evicted = {}  # parent -> labels of its children pushed out in this frame

    def _candidate(self, total):
        return total > _NEG and (len(self.heap) < self.width or total > self.heap[0][0])

    def _push(self, entry):
        if len(self.heap) == self.width:
            bottom = heapq.heappop(self.heap)[2]
            bottom.reset_new()
            self.evicted.setdefault(bottom.parent, set()).add(bottom.label)
        heapq.heappush(self.heap, (entry.nt, next(self.counter), entry))

    def step(self, row):
        x = row - row.max()
        x -= math.log(np.exp(x).sum())
        xs = x.tolist()
        branches = sorted((e for _, _, e in self.heap), key=lambda e: -e.nt)
        for b in branches:
            b.ob, b.ol, b.ot = b.nb, b.nl, b.nt
        for b in branches:
            parent = b.parent
            if parent is not None:
                if parent.nt != _NEG:
                    prev = parent.ob if b.label == parent.label else parent.ot
                    b.nl = _lse(b.nl, prev)
                b.nl += xs[b.label]
            b.nb = b.ot + xs[self.blank]
            b.nt = _lse(b.nb, b.nl)
        self.heap = [(b.nt, next(self.counter), b) for b in branches]
        heapq.heapify(self.heap)
        self.evicted = {}
        # Every child's score at once: a child's score never changes within the frame and
        # the beam's floor only rises, so a label at or under today's floor never enters
        # the beam (unless an evicted child needs TF's reset, handled in _grow).
        scores = x[None, :self.blank] + np.array([b.ot for b in branches])[:, None]
        for i, b in enumerate(branches):
            if 0 <= b.label < self.blank:
                scores[i, b.label] = xs[b.label] + b.ob
        floor = self.heap[0][0] if len(self.heap) >= self.width else _NEG
        rows, cols = np.nonzero(scores > floor)
        bounds = np.searchsorted(rows, np.arange(len(branches) + 1)).tolist()
        cols = cols.tolist()
        for i, b in enumerate(branches):
            lo, hi = bounds[i], bounds[i + 1]
            if (lo < hi or b in self.evicted) and self._candidate(b.ot):
                self._grow(b, cols[lo:hi], xs)

    def _grow(self, b, labels, xs):
        """TF's loop over b's children, visiting only the labels it would change, in its
        order: those that may enter the beam, and children evicted in this frame (their
        state is reset), including those this very loop evicts."""
        children = b.children
        if children is None:
            children = b.children = {}
        evicted = self.evicted.setdefault(b, set())
        order = labels
        if evicted:
            order = sorted(set(labels) | evicted)
        pending = set(order)
        heapq.heapify(order)
        seen = len(evicted)
        heap, width, ob, ot, own = self.heap, self.width, b.ob, b.ot, b.label
        while order:
            label = heapq.heappop(order)
            score = xs[label] + (ob if label == own else ot)
            c = children.get(label)
            candidate = score > _NEG and (len(heap) < width or score > heap[0][0])
            if c is None:
                if not candidate:
                    continue  # a new child that stays out: TF's reset changes nothing
                c = children[label] = _Entry(b, label)
            if c.nt == _NEG:
                c.nb = _NEG
                c.nl = c.nt = score
                if candidate:
                    self._push(c)
                else:
                    c.ob = c.ol = c.ot = _NEG
                    c.reset_new()
            if len(evicted) != seen:
                seen = len(evicted)
                for later in evicted - pending:
                    if later > label:
                        pending.add(later)
                        heapq.heappush(order, later)

    def top_paths(self, n, merge_repeated):
        if n > self.width:
            raise invalid_argument("requested more paths than the beam width.")
        if n > len(self.heap):
            raise invalid_argument("Less leaves in the beam search than requested.")
        best = sorted((e for _, _, e in self.heap), key=lambda e: -e.nt)[:n]
        return [e.label_seq(merge_repeated) for e in best], [e.nt for e in best]


def ctc_beam_search_decoder(inputs, sequence_length, *, beam_width, top_paths,
                            merge_repeated=True):
    """CTCBeamSearchDecoder: top_paths sparse results and log probabilities [batch, top_paths].

    Returns:
      a flat list: top_paths indices, top_paths values, top_paths shapes, log_probability.
    """
    max_time, batch, num_classes = check_decoder_inputs(inputs, sequence_length)
    paths = [[None] * batch for _ in range(top_paths)]
    log_prob = np.zeros((batch, top_paths), inputs.dtype)
    data = inputs.astype(np.float64)
    for b in range(batch):
        beam = _Beam(beam_width, num_classes)
        for t in range(int(sequence_length[b])):
            beam.step(data[t, b])
        best, scores = beam.top_paths(top_paths, merge_repeated)
        for p in range(top_paths):
            paths[p][b] = best[p]
        log_prob[b] = scores
    results = [sparse_paths(paths[p], batch) for p in range(top_paths)]
    return ([r[0] for r in results] + [r[1] for r in results] + [r[2] for r in results]
            + [log_prob])
