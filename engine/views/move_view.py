"""Immutable pictures of the other migrations (LPM, Storage vMotion) and of pausing guests.

Built for ``Simulation.snapshot()``; reading the engines' state only, never changing it, so a
run gives the same numbers whether or not anybody looks.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..kernels import moves as M
from ..migrations.lpm import LPMove, msp_pages_per_s
from ..migrations.migration import Migration
from ..migrations.pause import Pause
from ..migrations.storage_vmotion import VMotion, block_s
from ..world.state import MigrationSnapshot, MovePassSnapshot, PauseSnapshot
from .cluster import Cluster


@dataclass
class _Stop:
    """A CP STOP seen in the events, until the guest answers requests again after BEGIN."""

    userid: str
    member: str | None
    start_s: float
    begin_s: float | None = None
    serving_s: float = 0.0
    end_s: float | None = None
    phase: str = "stopped"


class MoveView:
    """Builds ``MigrationSnapshot`` and ``PauseSnapshot`` records of a simulation.

    Keeps only what the engines do not: the size of a pass when it was first seen (counted
    once from its pending bitmap, not at every snapshot), and CP STOP/BEGIN times from the
    events (CP keeps no record of when a guest was stopped).
    """

    def __init__(self, sim: Cluster) -> None:
        self.sim = sim
        self._planned: dict[tuple[int, int], int] = {}
        self._seen = 0
        self._stops: list[_Stop] = []
        self._logoffs: dict[str, list[float]] = {}

    # -- LPM and Storage vMotion -------------------------------------------------------------
    def migrations(self) -> tuple[MigrationSnapshot, ...]:
        """Every LPM and Storage vMotion of the run so far, oldest first."""
        moves: list[Migration] = [*self.sim.lpm.all, *self.sim.svm.all]
        moves.sort(key=lambda mv: mv.t_start)
        return tuple(self._migration(mv) for mv in moves)

    @staticmethod
    def _total(mv: Migration) -> int:
        if isinstance(mv, LPMove):
            return mv.npages
        if isinstance(mv, VMotion):
            return mv.nblocks
        return 0

    def _rate(self, mv: Migration) -> float:
        """Units per second the copy can move now (idle volumes; one migration per MSP)."""
        if not mv.active:
            return 0.0
        if isinstance(mv, LPMove):
            ratio = self.sim.lpm._ratio(mv, len(mv.passes) <= 1) if mv.compress else 1.0
            return mv.msps * msp_pages_per_s(mv.threads, mv.link_gbps, ratio, self.sim.lpm.model)
        stores = self.sim.svm.datastores
        src, dst = stores.get(mv.source), stores.get(mv.dest)
        if src is None or dst is None:
            return 0.0
        svm = self.sim.svm.model
        return 1.0 / max(block_s(src, svm), block_s(dst, svm))

    def _pass_size(self, mv: Migration) -> int:
        """What the current pass has to copy in all (its copied units plus those pending)."""
        if not mv.passes:
            return 0
        p = mv.passes[-1]
        if p.number == 1:
            return max(self._total(mv), p.units)  # the first pass copies everything
        key = (id(mv), p.number)
        size = self._planned.get(key)
        if size is None:
            if not isinstance(mv, LPMove | VMotion) or mv.pending is None or p.end_s:
                return p.units
            end = mv.end_word if isinstance(mv, LPMove) else len(mv.pending)
            # counted once per pass: a partition of 64 TB has 2 GiB of bitmap
            size = p.units + int(M.count_bits(mv.pending, mv.cursor, end))
            self._planned[key] = size
        return max(size, p.units)

    def _migration(self, mv: Migration) -> MigrationSnapshot:
        now = self.sim.t
        passes = tuple(MovePassSnapshot(p.number, p.kind, p.units, round(p.start_s, 6),
                                        round(p.end_s, 6)) for p in mv.passes)
        size = self._pass_size(mv)
        running = mv.active and bool(mv.passes) and not mv.passes[-1].end_s
        left = max(0, size - mv.passes[-1].units) if running else 0
        down = mv.quiesced_until(now)
        unit_bytes = 4096 if mv.unit == "pages" else self.sim.svm.model.block_bytes
        return MigrationSnapshot(
            "LPM" if mv.kind == "lpm" else "VMOTION", mv.guest.userid, mv.source, mv.dest,
            mv.options, mv.state, mv.result, mv.message, round(mv.t_start, 6),
            None if mv.t_end is None else round(mv.t_end, 6), mv.unit, unit_bytes,
            self._total(mv), mv.units_moved, size, left, passes,
            round(max(0.0, mv.setup_left_s), 6) if mv.active else 0.0,
            round(self._rate(mv), 3), mv.t_quiesce, round(max(down, 0.0), 6))

    # -- pausing -------------------------------------------------------------------------------
    def pauses(self) -> tuple[PauseSnapshot, ...]:
        """Every Linux suspend and resume and every CP STOP of the run so far, oldest first."""
        self._read_events()
        out = [self._pause(p) for p in self.sim.pause.pauses]
        out += [self._stop(s) for s in self._stops]
        out.sort(key=lambda p: p.start_s)
        return tuple(out)

    def _read_events(self) -> None:
        events = self.sim.events
        for e in events[self._seen:]:
            if e.kind == "STOPPED" and e.userid:
                self._stops.append(_Stop(e.userid, e.member, e.t_s))
            elif e.kind in ("BEGIN", "LOGOFF") and e.userid:
                if e.kind == "LOGOFF":
                    self._logoffs.setdefault(e.userid, []).append(e.t_s)
                s = next((s for s in reversed(self._stops)
                          if s.userid == e.userid and s.begin_s is None and s.end_s is None),
                         None)
                if s is None:
                    continue
                if e.kind == "BEGIN":
                    s.begin_s = e.t_s
                    s.serving_s = float(e.data.get("serving_s", 0.0))
                else:
                    s.end_s = e.t_s
                    s.phase = "logged off"
        self._seen = len(events)

    def _stop(self, s: _Stop) -> PauseSnapshot:
        now = self.sim.t
        g = self.sim.guests.get(s.userid)
        scheduled = g.scheduled if g is not None else 0
        if s.end_s is not None:
            return PauseSnapshot(s.userid, s.member, "stop", s.phase, s.start_s, s.end_s, 1.0,
                                 0, 0, s.begin_s, scheduled)
        if s.begin_s is None:
            return PauseSnapshot(s.userid, s.member, "stop", "stopped", s.start_s, None, 0.0,
                                 0, 0, None, scheduled)
        ready = s.begin_s + s.serving_s
        if now + 1e-9 < ready:
            done = (now - s.begin_s) / s.serving_s if s.serving_s > 0 else 1.0
            return PauseSnapshot(s.userid, s.member, "stop", "waking", s.start_s, None,
                                 min(1.0, max(0.0, done)), 0, 0, s.begin_s, scheduled)
        return PauseSnapshot(s.userid, s.member, "stop", "serving", s.start_s,
                             round(ready, 6), 1.0, 0, 0, s.begin_s, scheduled)

    def _pause(self, p: Pause) -> PauseSnapshot:
        now = self.sim.t
        g = self.sim.guests.get(p.userid)
        member = g.member if g is not None else None
        image = p.image_pages
        phase = p.phase
        end = p.t_end
        done_pages = 0
        progress = 1.0
        pm = self.sim.pause.model
        if phase in ("prepare", "reclaim", "boot", "restart"):
            length = p.phase_s
            progress = 1.0 - (p.t_phase_end - now) / length if length > 0 else 1.0
            done_pages = image if phase == "restart" else 0
        elif phase in ("write", "read"):
            units = g.units_total if g is not None else p.target_units
            done_pages = int(image - max(0.0, p.target_units - units))
            progress = done_pages / image if image else 1.0
        elif phase == "serving" and end is not None and now + 1e-9 < end:
            # resumed: the first request is being answered
            phase = "first request"
            progress = 1.0 - (end - now) / pm.request_s if pm.request_s > 0 else 1.0
            done_pages = image
            end = None
        elif phase == "logged off":
            # the guest logged off before the suspend or resume ended: it ended there
            end = next((t for t in self._logoffs.get(p.userid, []) if t >= p.t_start - 1e-9),
                       p.t_start)
        else:
            done_pages = image if phase in ("halted", "serving") else 0
        return PauseSnapshot(p.userid, member, p.action, phase, round(p.t_start, 6),
                             None if end is None else round(end, 6),
                             round(min(1.0, max(0.0, progress)), 6), image,
                             max(0, min(image, done_pages)))
