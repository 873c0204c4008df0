"""Maximum spanning arborescence (Chu-Liu/Edmonds) for a dependency parser's arc scores.

Why MST and not each token's best head: the best heads need not form a tree (cycles, no
path to the root); AllenNLP's biaffine parser, whose settings ``--probe parser`` follows,
decodes with MST, and so do the parsers LINSPECTOR scored.
"""

from __future__ import annotations

import numpy as np


def _find_cycle(heads: np.ndarray) -> list[int] | None:
    n = len(heads)
    color = np.zeros(n, np.int8)  # 0 new, 1 on the current path, 2 done
    color[0] = 2
    for start in range(1, n):
        path: list[int] = []
        node = start
        while color[node] == 0:
            color[node] = 1
            path.append(node)
            node = int(heads[node])
        if color[node] == 1:  # back on the current path: a cycle
            return path[path.index(node) :]
        for v in path:
            color[v] = 2
    return None


def mst_heads(scores: np.ndarray) -> np.ndarray:
    """``scores[dep, head]`` for nodes 0..n (0 = the root, whose row is ignored): the head of
    every node (``heads[0] = -1``) of the highest-scoring tree rooted at 0."""
    n = scores.shape[0]
    s = np.array(scores, dtype=np.float64)
    np.fill_diagonal(s, -np.inf)
    s[:, 0][0] = -np.inf
    s[0, :] = -np.inf
    heads = s.argmax(axis=1)
    heads[0] = -1
    cycle = _find_cycle(np.where(heads < 0, 0, heads))
    if cycle is None:
        return heads
    # contract the cycle into one node c, solve, expand (Edmonds)
    in_cycle = np.zeros(n, bool)
    in_cycle[cycle] = True
    rest = [v for v in range(n) if not in_cycle[v]]
    index = {v: k for k, v in enumerate(rest)}
    c = len(rest)
    cycle_score = sum(s[v, heads[v]] for v in cycle)
    sub = np.full((c + 1, c + 1), -np.inf)
    enter_from: dict[int, int] = {}  # outside head u -> the cycle node it enters best
    leave_to: dict[int, int] = {}  # outside dependent d -> the cycle node that heads it best
    for u in rest:
        for d in rest:
            if u != d:
                sub[index[d], index[u]] = s[d, u]
        # an arc u -> cycle: breaks the cycle at v, gaining s[v,u] - s[v, heads[v]]
        gains = [s[v, u] - s[v, heads[v]] for v in cycle]
        best = int(np.argmax(gains))
        sub[c, index[u]] = cycle_score + gains[best]
        enter_from[u] = cycle[best]
        # an arc cycle -> u: the cycle node that heads u best
        best_head = int(np.argmax([s[u, v] for v in cycle]))
        sub[index[u], c] = s[u, cycle[best_head]]
        leave_to[u] = cycle[best_head]
    sub_heads = mst_heads(sub)
    out = heads.copy()
    for d in rest:
        h = sub_heads[index[d]]
        if d == 0:
            continue
        out[d] = leave_to[d] if h == c else rest[h]
    u = rest[sub_heads[c]]
    out[enter_from[u]] = u  # the cycle is broken where the arc enters; the rest keep heads
    out[0] = -1
    return out
