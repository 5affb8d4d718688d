"""The compact view's parts that need no window: where squares go, and who the filter keeps.

Squares are as large as storage says (area in proportion), never overlap, stay inside the room
they were fitted to, and a guest that arrives last moves nobody; the filter matches a user ID
by part, a workload type and a state as the legend names it.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ssisim.app.guest_filter import GuestFilter, workload_type
from ssisim.app.tile_layout import MAX_SIDE, MIN_SIDE, Item, fit_scale, pack

SIZES = (2, 4, 8, 16)


def _shop(n: int) -> list[Item]:
    items = [Item(f"G{i:04d}", SIZES[i % 4]) for i in range(n)]
    return sorted(items, key=lambda it: (-it.gb, it.key))


def test_area_grows_with_storage():
    placed = pack(_shop(8), 400, 10.0)
    side = {gb: placed.rects[f"G{i:04d}"][2] for i, gb in enumerate(SIZES)}
    for gb in SIZES:  # area in proportion to storage, within a pixel of rounding
        assert abs(side[gb] - 10.0 * math.sqrt(gb)) <= 1.0
    assert 7.0 < side[16] ** 2 / side[2] ** 2 < 9.0  # 16G has about 8 times 2G's area


def test_a_thousand_guests_fit_four_members_of_200_by_330():
    members = [_shop(250) for _ in range(4)]
    k = fit_scale(members, 200, 330)
    for items in members:
        placed = pack(items, 200, k)
        assert placed.height <= 330
        assert len(placed.rects) == 250
        assert min(s for _, _, s in placed.rects.values()) >= MIN_SIDE
    assert pack(members[0], 200, k * 1.1).height > 330  # and the scale is about the largest


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from((0.5, 1, 2, 4, 8, 16, 64, 256)), min_size=1, max_size=120),
       st.integers(60, 600), st.integers(60, 600))
def test_squares_never_overlap_and_stay_inside(gbs, width, height):
    items = sorted((Item(f"G{i}", gb, "a" if i % 3 else "b") for i, gb in enumerate(gbs)),
                   key=lambda it: (it.group, -it.gb, it.key))
    k = fit_scale([items], width, height, header_h=12)
    placed = pack(items, width, k, header_h=12)
    rects = list(placed.rects.values())
    for x, y, s in rects:
        assert MIN_SIDE <= s <= MAX_SIDE
        assert x >= 0 and y >= 0 and (x + s <= width or x == 0)
    if placed.height <= height:  # fitted (else the room is too small even for the smallest)
        assert all(y + s <= height for _, y, s in rects)
    for i, (x1, y1, s1) in enumerate(rects):
        for x2, y2, s2 in rects[i + 1:]:
            assert x1 + s1 <= x2 or x2 + s2 <= x1 or y1 + s1 <= y2 or y2 + s2 <= y1


def test_a_guest_arriving_last_moves_nobody():
    items = _shop(40)
    before = pack(items, 300, 8.0, header_h=12)
    after = pack([*items, Item("\u2192NEW", 16, "arriving")], 300, 8.0, header_h=12)
    assert {k: v for k, v in after.rects.items() if k in before.rects} == before.rects
    assert after.headers[-1][1] == "arriving"


def test_the_filter_matches_user_ids_workloads_and_states():
    web = ("LWB0001", "WEBSERVER REQUESTS_PER_S 30", "dispatch", "MEMB1")
    db = ("LDB0002", "DATABASE TPS 5", "quiesced", "MEMB2")
    off = ("LID0003", "IDLE", "logged off", None)
    assert workload_type(web[1]) == "WEBSERVER"
    assert GuestFilter().matches(*web) and not GuestFilter().active
    assert GuestFilter("lwb").matches(*web) and not GuestFilter("lwb").matches(*db)
    assert GuestFilter("database").matches(*db)  # a workload type, any case
    assert GuestFilter("running").matches(*web)  # a state as the legend names it
    assert GuestFilter("quiesced memb2").matches(*db)  # every word, in any field
    assert not GuestFilter("quiesced memb1").matches(*db)
    assert GuestFilter(workload="IDLE").matches(*off)
    assert not GuestFilter(workload="IDLE").matches(*web)
    assert GuestFilter(state="logged off").matches(*off)
    assert not GuestFilter(state="dispatch").matches(*db)
