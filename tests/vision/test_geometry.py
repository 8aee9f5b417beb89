"""Hand-made cases for vision.geometry: letterbox, boxes, corner order, probiou, NMS, borders."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from vision_factories import tile_corners

from dominocam.vision import geometry

ANGLES = [0.0, 0.3, math.pi / 4, math.pi / 2, 2.0, math.pi, 4.0, -0.7, 3 * math.pi / 2 + 0.2]


# ---------------------------------------------------------------------------- letterbox


@pytest.mark.parametrize(
    ("shape", "size", "resized", "pads"),
    [
        ((720, 1280), (640, 640), (360, 640), (0, 140)),  # wide: pad top/bottom
        ((1280, 720), (640, 640), (640, 360), (140, 0)),  # tall: pad left/right
        ((100, 100), (640, 640), (640, 640), (0, 0)),  # small square, scaled up
        ((241, 319), (160, 160), (121, 160), (0, 19)),  # odd sizes
        ((480, 640), (320, 416), (312, 416), (0, 4)),  # non-square input
    ],
)
def test_letterbox_shapes_and_padding(shape, size, resized, pads):
    image = np.full((*shape, 3), 200, np.uint8)
    out, t = geometry.letterbox(image, size)
    assert out.shape == (*size, 3)
    assert (t.pad_x, t.pad_y) == pads
    assert round(shape[1] * t.scale_x) == resized[1] and round(shape[0] * t.scale_y) == resized[0]
    # Padding is 114 grey, the content is where the transform says.
    if t.pad_y:
        assert (out[: t.pad_y] == 114).all() and (out[-1] == 114).all()
    if t.pad_x:
        assert (out[:, : t.pad_x] == 114).all() and (out[:, -1] == 114).all()
    assert (out[t.pad_y : t.pad_y + resized[0], t.pad_x : t.pad_x + resized[1]] == 200).all()


@pytest.mark.parametrize(
    ("shape", "max_upscale", "expected"),
    [
        ((720, 1280), None, (384, 640)),  # 16:9: 360 rows padded up to 384, not 640
        ((1280, 720), None, (640, 384)),  # portrait
        ((600, 800), None, (480, 640)),  # 4:3 fits exactly
        ((3024, 4032), None, (480, 640)),
        ((100, 100), 2.0, (224, 224)),  # a small picture enlarged at most twice
        ((100, 100), None, (640, 640)),
        ((10, 2000), None, (32, 640)),  # never below one stride
    ],
)
def test_rect_input_shape_is_the_smallest_stride_multiple_at_the_square_scale(
    shape, max_upscale, expected
):
    rect = geometry.rect_input_shape(shape, (640, 640), 32, max_upscale)
    assert rect == expected
    assert all(side % 32 == 0 for side in rect)
    image = np.zeros((*shape, 3), np.uint8)
    _, square = geometry.letterbox(image, (640, 640), max_upscale=max_upscale)
    _, tight = geometry.letterbox(image, rect, max_upscale=max_upscale)
    # The same scale as the square input: the detector sees the tiles at the same size.
    assert tight.scale_x == square.scale_x and tight.scale_y == square.scale_y


def test_rect_input_shape_refuses_what_has_no_shape():
    with pytest.raises(ValueError, match="empty"):
        geometry.rect_input_shape((0, 10), (640, 640), 32)
    with pytest.raises(ValueError, match="stride"):
        geometry.rect_input_shape((10, 10), (640, 640), 0)


@pytest.mark.parametrize("max_upscale, scale", [(None, 6.4), (3.0, 3.0), (1.0, 1.0), (10.0, 6.4)])
def test_letterbox_caps_enlarging_a_small_picture(max_upscale, scale):
    image = np.full((100, 100, 3), 200, np.uint8)
    out, t = geometry.letterbox(image, 640, max_upscale=max_upscale)
    assert out.shape == (640, 640, 3)
    assert t.scale_x == pytest.approx(scale) and t.scale_y == pytest.approx(scale)
    side = round(100 * scale)
    assert (t.pad_x, t.pad_y) == ((640 - side) // 2, (640 - side) // 2)
    assert np.allclose(t.to_source(t.to_input(np.array([[10.0, 90.0]]))), [[10.0, 90.0]])


def test_letterbox_cap_leaves_large_pictures_alone():
    big = np.zeros((720, 1280, 3), np.uint8)
    _, capped = geometry.letterbox(big, 640, max_upscale=1.0)
    _, free = geometry.letterbox(big, 640)
    assert capped == free


def test_letterbox_grayscale_and_int_size():
    out, t = geometry.letterbox(np.zeros((50, 100), np.uint8), 64)
    assert out.shape == (64, 64) and t.input_shape == (64, 64) and t.source_shape == (50, 100)


@pytest.mark.parametrize("shape", [(720, 1280), (1080, 1920), (333, 777), (1000, 300)])
def test_letterbox_round_trip_points(shape):
    _, t = geometry.letterbox(np.zeros((*shape, 3), np.uint8), 640)
    pts = np.random.default_rng(0).uniform(0, 1, size=(50, 2)) * [shape[1], shape[0]]
    assert np.allclose(t.to_source(t.to_input(pts)), pts)
    # The image corners land on the content's corners.
    corners = np.array([[0, 0], [shape[1], shape[0]]], float)
    mapped = t.to_input(corners)
    assert np.allclose(mapped[0], [t.pad_x, t.pad_y])
    assert np.allclose(mapped[1], [t.pad_x + shape[1] * t.scale_x, t.pad_y + shape[0] * t.scale_y])
    assert mapped[1][0] <= 640 and mapped[1][1] <= 640


def test_letterbox_pixel_lands_where_transform_says():
    image = np.zeros((300, 500, 3), np.uint8)
    image[100:110, 200:210] = 255
    out, t = geometry.letterbox(image, 320)
    centre = t.to_input(np.array([205.0, 105.0]))
    ys, xs = np.nonzero(out[:, :, 0] > 128)
    assert abs(xs.mean() - centre[0]) < 1.0 and abs(ys.mean() - centre[1]) < 1.0


# ---------------------------------------------------------------------------- boxes


@pytest.mark.parametrize("angle", ANGLES)
def test_xywhr_corners_round_trip_every_quadrant(angle):
    box = np.array([100.0, 50.0, 60.0, 30.0, angle])
    corners = geometry.xywhr_to_corners(box)
    sides = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
    assert sorted(np.round(sides, 6)) == [30, 30, 60, 60]
    back = geometry.corners_to_xywhr(corners)
    assert np.allclose(back, geometry.regularize_xywhr(box))
    # Either direction of travel gives the same box.
    assert np.allclose(geometry.corners_to_xywhr(corners[::-1]), back)


@pytest.mark.parametrize("angle", ANGLES)
def test_regularize_keeps_the_rectangle(angle):
    box = np.array([10.0, 20.0, 8.0, 4.0, angle])
    reg = geometry.regularize_xywhr(box)
    assert 0 <= reg[4] < math.pi / 2
    a = geometry.order_corners(geometry.xywhr_to_corners(box))
    b = geometry.order_corners(geometry.xywhr_to_corners(reg))
    assert np.allclose(a, b)


def test_regularize_batched():
    boxes = np.array([[0, 0, 4, 2, 0.0], [0, 0, 4, 2, math.pi / 2 + 0.1], [0, 0, 4, 2, -0.1]])
    reg = geometry.regularize_xywhr(boxes)
    assert np.allclose(reg[0], [0, 0, 4, 2, 0.0])
    assert np.allclose(reg[1], [0, 0, 2, 4, 0.1])
    assert np.allclose(reg[2], [0, 0, 2, 4, math.pi / 2 - 0.1])


# ---------------------------------------------------------------------------- corner order


def _check_convention(ordered: np.ndarray) -> None:
    e01 = np.linalg.norm(ordered[1] - ordered[0])
    e12 = np.linalg.norm(ordered[2] - ordered[1])
    assert e01 <= e12 + 1e-9, "corners[0]-corners[1] must be a short edge"
    assert geometry.polygon_area(ordered) > 0, "corners must go clockwise on screen"


@pytest.mark.parametrize("angle", ANGLES)
def test_box_length_is_the_long_side_at_any_angle(angle):
    corners = geometry.xywhr_to_corners(np.array([50.0, 40.0, 30.0, 15.0, angle]))
    assert geometry.box_length(corners) == pytest.approx(30.0)
    assert geometry.box_length(corners[[1, 2, 3, 0]]) == pytest.approx(30.0)


@pytest.mark.parametrize("angle", ANGLES)
@pytest.mark.parametrize("perm", list(itertools.permutations(range(4))))
def test_order_corners_any_input_order(angle, perm):
    corners = geometry.xywhr_to_corners(np.array([50.0, 40.0, 30.0, 15.0, angle]))
    ordered = geometry.order_corners(corners[list(perm)])
    _check_convention(ordered)
    reference = geometry.order_corners(corners)
    assert np.allclose(ordered, reference)  # deterministic whatever the input order
    assert {tuple(np.round(p, 6)) for p in ordered} == {tuple(np.round(p, 6)) for p in corners}


@pytest.mark.parametrize(
    ("box", "first_edge_mid"),
    [
        ([50, 50, 40, 20, 0.0], (30, 50)),  # horizontal: left end first (tie on y)
        ([50, 50, 20, 40, 0.0], (50, 30)),  # vertical: top end first
        ([50, 50, 40, 20, math.pi / 2], (50, 30)),  # same, expressed turned
    ],
)
def test_order_corners_picks_top_then_left_end(box, first_edge_mid):
    ordered = geometry.order_corners(geometry.xywhr_to_corners(np.array(box, float)))
    assert np.allclose((ordered[0] + ordered[1]) / 2, first_edge_mid)


def test_order_corners_batched_and_rectify_is_unmirrored():
    import cv2

    image = np.zeros((100, 100, 3), np.uint8)
    # A vertical tile: top half red, bottom half blue, a white dot at the top-left of the top.
    cv2.rectangle(image, (40, 20), (59, 49), (0, 0, 255), -1)
    cv2.rectangle(image, (40, 50), (59, 79), (255, 0, 0), -1)
    cv2.circle(image, (44, 24), 2, (255, 255, 255), -1)
    corners = np.array([[60, 80], [40, 20], [60, 20], [40, 80]], float)  # scrambled
    ordered = geometry.order_corners(corners[None])[0]
    top, bottom = geometry.split_halves(geometry.rectify_tile(image, ordered, 20))
    assert top[..., 2].mean() > 150 and bottom[..., 0].mean() > 150
    assert top[:10, :10].max() == 255  # the dot stays top-left: no mirror


@pytest.mark.parametrize("channels", [(3,), ()])
def test_split_halves_many_is_split_halves_of_each_tile(channels):
    rng = np.random.default_rng(0)
    tiles = rng.integers(0, 256, (4, 2 * 16, 16, *channels), dtype=np.uint8)
    halves = geometry.split_halves_many(tiles)
    assert halves.shape == (4, 2, 16, 16, *channels) and halves.flags.c_contiguous
    for tile, (top, bottom) in zip(tiles, halves, strict=True):
        one_top, one_bottom = geometry.split_halves(tile)
        assert np.array_equal(top, one_top) and np.array_equal(bottom, one_bottom)
        assert np.array_equal(bottom, tile[16:][::-1, ::-1])  # turned 180 degrees
        assert one_bottom.flags.c_contiguous


def test_order_corners_rejects_bad_shape():
    with pytest.raises(ValueError):
        geometry.order_corners(np.zeros((3, 2)))


# ---------------------------------------------------------------------------- probiou and NMS


def test_probiou_identical_disjoint_and_symmetric():
    a = np.array([[50, 50, 40, 20, 0.3]])
    far = np.array([[500, 500, 40, 20, 0.3]])
    assert geometry.probiou(a, a)[0, 0] > 0.99
    assert geometry.probiou(a, far)[0, 0] < 1e-3
    boxes = np.array([[50, 50, 40, 20, 0.3], [60, 52, 40, 20, 0.5], [55, 45, 30, 30, 1.0]])
    m = geometry.probiou(boxes, boxes)
    assert m.shape == (3, 3) and np.allclose(m, m.T, atol=1e-9)


def test_probiou_matches_hand_computed_value():
    # Two equal axis-aligned boxes 80 px apart along x, w=80, h=40: Bhattacharyya distance
    # = dx^2 / (8 * w^2 / 12) = 1.5, so probiou = 1 - sqrt(1 - e^-1.5).
    a = np.array([[0, 0, 80, 40, 0.0]])
    b = np.array([[80, 0, 80, 40, 0.0]])
    assert geometry.probiou(a, b)[0, 0] == pytest.approx(
        1 - math.sqrt(1 - math.exp(-1.5)), abs=1e-4
    )


def test_probiou_angle_period_is_pi():
    a = np.array([[0, 0, 40, 20, 0.4]])
    assert geometry.probiou(a, a + np.array([0, 0, 0, 0, math.pi]))[0, 0] > 0.99
    assert geometry.probiou(a, np.array([[0, 0, 20, 40, 0.4 + math.pi / 2]]))[0, 0] > 0.99


@pytest.mark.parametrize("greedy", [True, False])
def test_nms_suppresses_duplicates_keeps_best(greedy):
    boxes = np.array([[50, 50, 40, 20, 0.1], [51, 50, 40, 20, 0.12], [200, 50, 40, 20, 0.0]])
    scores = np.array([0.6, 0.9, 0.5])
    keep = geometry.nms_rotated(boxes, scores, 0.7, greedy=greedy)
    assert keep.tolist() == [1, 2]


@pytest.mark.parametrize("angle", [0.0, 0.5, math.pi / 2, 2.5])
@pytest.mark.parametrize("greedy", [True, False])
def test_nms_touching_tiles_in_a_line_stay_separate(angle, greedy):
    # Five tiles end to end (and five side by side) along a turned line, all touching.
    direction = np.array([math.cos(angle), math.sin(angle)])
    across = np.array([-direction[1], direction[0]])
    end_to_end = [[*(np.array([300, 300]) + k * 80 * direction), 80, 40, angle] for k in range(5)]
    side_by_side = [[*(np.array([300, 300]) + k * 40 * across), 80, 40, angle] for k in range(5)]
    for line in (end_to_end, side_by_side):
        boxes = np.array(line)
        keep = geometry.nms_rotated(boxes, np.linspace(0.9, 0.5, 5), 0.7, greedy=greedy)
        assert sorted(keep.tolist()) == [0, 1, 2, 3, 4]
        keep = geometry.nms_rotated(boxes, np.linspace(0.9, 0.5, 5), 0.45, greedy=greedy)
        assert sorted(keep.tolist()) == [0, 1, 2, 3, 4]


def test_nms_greedy_differs_from_fast_in_a_chain():
    # A beats B, B overlaps C, A does not overlap C: greedy keeps C, fast NMS drops it.
    boxes = np.array([[0, 0, 40, 20, 0.0], [8, 0, 40, 20, 0.0], [16, 0, 40, 20, 0.0]])
    scores = np.array([0.9, 0.8, 0.7])
    thr = (
        geometry.probiou(boxes[:1], boxes[2:])[0, 0] + geometry.probiou(boxes[:1], boxes[1:2])[0, 0]
    ) / 2
    assert geometry.nms_rotated(boxes, scores, thr, greedy=True).tolist() == [0, 2]
    assert geometry.nms_rotated(boxes, scores, thr, greedy=False).tolist() == [0]


def test_nms_empty():
    assert geometry.nms_rotated(np.zeros((0, 5)), np.zeros(0)).tolist() == []


def _greedy_nms_every_pair(boxes: np.ndarray, scores: np.ndarray, threshold: float) -> list[int]:
    """Greedy NMS written plainly: every kept box against every box left."""
    order = np.argsort(-scores, kind="stable")
    ious = geometry.probiou(boxes, boxes)
    alive, keep = np.ones(len(boxes), dtype=bool), []
    for i in order:
        if alive[i]:
            keep.append(int(i))
            alive &= ious[i] < threshold
    return keep


@pytest.mark.parametrize("threshold", [0.05, 0.3, 0.45, 0.7, 0.9])
def test_nms_greedy_matches_every_pair_greedy(threshold):
    # Clusters of jittered candidates around tiles of mixed sizes (as the detector gives),
    # plus scattered boxes: the pairs the k-d tree skips can never reach the threshold.
    rng = np.random.default_rng(int(threshold * 100))
    for _ in range(20):
        centres = rng.uniform(0, 400, (12, 2))
        sizes = rng.uniform(8, 120, (12, 1)) * np.array([1.0, 0.5])
        tiles = np.hstack([centres, sizes, rng.uniform(-math.pi, math.pi, (12, 1))])
        jitter = rng.normal(0, [3.0, 3.0, 4.0, 2.0, 0.1], (12, 8, 5))
        boxes = np.vstack([(tiles[:, None] + jitter).reshape(-1, 5), tiles])
        boxes[:, 2:4] = np.abs(boxes[:, 2:4]) + 1.0
        scores = rng.uniform(0.2, 1.0, len(boxes))
        expected = _greedy_nms_every_pair(boxes, scores, threshold)
        assert geometry.nms_rotated(boxes, scores, threshold).tolist() == expected


def test_nms_reach_bounds_probiou():
    # Two boxes just beyond the reach never reach the threshold, whatever their angles.
    rng = np.random.default_rng(3)
    for threshold in (0.1, 0.5, 0.7, 0.95):
        for _ in range(200):
            pair = np.hstack(
                [
                    rng.uniform(0, 1, (2, 2)),
                    rng.uniform(1, 90, (2, 2)),
                    rng.uniform(-math.pi, math.pi, (2, 1)),
                ]
            )
            reach = geometry._reach(pair, threshold)
            direction = rng.normal(size=2)
            pair[1, :2] = pair[0, :2] + reach * direction / np.linalg.norm(direction)
            assert geometry.probiou(pair[:1], pair[1:])[0, 0] < threshold


# ---------------------------------------------------------------------------- borders


@pytest.mark.parametrize(
    ("box", "inside", "cut"),
    [
        ([50, 50, 20, 10, 0.3], True, False),
        ([5, 50, 20, 10, 0.0], False, True),  # crosses the left border
        ([90, 50, 21, 10, 0.0], False, True),  # right edge at x = 100.5
        ([88, 50, 20, 10, 0.0], True, True),  # 2 px from the right border: touching it
        ([50, 96, 20, 10, math.pi / 2], False, True),
    ],
)
def test_border_checks(box, inside, cut):
    corners = geometry.xywhr_to_corners(np.array(box, float))
    assert geometry.box_fully_inside(corners, 100, 100) is inside
    assert geometry.box_cut_by_border(corners, 100, 100, margin=2.5) is cut


def test_border_checks_batched():
    corners = geometry.xywhr_to_corners(np.array([[50, 50, 20, 10, 0.0], [0, 0, 20, 10, 0.0]]))
    assert geometry.box_cut_by_border(corners, 100, 100).tolist() == [False, True]


def test_points_inside_boxes_of_a_turned_box():
    box = tile_corners(0, 0, math.pi / 4)
    points = np.array([[[0.0, 0.0], [25.0, 25.0], [40.0, -40.0], [0.0, 20.0]]])
    assert geometry.points_inside_boxes(points, box[None])[0, 0].tolist() == [
        True,
        True,
        False,
        True,
    ]


def test_box_lengths_are_each_box_length():
    rng = np.random.default_rng(3)
    boxes = rng.uniform(-50, 500, size=(9, 4, 2))
    lengths = geometry.box_lengths(boxes)
    assert lengths.tolist() == pytest.approx([geometry.box_length(b) for b in boxes], abs=1e-9)
    assert geometry.box_lengths(np.zeros((0, 4, 2))).shape == (0,)


def test_boxes_cut_by_border_is_box_cut_by_border_of_each():
    rng = np.random.default_rng(4)
    boxes = rng.uniform(-20, 120, size=(12, 4, 2))
    cut = geometry.boxes_cut_by_border(boxes, 100, 80)
    assert cut.tolist() == [bool(geometry.box_cut_by_border(b, 100, 80)) for b in boxes]
    assert geometry.boxes_cut_by_border(np.zeros((0, 4, 2)), 100, 80).tolist() == []


@pytest.mark.parametrize("nudge", [-1e-8, 0.0, 1e-8])
def test_nms_two_boxes_of_one_tile_scored_alike_keep_the_first(nudge):
    # Scores equal to NMS_SCORE_DECIMALS are a tie: the box listed first stays, whichever way
    # another CPU's last bits tip the scores (issue 31).
    boxes = np.array([[50, 50, 40, 20, 0.1], [51, 50, 40, 20, 0.12]])
    scores = np.array([0.8, 0.8 + nudge])
    assert geometry.nms_rotated(boxes, scores, 0.7).tolist() == [0]
    assert geometry.nms_rotated(boxes, np.array([0.8, 0.8 + 1e-5]), 0.7).tolist() == [1]
