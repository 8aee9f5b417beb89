"""The gates of issue 17, each with its count and Wilson 95% interval, synthetic next to real
(the first 42 scenes, the 66 added later, all 108), from the results of `dominocam eval`.

A gate holds when the measured value (not its interval) reaches the target. The real scenes
are measured as the product is used: the set as the game knows it (the label's `set`), the
committed calibration, nothing else from the labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dominocam.measure.metrics import Rate

# The columns of the table: a set of `dominocam eval` and its heading.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("synthetic", "synthetic val"),
    ("realval_scenes_first42", "real, first 42"),
    ("realval_scenes_new66", "real, new 66"),
    ("realval_scenes", "real, all 108"),
)


@dataclass(frozen=True)
class Gate:
    """One gate: a figure of the eval, the bound it must reach, and which way."""

    name: str
    metric: str  # a SetResult metric, or "ece" for the expected calibration error
    target: float
    at_most: bool = False  # the figure must stay at or below the target (ECE)
    sets: tuple[str, ...] = tuple(name for name, _ in COLUMNS)


GATES: tuple[Gate, ...] = (
    Gate("tile precision >= 0.99", "detection_precision", 0.99),
    Gate("tile recall >= 0.99", "detection_recall", 0.99),
    Gate("exact tile set >= 0.95 of photos", "exact_tile_set", 0.95),
    Gate("free ends right >= 0.95 of photos with a layout", "open_ends", 0.95),
    Gate("face-down count right >= 0.95", "face_down_count", 0.95),
    Gate("photo without a tile -> empty Scene, every one", "empty_scene", 1.0),
    Gate("selective: exact set without review >= 0.99", "exact_tile_set_without_review", 0.99),
    Gate("selective: photos without review >= 0.7", "no_review", 0.7),
    Gate("calibration: ECE <= 0.05", "ece", 0.05, at_most=True),
    # No regressions on the synthetic val (the figures of landed main, issue 17).
    Gate(
        "no regression: synthetic recall >= 0.974", "detection_recall", 0.974, sets=("synthetic",)
    ),
    Gate(
        "no regression: synthetic precision >= 0.971",
        "detection_precision",
        0.971,
        sets=("synthetic",),
    ),
    Gate("no regression: synthetic per-half >= 0.953", "half_accuracy", 0.953, sets=("synthetic",)),
    Gate(
        "no regression: synthetic face right >= 0.990", "face_accuracy", 0.990, sets=("synthetic",)
    ),
)


def _figure(result: Any, metric: str) -> tuple[str, bool | None, dict[str, Any] | None]:
    """(cell text, holds?, JSON) of one figure of one set; ('-', None, None) when unmeasured."""
    if metric == "ece":
        if not result.calibration_points:
            return "-", None, None
        cal = result.calibration()
        return f"{cal['ece']:.3f} ({cal['boxes']} boxes)", None, {"ece": cal["ece"], **cal}
    rate: Rate | None = result.metrics().get(metric)
    if rate is None or not rate.n:
        return "-", None, None
    low, high = rate.interval
    return f"{rate.k}/{rate.n} {rate.value:.3f} [{low:.2f},{high:.2f}]", None, rate.to_dict()


def gate_table(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every gate with its figure in each column: text, value, and whether it holds."""
    rows = []
    for gate in GATES:
        cells = {}
        for name, _ in COLUMNS:
            if name not in gate.sets or name not in results:
                continue
            text, _, data = _figure(results[name], gate.metric)
            if data is None:
                cells[name] = {"text": text, "holds": None}
                continue
            value = data["ece"] if gate.metric == "ece" else data["value"]
            holds = value <= gate.target if gate.at_most else value >= gate.target - 1e-12
            cells[name] = {"text": text, "value": value, "holds": bool(holds)}
        rows.append({"gate": gate.name, "metric": gate.metric, "target": gate.target, **cells})
    return rows


def format_gates(rows: list[dict[str, Any]]) -> str:
    """The gate table as text: one line per gate, one cell per column, 'ok' or 'MISS'."""
    present = [(n, h) for n, h in COLUMNS if any(n in row for row in rows)]
    width = 34
    head = f"{'gate':<50}" + "".join(f"{h:<{width}}" for _, h in present)
    lines = ["gates (count, value [Wilson 95%]; ok = the value reaches the target):", head]
    for row in rows:
        cells = []
        for name, _ in present:
            cell = row.get(name)
            if cell is None:
                cells.append(f"{'':<{width}}")
                continue
            mark = {True: " ok", False: " MISS", None: ""}[cell["holds"]]
            cells.append(f"{cell['text'] + mark:<{width}}")
        lines.append(f"{row['gate']:<50}" + "".join(cells))
    return "\n".join(lines)
