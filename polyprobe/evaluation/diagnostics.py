"""Warnings a result carries about its own fits: an optimiser stopped by its iteration cap,
a hyper-parameter chosen at the edge of its grid.

Both used to pass silently (``lr`` stopped at ``max_iter=100`` on TREC and chose the smallest
C), and both change how far a number can be trusted: an unconverged fit is not the model the
preset names, and a choice at the grid's edge says the best value may lie outside the grid.
The per-fit facts are in ``probe.chosen`` (``converged``, ``iterations``, ``grad_max``,
``grid_fits_converged``, ``grid_edge``); this module turns them into one sentence each for the
result's ``warnings`` list and the command's stderr.
"""

from __future__ import annotations

from typing import Any


def probe_warnings(spec: Any, chosen: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    final = [c for c in chosen if "converged" in c]
    stopped = [c for c in final if not c["converged"]]
    grid_done = grid_all = 0
    for c in chosen:
        frac = c.get("grid_fits_converged")
        if isinstance(frac, str) and "/" in frac:
            a, b = frac.split("/")
            grid_done, grid_all = grid_done + int(a), grid_all + int(b)
    cap = spec.params.get("max_iter")
    if stopped or grid_done < grid_all:
        parts = []
        if stopped:
            worst = max(float(c.get("grad_max", 0.0)) for c in stopped)
            parts.append(
                f"{len(stopped)} of {len(final)} final fit(s) (max |gradient| {worst:.2g}, "
                f"tol {spec.params.get('tol')})"
            )
        if grid_done < grid_all:
            parts.append(f"{grid_all - grid_done} of {grid_all} selection fits")
        out.append(
            f"{spec.name}: {' and '.join(parts)} stopped at max_iter={cap} before converging"
        )
    for key in _grid_keys(spec):
        edges: dict[str, list[Any]] = {}
        for c in chosen:
            edge = c.get("grid_edge")
            if edge and key in c:
                edges.setdefault(f"{edge}|{c[key]}", []).append(c.get("seed", c.get("fold")))
        for tag, who in sorted(edges.items()):
            edge, value = tag.split("|", 1)
            side = "below" if edge == "lowest" else "above"
            searched = [c["grid_searched"] for c in chosen if c.get("grid_searched")]
            if searched:
                grid = max(searched, key=len)
                hint = f" (extended by --extend-grid {spec.params.get('extend_grid')})"
            else:
                grid = spec.grid[key]
                hint = " (--extend-grid N searches beyond it)" if spec.kind == "lr" else ""
            out.append(
                f"{spec.name}: {key}={value} chosen {len(who)} time(s) is the {edge} value of "
                f"the grid {grid}{hint}: the best {key} may lie {side} it"
            )
    return out


def _grid_keys(spec: Any) -> list[str]:
    return [k for k, v in spec.grid.items() if len(v) > 1]
