"""A large cluster in the window: planning/shop-1000's four members and 1,000 guests.

At 1600x1000 every guest has a square on screen, without scrolling, painted by one widget per
member (no widget per guest); the filter dims or hides guests and the table follows it; the
table sorts and selects; a square or a row dropped on another member asks for the relocation,
as a detailed tile does; a frame repaints only the squares that changed.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QDrag,
    QHelpEvent,
    QMouseEvent,
    QPainter,
    QPixmap,
    QRegion,
)
from PySide6.QtWidgets import QApplication, QToolTip

from ssisim.app.cluster_view import COMPACT_ABOVE
from ssisim.app.compact_view import GuestMap, TileLook, paint_tile
from ssisim.app.guest_table import STORAGE
from ssisim.app.guest_tile import MIME_GUEST, GuestTile
from ssisim.app.theme import STATE_COLOURS, STATE_LABELS, STATE_ORDER, contrast_text
from ssisim.app.tile_layout import Placement
from ssisim.cli import resolve_scenario
from ssisim.engine import load_scenario

SHOP = "planning/shop-1000"


def _shop_window(make_window, qtbot):
    """shop-1000 at t = 0 in a 1600x1000 window laid out as at first start."""
    win = make_window(SHOP)
    win.resize(1600, 1000)
    win.default_layout()
    cv = win.cluster.compact
    qtbot.waitUntil(lambda: len(cv.shown()) == 1000, timeout=20_000)
    qtbot.wait(50)  # the layout after the last resize
    return win



def test_every_guest_of_shop_1000_is_on_screen_at_1600x1000(make_window, qtbot):
    win = _shop_window(make_window, qtbot)
    assert (win.width(), win.height()) == (1600, 1000)
    cluster, cv = win.cluster, win.cluster.compact
    assert cluster.is_compact() and win.act_compact.isChecked()
    assert not cluster.tiles and not cluster.findChildren(GuestTile)  # no widget per guest
    assert sorted(cv.shown()) == sorted(win.model.userids())
    index = win.model.index()
    for name, panel in cv.panels.items():
        m = panel.map
        assert m.isVisible() and m.clipped == 0, name
        seen = m.visibleRegion()
        for uid, rect in m.rects.items():
            assert QRegion(rect).subtracted(seen).isEmpty(), (name, uid, rect, m.size())
            assert index.guests[uid].member == name
    # and in the picture: each guest's square has its state's colour
    img = cv.grab().toImage()
    for uid in win.model.userids()[::7]:
        centre = cv.tile_rect(uid).center()
        assert QColor(img.pixel(centre)).name() == STATE_COLOURS[index.states[uid]], uid
    # area in proportion to storage: a 16G guest's square has about 8 times a 2G guest's area
    sides = {index.guests[u].storage_pages: cv.tile_rect(u).width() for u in cv.shown()}
    small, large = min(sides), max(sides)
    assert large == 8 * small and 6.5 < sides[large] ** 2 / sides[small] ** 2 < 9.5


def test_the_view_follows_the_cluster_size_and_the_view_menu(make_window, qtbot):
    win = make_window("demo")
    assert len(win.model.userids()) <= COMPACT_ABOVE
    assert not win.cluster.is_compact() and win.cluster.tiles
    assert not win.act_compact.isChecked()
    # a small cluster looks as it did: no filter box taking its tiles' room
    assert win.cluster.filter_bar.isHidden()
    win.act_compact.trigger()  # View > Cluster view > Compact (Ctrl+T)
    assert win.cluster.is_compact() and not win.cluster.tiles
    assert not win.cluster.filter_bar.isHidden()
    assert win.prefs.cluster_view == "compact"
    cv = win.cluster.compact
    qtbot.waitUntil(lambda: sorted(cv.shown()) == sorted(win.model.userids()))
    # few guests: their squares are large enough to carry their user IDs
    assert min(cv.tile_rect(u).width() for u in cv.shown()) >= 38
    win.cluster.filter_bar.text.setText("lnxapp")
    assert cv.look("LNXDB1").dimmed and not cv.look("LNXAPP1").dimmed
    win.cluster_view_actions["auto"].trigger()
    assert not win.cluster.is_compact() and sorted(win.cluster.tiles) == \
        sorted(win.model.userids())
    # the filter box hidden with the compact view: it filters nothing until it is back
    assert win.cluster.filter_bar.isHidden()
    assert not any(t.dimmed for t in win.cluster.tiles.values())
    assert len(win.table.source.rows) == sum(win.table.source.matches)
    win.act_compact.trigger()
    assert cv.look("LNXDB1").dimmed and not cv.look("LNXAPP1").dimmed
    win.cluster_view_actions["auto"].trigger()
    # a large scenario opened in the same window: compact by itself, the guest table in front
    win.start_scenario(load_scenario(resolve_scenario(SHOP)))
    qtbot.waitUntil(lambda: len(win.model.userids()) == 1000, timeout=20_000)
    assert win.cluster.is_compact() and win.act_compact.isChecked()
    assert win.table.isVisible()
    win.cluster_view_actions["detailed"].trigger()  # asked for: a tile per guest even so
    assert not win.cluster.is_compact() and len(win.cluster.tiles) == 1000
    assert not win.cluster.filter_bar.isHidden()  # and the filter box, for so many


def test_the_filter_dims_or_hides_and_the_table_follows(make_window, qtbot):
    win = _shop_window(make_window, qtbot)
    cv, bar, table = win.cluster.compact, win.cluster.filter_bar, win.table
    everyone = win.model.userids()
    dbs = sorted(u for u in everyone if u.startswith("LDB"))
    bar.text.setText("ldb")
    assert cv.look("LAP0001").dimmed and not cv.look(dbs[0]).dimmed
    assert bar.count.text() == f"{len(dbs)} of 1,000 guests match"
    assert sorted(table.shown_userids()) == dbs
    # a dimmed square is drawn faint: lighter than its state's colour on a light background
    img = cv.grab().toImage()
    faint = QColor(img.pixel(cv.tile_rect("LAP0001").center()))
    full = QColor(img.pixel(cv.tile_rect(dbs[0]).center()))
    assert full.name() == STATE_COLOURS[win.model.state_of(dbs[0])]
    assert faint.name() != STATE_COLOURS[win.model.state_of("LAP0001")]
    before = cv.tile_rect(dbs[0]).width()
    width = win.cluster.width()
    bar.hide_others.setChecked(True)
    qtbot.waitUntil(lambda: sorted(cv.shown()) == dbs)
    qtbot.wait(50)
    # each member says how many it hides, without widening the cluster at the docks' expense
    assert all("hidden" in p.info.toolTip() for p in cv.panels.values())
    assert win.cluster.width() == width
    # and the databases take the room the others left: larger squares than before
    assert cv.tile_rect(dbs[0]).width() > before
    # the workload box and a state from the legend
    bar.text.clear()
    bar.hide_others.setChecked(False)
    bar.workload.setCurrentIndex(bar.workload.findData("IDLE"))
    idle = sorted(u for u in everyone if u.startswith("LID"))
    assert sorted(table.shown_userids()) == idle
    bar.workload.setCurrentIndex(0)
    bar.state.setCurrentIndex(bar.state.findData("dormant"))
    dormant = sorted(u for u in everyone if win.model.state_of(u) == "dormant")
    assert sorted(table.shown_userids()) == dormant
    assert all(cv.look(u).dimmed == (u not in dormant) for u in everyone)


def test_the_table_sorts_selects_and_drags(drop, make_window, qtbot, monkeypatch):
    win = _shop_window(make_window, qtbot)
    table, view = win.table, win.table.view
    win.docks["guests"].raise_()
    qtbot.waitUntil(table.isVisible)
    view.sortByColumn(STORAGE, Qt.SortOrder.DescendingOrder)
    shown = table.shown_userids()
    sizes = [win.model.guest(u).storage_pages for u in shown]
    assert len(shown) == 1000 and sizes == sorted(sizes, reverse=True)
    assert view.model().index(0, STORAGE).data() == "16G"
    # selecting a row selects the guest (the detail and the compact view follow) ...
    view.selectRow(3)
    assert win.model.selected == shown[3]
    assert win.cluster.compact.look(shown[3]).selected
    # ... and selecting a guest elsewhere selects its row
    win.model.select(shown[10])
    assert [table.userid_at(i.row()) for i in view.selectionModel().selectedRows()] == \
        [shown[10]]
    # a row dragged onto a member in the compact view asks for the relocation
    sent: list = []
    monkeypatch.setattr(win, "relocate", lambda *args: sent.append(args))
    win.cluster.relocate_requested.disconnect()
    win.cluster.relocate_requested.connect(win.relocate)
    row = next(i for i, u in enumerate(shown) if win.model.guest(u).member != "MEMB3")
    mime = view.model().mimeData([view.model().index(row, 0)])
    assert bytes(mime.data(MIME_GUEST).data()).decode() == shown[row]
    assert view.model().supportedDragActions() & Qt.DropAction.MoveAction
    assert drop(win.cluster.compact.panels["MEMB3"], mime) == (True, True)
    assert sent == [(shown[row], "MEMB3", False)]


def test_a_square_dragged_onto_another_member_relocates_its_guest(drop, make_window, qtbot,
                                                                  wait_console, monkeypatch):
    win = _shop_window(make_window, qtbot)
    cv = win.cluster.compact
    source = cv.panels["MEMB1"].map
    uid = next(iter(source.rects))  # the first guest of the first member
    # the drag: pressing the square selects the guest, moving it starts a drag that carries it
    seen = {}

    def fake_exec(self, *args, **kwargs):  # a real exec returns at once offscreen
        seen["guest"] = bytes(self.mimeData().data(MIME_GUEST).data()).decode()
        return Qt.DropAction.MoveAction

    monkeypatch.setattr(QDrag, "exec", fake_exec)
    start = source.rects[uid].center()
    qtbot.mousePress(source, Qt.MouseButton.LeftButton, pos=start)
    assert win.model.selected == uid
    far = QPointF(start + QPoint(QApplication.startDragDistance() + 10, 0))
    QApplication.sendEvent(source, QMouseEvent(QEvent.Type.MouseMove, far,
                                               source.mapToGlobal(far), Qt.MouseButton.NoButton,
                                               Qt.MouseButton.LeftButton,
                                               Qt.KeyboardModifier.NoModifier))
    assert seen == {"guest": uid}
    # the drop: on its own member nothing, on another the relocation
    mime = source.mime_data(uid)
    assert drop(cv.panels["MEMB1"], mime) == (False, False)
    with qtbot.waitSignal(win.cluster.relocate_requested) as sig:
        assert drop(cv.panels["MEMB2"], mime) == (True, True)
    assert sig.args == [uid, "MEMB2", False]
    wait_console(win, f"VMRELOCATE MOVE USER {uid} TO MEMB2")
    qtbot.waitUntil(lambda: cv.look(uid) is not None and cv.look(uid).mark == "move")
    # the destination shows the arriving copy, dashed, after its own guests
    qtbot.waitUntil(lambda: "\u2192" + uid in cv.panels["MEMB2"].map.rects)


def test_a_square_has_a_tooltip_and_a_menu(make_window, qtbot):
    win = _shop_window(make_window, qtbot)
    m = win.cluster.compact.panels["MEMB2"].map
    uid = next(iter(m.rects))
    pos = m.rects[uid].center()
    QApplication.sendEvent(m, QHelpEvent(QEvent.Type.ToolTip, pos, m.mapToGlobal(pos)))
    qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
    text = QToolTip.text()
    g = win.model.guest(uid)
    assert uid in text and "Member: MEMB2" in text and g.workload.split()[0] in text
    assert "Storage: " in text
    QToolTip.hideText()
    win.cluster.menu_requested.disconnect(win.show_guest_menu)  # no popup offscreen
    with qtbot.waitSignal(win.cluster.menu_requested) as sig:
        QApplication.sendEvent(m, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos,
                                                    m.mapToGlobal(pos)))
    assert sig.args[0] == uid


def test_a_frame_repaints_only_the_squares_that_changed(make_window, qtbot):
    win = _shop_window(make_window, qtbot)
    cv = win.cluster.compact
    painted: list[tuple[str, QRect]] = []

    class Watch(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint:
                painted.append((obj.objectName(), event.rect()))
            return False

    watch = Watch()
    for name, panel in cv.panels.items():
        panel.map.setObjectName(name)
        panel.map.installEventFilter(watch)
    qtbot.wait(100)
    painted.clear()
    snap = win.model.snapshot
    uid = next(iter(cv.panels["MEMB3"].map.rects))
    old = win.model.state_of(uid)
    new_state = "eligible" if old != "eligible" else "dispatch"
    guests = tuple(dataclasses.replace(g, state=new_state) if g.userid == uid else g
                   for g in snap.guests)
    win.model.snapshot = dataclasses.replace(snap, guests=guests)  # a frame in which only
    win.cluster.refresh()  # this guest changed
    qtbot.waitUntil(lambda: bool(painted))
    qtbot.wait(50)
    tile = cv.panels["MEMB3"].map.rects[uid]
    assert {name for name, _ in painted} == {"MEMB3"}
    assert all(tile.adjusted(-2, -2, 2, 2).contains(r) for _, r in painted), painted
    assert cv.look(uid).state == new_state


def test_marks_of_moves_pauses_and_arriving_copies(qtbot):
    """The marks are seen: an arrow for a relocation, a pause sign for a paused guest, the
    share of pages sent along the bottom, the arriving copy dashed."""
    m = GuestMap(lambda key: key)
    qtbot.addWidget(m)
    m.resize(200, 60)
    placement = Placement({"A": (0, 0, 40), "B": (50, 0, 40), "C": (100, 0, 40),
                           "\u2192D": (150, 0, 40)}, [], 40)
    looks = {"A": TileLook("relocating", mark="move", progress=10),
             "B": TileLook("stopped", mark="pause"),
             "C": TileLook("dispatch"),
             "\u2192D": TileLook("incoming", progress=20)}
    m.set_tiles(placement, looks, {})
    img = m.grab().toImage()
    ink = contrast_text(STATE_COLOURS["relocating"])  # marks in black or white, as text is
    assert QColor(img.pixel(20, 19)) == ink  # the arrow, in the middle of the square
    assert QColor(img.pixel(35, 38)) != ink and QColor(img.pixel(5, 38)) == ink  # half sent
    ink = contrast_text(STATE_COLOURS["stopped"])
    assert QColor(img.pixel(50 + 13, 20)) == ink  # the pause sign's left bar
    assert QColor(img.pixel(50 + 20, 20)).name() == STATE_COLOURS["stopped"]  # between bars
    assert QColor(img.pixel(120, 20)).name() == STATE_COLOURS["dispatch"]  # no mark
    # a square of a picture painted on its own: the same drawing as in the map
    pm = QPixmap(40, 40)
    pm.fill(QColor("#000000"))
    p = QPainter(pm)
    paint_tile(p, QRect(0, 0, 40, 40), looks["\u2192D"], QColor("#ff0000"))
    p.end()
    arriving = QColor(pm.toImage().pixel(20, 20))
    assert arriving.blue() > arriving.red() + 40  # filled in the incoming blue


def _group_of_each_square(m: GuestMap) -> dict[str, str]:
    """The group header each square is drawn under (the last header above it)."""
    out = {}
    for uid, rect in m.rects.items():
        above = [(y, text) for y, text in m.headers if y < rect.top()]
        out[uid] = max(above)[1] if above else ""
    return out


def test_grouping_arranges_each_member_by_workload_or_state(make_window, qtbot):
    win = _shop_window(make_window, qtbot)
    cv, bar = win.cluster.compact, win.cluster.filter_bar
    assert bar.grouping.isEnabled()
    assert all(not p.map.headers for p in cv.panels.values())  # largest first: no headers
    bar.grouping.setCurrentIndex(bar.grouping.findData("workload"))
    assert cv.grouping == "workload"
    qtbot.waitUntil(lambda: all(p.map.headers for p in cv.panels.values()))
    for name, panel in cv.panels.items():
        m = panel.map
        here = [g for g in win.model.snapshot.guests if g.member == name]
        kinds = sorted({g.workload.split()[0].upper() for g in here})
        assert [text for _, text in m.headers] == kinds, name  # a header per type, in order
        groups = _group_of_each_square(m)
        for g in here:  # each guest under its own type's header
            assert groups[g.userid] == g.workload.split()[0].upper(), (name, g.userid)
        assert sorted(m.rects) == sorted(g.userid for g in here)  # still every guest
        assert m.clipped == 0 and m.placed_height <= m.height()
    # by state: the groups in the legend's order, each guest under its state
    bar.grouping.setCurrentIndex(bar.grouping.findData("state"))
    qtbot.waitUntil(lambda: cv.grouping == "state")
    labels = [STATE_LABELS[s] for s in STATE_ORDER]
    for name, panel in cv.panels.items():
        m = panel.map
        texts = [text for _, text in m.headers]
        assert texts == sorted(texts, key=labels.index), name
        groups = _group_of_each_square(m)
        for uid in m.rects:
            assert groups[uid] == STATE_LABELS[win.model.state_of(uid)], (name, uid)
    # and back: largest first, no headers, every guest still shown
    bar.grouping.setCurrentIndex(bar.grouping.findData("size"))
    assert all(not p.map.headers for p in cv.panels.values())
    assert sorted(cv.shown()) == sorted(win.model.userids())


def test_switching_scenarios_leaves_no_stale_guests(make_window, qtbot):
    """From the shop to the demo and back, in the compact view (asked for) and the detailed
    one: the view and the table show the guests of the scenario shown, and only those."""
    win = _shop_window(make_window, qtbot)
    cv, table = win.cluster.compact, win.table
    win.docks["guests"].raise_()
    qtbot.waitUntil(lambda: len(table.shown_userids()) == 1000)
    win.cluster.filter_bar.text.setText("memb")  # a filter every guest matches (by member)
    win.set_cluster_view("compact")
    demo = load_scenario(resolve_scenario("demo"))
    demo_ids = sorted(g.userid for g in demo.guests)
    win.start_scenario(demo)
    qtbot.waitUntil(lambda: sorted(win.model.userids()) == demo_ids, timeout=20_000)
    qtbot.waitUntil(lambda: sorted(cv.shown()) == demo_ids)
    assert win.cluster.is_compact()
    assert sorted(cv.panels) == sorted(m.name for m in demo.members)
    every_square = [k for p in cv.panels.values() for k in p.map.rects] + list(cv.off_map.rects)
    assert sorted(k.removeprefix("\u2192") for k in every_square) == demo_ids
    assert sorted(cv._looks) == demo_ids and sorted(cv._where) == demo_ids
    qtbot.waitUntil(lambda: sorted(table.shown_userids()) == demo_ids)
    assert table.source.rowCount() == len(demo_ids)
    # the demo's workload types in the filter box, not the shop's
    kinds = {str(win.cluster.filter_bar.workload.itemData(i))
             for i in range(1, win.cluster.filter_bar.workload.count())}
    assert kinds == {g.workload.split()[0] for g in win.model.snapshot.guests if g.workload}
    assert "RANDCHANGE" in kinds and "IDLE" not in kinds  # the shop has idle guests
    # detailed: a tile per demo guest, none of the shop's
    win.set_cluster_view("detailed")
    assert sorted(win.cluster.tiles) == demo_ids and not cv.panels
    assert sorted(t.userid for t in win.cluster.findChildren(GuestTile)
                  if not t.incoming and t.parent() is not None) == demo_ids
    # and back to the shop, automatic: the compact view, a thousand squares
    win.set_cluster_view("auto")
    win.start_scenario(load_scenario(resolve_scenario(SHOP)))
    qtbot.waitUntil(lambda: len(cv.shown()) == 1000, timeout=20_000)
    assert not win.cluster.tiles
    assert not [t for t in win.cluster.findChildren(GuestTile) if t.parent() is not None]
    qtbot.waitUntil(lambda: len(table.shown_userids()) == 1000)
    assert sorted(table.shown_userids()) == sorted(win.model.userids())


def test_logged_off_guests_have_their_strip_until_they_log_on(make_window, qtbot, run_to):
    """The compact view's strip of logged-off guests: each there once, gone (and not left
    behind) when they log on at 330 s."""
    win = make_window("scenarios/pause/pause-stop.toml")
    win.set_cluster_view("compact")
    cv = win.cluster.compact
    standby = ["STBY01", "STBY02", "STBY03", "STBY04"]
    qtbot.waitUntil(lambda: sorted(cv.off_map.rects) == standby)
    assert cv._off.isVisible() and all(cv.map_of(u) is cv.off_map for u in standby)
    assert sorted(cv.shown()) == sorted(win.model.userids())  # each guest once
    run_to(win, 331)
    qtbot.waitUntil(lambda: not cv.off_map.rects)
    assert not cv._off.isVisible()
    assert all(cv.map_of(u) is cv.panels[win.model.guest(u).member].map for u in standby)
    assert sorted(cv.shown()) == sorted(win.model.userids())
