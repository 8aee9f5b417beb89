"""The gates a new set of models must pass before it replaces the committed ones (issue 36,
"Gates"), in one place: `python -m dominotrain.keep` checks them on a candidate's report and
`dominotrain.device_run` writes the ones its figures decide into `report.json`.

A gate holds when its measured value (not its interval) reaches the target; a gate whose
figure is missing from the report is not measured and does not hold. The real figures are
those of `dominocam eval --realval ../shared/realval` (all 108 scenes, the single-tile crops);
"no worse than today" compares with the committed models measured on the same crops
(`baseline` in the report), and the speed is `dominocam bench` at 1280x720 on 2 threads
(`bench` in the report, measured by `keep` on the machine that keeps the models).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class KeepGate:
    """One gate: the figure of one eval set (or `bench`), its bound, and which way."""

    name: str
    set: str  # an eval set of the report, or "bench"
    metric: str
    target: float | None = None  # None: at least the committed models' figure (baseline)
    at_most: bool = False


# The print scenes (issue 36's point 1): `dominocam eval --synthetic-print DIR` on a
# `dominocam synth --config print` set; `dominotrain.device_run` measures its hold-out set.
PRINT_SET = "synthetic_print"
BENCH_SIZE = (1280, 720)
BENCH_THREADS = 2

KEEP_GATES: tuple[KeepGate, ...] = (
    KeepGate("exact tile set >= 0.97 of the real scenes", "realval_scenes", "exact_tile_set", 0.97),
    KeepGate("tile precision >= 0.995", "realval_scenes", "detection_precision", 0.995),
    KeepGate("photos without tiles read empty, every one", "realval_scenes", "empty_scene", 1.0),
    KeepGate("read without review >= 0.80 of photos", "realval_scenes", "no_review", 0.80),
    KeepGate(
        "exact on >= 0.99 of the photos read without review",
        "realval_scenes",
        "exact_tile_set_without_review",
        0.99,
    ),
    KeepGate(
        "print scenes: no printed domino in `tiles` on >= 0.95 of pictures",
        PRINT_SET,
        "no_printed_tile",
        0.95,
    ),
    KeepGate(
        "single-tile real crops found, no worse than today", "realval_tiles", "detection_recall"
    ),
    KeepGate(
        "single-tile real crops read right, no worse than today",
        "realval_tiles",
        "tile_accuracy_end_to_end",
    ),
    KeepGate(
        "1280x720 end to end <= 80 ms median on 2 threads", "bench", "total_median_ms", 80.0, True
    ),
)


def _figure(report: dict[str, Any], gate: KeepGate) -> dict[str, Any] | None:
    """The gate's figure in `report`: {value, k, n, ...} or None when not measured."""
    if gate.set == "bench":
        bench = (report.get("keep") or {}).get("bench") or {}
        value = bench.get(gate.metric)
        return None if value is None else {"value": float(value)}
    metrics = (((report.get("eval") or {}).get("sets") or {}).get(gate.set) or {}).get("metrics")
    figure = (metrics or {}).get(gate.metric)
    if not figure or not figure.get("n"):
        return None
    return figure


def _baseline(report: dict[str, Any], gate: KeepGate) -> dict[str, Any] | None:
    sets = ((report.get("keep") or {}).get("baseline") or {}).get("sets") or {}
    figure = ((sets.get(gate.set) or {}).get("metrics") or {}).get(gate.metric)
    return figure if figure and figure.get("n") else None


def check_gates(report: dict[str, Any]) -> dict[str, Any]:
    """Every gate of `KEEP_GATES` on `report`: {"all_hold": bool, "gates": [rows]}, each row
    with its figure, target and `holds` (None: not measured)."""
    rows = []
    for gate in KEEP_GATES:
        figure = _figure(report, gate)
        row: dict[str, Any] = {"gate": gate.name, "set": gate.set, "metric": gate.metric}
        target = gate.target
        if target is None:
            base = _baseline(report, gate)
            if base is not None:
                target = float(base["value"])
                row["baseline"] = base
        row["target"] = target
        if figure is None or target is None:
            row.update(holds=None, text="not measured")
        else:
            value = float(figure["value"])
            holds = value <= target if gate.at_most else value >= target - 1e-12
            count = f"{figure['k']}/{figure['n']} " if "k" in figure else ""
            interval = (
                f" [{figure['low']:.3f}, {figure['high']:.3f}]"
                if figure.get("low") is not None
                else ""
            )
            row.update(figure, holds=bool(holds), text=f"{count}{value:.4g}{interval}")
        rows.append(row)
    return {"all_hold": all(row["holds"] is True for row in rows), "gates": rows}


def format_gates(checked: dict[str, Any]) -> str:
    """One line per gate: ok, MISS or 'not measured', the figure and the target."""
    lines = []
    for row in checked["gates"]:
        mark = {True: "ok  ", False: "MISS", None: "----"}[row["holds"]]
        bound = "<=" if row["metric"].endswith("_ms") else ">="
        target = "-" if row["target"] is None else f"{row['target']:.4g}"
        lines.append(f"{mark} {row['gate']}: {row['text']} (target {bound} {target})")
    verdict = "every gate holds" if checked["all_hold"] else "not every gate holds"
    return "\n".join([*lines, verdict])
