"""The event matching of `dominocam.measure.track_eval`: every event gets a row saying what
became of it."""

from __future__ import annotations

import json

from dominocam.measure.track_eval import (
    FALSE_REASONS,
    NO_NOISE,
    TRUTH_OUTCOMES,
    EventRow,
    VideoResult,
    compare_rows,
    evaluate_seed,
    format_comparison,
    format_table,
    match_events,
    read_rows,
    summarise,
    write_rows,
)

TRUTH = [
    {"frame": 5, "tile": [6, 6], "open_end": None, "visible_frame": 6},
    {"frame": 20, "tile": [4, 6], "open_end": 4, "visible_frame": 21},
    {"frame": 40, "tile": [1, 4], "open_end": 1, "visible_frame": 41},
    {"frame": 60, "tile": [0, 1], "open_end": 0, "visible_frame": None},
]


def added(frame: int, pips: list[int] | None, open_end: int | None = None) -> dict:
    return {"kind": "added", "frame": frame, "pips": pips, "open_end": open_end, "text": "t"}


def test_each_tracker_event_is_the_move_or_says_why_it_is_false() -> None:
    events = [
        added(8, [6, 6]),
        added(10, [1, 4]),  # before 1-4 was set down: another tile misread as it
        added(23, [4, 6], 6),  # found, wrong open end
        added(24, [4, 6], 4),  # the same tile again
        added(30, [5, 5]),  # never played
        added(31, None),  # face down
        {"kind": "changed", "frame": 33, "pips": [4, 5], "open_end": 5},
        {"kind": "removed", "frame": 35, "pips": [5, 5], "open_end": None},
    ]
    m = match_events(TRUTH, events)
    tracker = [row for row in m["rows"] if row.source == "tracker"]
    assert [row.outcome for row in tracker] == [
        "move",
        "before_set_down",
        "move",
        "already_found",
        "not_in_game",
        "unread",
        "changed",
        "removed",
    ]
    assert {row.outcome for row in tracker} - {"move"} == set(FALSE_REASONS)
    assert m["false"] == 6 and m["found"] == 2
    assert [row.frame for row in tracker] == [e["frame"] for e in events]
    assert tracker[4].tile == (5, 5) and tracker[5].tile is None


def test_a_tile_shown_to_check_is_no_move_until_its_values_are_announced() -> None:
    events = [
        {**added(22, None, 4), "track": 7, "doubtful": True},  # 4-6, not read surely
        {"kind": "changed", "frame": 30, "track": 7, "pips": [4, 6], "open_end": 4, "text": "t"},
        {"kind": "changed", "frame": 35, "track": 9, "pips": [1, 4], "open_end": 1, "text": "t"},
    ]
    m = match_events(TRUTH, events)
    tracker = [row for row in m["rows"] if row.source == "tracker"]
    assert [row.outcome for row in tracker] == ["to_check", "move", "changed"]
    assert m["found"] == 1 and m["false"] == 1  # only the change of a shown tile is false
    assert m["delays_placed"] == [10]  # the move counts from when its values were announced


def test_each_true_move_is_found_missed_or_never_visible() -> None:
    m = match_events(TRUTH, [added(8, [6, 6]), added(23, [4, 6], 6)])
    truth = [row for row in m["rows"] if row.source == "truth"]
    assert [row.outcome for row in truth] == ["found", "found", "missed", "never_visible"]
    assert {row.outcome for row in truth} == set(TRUTH_OUTCOMES)
    assert [row.tile for row in truth] == [(6, 6), (4, 6), (1, 4), (0, 1)]
    assert (truth[1].found_frame, truth[1].open_end, truth[1].found_open_end) == (23, 4, 6)
    assert truth[2].found_frame is None and truth[2].visible_frame == 41
    assert (m["open_end_checked"], m["open_end_right"]) == (1, 0)


def result_with(rows: list[EventRow], seed: int) -> VideoResult:
    false = sum(r.source == "tracker" and r.outcome != "move" for r in rows)
    found = sum(r.outcome == "found" for r in rows)
    return VideoResult(seed, None, 100, 2, 2, found, found + false, false, (2,), (3,), 0, 0, 2, 2,
                       tuple(rows))  # fmt: skip


def test_the_summary_counts_false_events_by_reason_and_names_missed_moves(tmp_path) -> None:
    a = [
        EventRow(3, "truth", "found", 5, (6, 6), found_frame=8),
        EventRow(3, "truth", "missed", 20, (4, 6), 4, visible_frame=21),
        EventRow(3, "tracker", "move", 8, (6, 6)),
        EventRow(3, "tracker", "changed", 30, (4, 5)),
        EventRow(3, "tracker", "changed", 31, (4, 6)),
    ]
    b = [EventRow(7, "tracker", "not_in_game", 9, (5, 5))]
    results = [result_with(a, 3), result_with(b, 7)]
    summary = summarise(results)
    assert summary["false_events_by_reason"] == {"changed": 2, "not_in_game": 1}
    assert summary["missed_moves"] == [[3, [4, 6]]]
    text = format_table(summary, results)
    assert "3 (" in text and "2 changed, 1 not_in_game" in text
    assert "moves missed (seed: tile): 3: 4-6" in text

    path = write_rows(results, tmp_path / "deep" / "events.jsonl")
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert len(lines) == 6
    assert lines[1] == {
        "seed": 3, "source": "truth", "outcome": "missed", "frame": 20, "tile": [4, 6],
        "open_end": 4, "visible_frame": 21, "found_frame": None, "found_open_end": None,
        "text": None,
    }  # fmt: skip
    assert lines[-1]["seed"] == 7 and lines[-1]["outcome"] == "not_in_game"


def test_evaluate_seed_rows_carry_the_seed_and_match_the_counts() -> None:
    result = evaluate_seed(2, noise=NO_NOISE)
    assert {row.seed for row in result.rows} == {2}
    truth = [row for row in result.rows if row.source == "truth"]
    tracker = [row for row in result.rows if row.source == "tracker"]
    assert len(truth) == result.true_events and len(tracker) == result.tracker_events
    assert sum(row.outcome == "found" for row in truth) == result.found
    assert sum(row.outcome != "move" for row in tracker) == result.false_events


def test_track_eval_events_flag_writes_the_rows(tmp_path, capsys) -> None:
    from dominocam.cli import main

    out = tmp_path / "events.jsonl"
    assert main(["track-eval", "--seeds", "2", "--noise", "clean", "--events", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert rows and {r["seed"] for r in rows} == {2}
    assert {r["source"] for r in rows} == {"truth", "tracker"}
    assert "moves missed (seed: tile): none" in capsys.readouterr().out


def test_compare_rows_names_the_events_that_differ_between_two_runs(tmp_path, capsys) -> None:
    from dominocam.cli import main

    shared = EventRow(1, "tracker", "move", 12, (2, 12), 2, text="2-12 played")
    before = [
        shared,
        EventRow(1, "truth", "missed", 30, (2, 7), 7, visible_frame=31),
        EventRow(1, "tracker", "not_in_game", 34, (1, 7), text="1-7 played"),
    ]
    after = [
        shared,
        EventRow(1, "truth", "found", 30, (2, 7), 7, visible_frame=31, found_frame=34),
        EventRow(1, "tracker", "move", 34, (2, 7), 7, text="2-7 played"),
    ]
    only_before, only_after = compare_rows(before, after)
    assert only_before == before[1:] and only_after == after[1:]
    text = format_comparison(only_before, only_after)
    assert text.splitlines()[0] == "2 rows only before (-), 2 only after (+)"
    assert "- seed   1 frame   34 not_in_game      1-7 played" in text
    assert "+ seed   1 frame   30 found            true move 2-7" in text
    assert format_comparison(*compare_rows(before, before)) == "the two runs have the same events"

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_rows([result_with(before, 1)], a)
    write_rows([result_with(after, 1)], b)
    assert read_rows(a) == before
    assert main(["track-eval", "--compare", str(a), str(b)]) == 0
    assert capsys.readouterr().out == text + "\n"


def test_compare_refuses_a_file_that_is_not_event_rows(tmp_path, capsys) -> None:
    from dominocam.cli import main

    bad = tmp_path / "summary.json"
    bad.write_text('{"recall": 0.9}\n')
    assert main(["track-eval", "--compare", str(bad), str(bad)]) == 2
    err = capsys.readouterr().err
    assert "summary.json:1 is not an event row" in err and len(err.strip().splitlines()) == 1
    assert main(["track-eval", "--compare", str(tmp_path / "missing"), str(bad)]) == 2
    assert "cannot read event rows" in capsys.readouterr().err


def test_events_of_synthetic_videos_match_the_truth() -> None:
    from dominocam.measure.track_eval import NO_NOISE, evaluate_seed

    for seed in (1, 2):
        result = evaluate_seed(seed, noise=NO_NOISE)
        assert result.found == result.observable == result.true_events
        assert result.false_events == 0
        assert max(result.delays_visible) <= 3  # confirm_frames after first visible
        assert result.reads == 2 * result.tiles  # a perfect reader: two reads that agree


def test_track_eval_runs_the_bundled_models_on_rendered_frames() -> None:
    from dominocam.measure.track_eval import evaluate_seed
    from dominocam.vision.pipeline import load_models
    from dominosynth.video import TINY_GAME, plan_video

    spec = TINY_GAME
    result = evaluate_seed(5, spec=spec, models=load_models())
    assert result.frames == plan_video(5, spec).frame_count
    assert result.reads >= 1  # the real reader was asked, and counted
    assert 0 <= result.found <= result.true_events
    assert result.tracker_events == result.found + result.false_events


def test_a_noisy_detector_still_gives_the_moves() -> None:
    from dominocam.measure.track_eval import DetectorNoise, evaluate_seed, summarise

    noise = DetectorNoise(misread_p=0.0)
    results = [evaluate_seed(seed, noise=noise) for seed in (1, 6)]
    summary = summarise(results)
    assert summary["recall"] >= 0.9
    assert summary["false_events"] <= 1
    assert summary["reads_per_tile"] < 3
