"""The simulation: the clock, members, guests, paging, the scheduler, events and samples.

The caller drives the clock with ``step()`` or ``run_until(t)``; nothing here reads the wall
clock. Every change of the world comes through ``execute(command)`` (CP command text) or a
scenario's timeline, which is also just commands.
"""

from __future__ import annotations

import contextlib
import dataclasses
import heapq
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..basics.config import ScenarioConfig, TimelineEntry
from ..cp.grammar import Command, VmrelocateMove, parse_command
from ..kernels import pages as K
from ..lessons.objectives import LessonTracker
from ..migrations.lpm import LPMEngine
from ..migrations.models import Models
from ..migrations.pause import PauseEngine
from ..migrations.relocation import RelocationEngine
from ..migrations.storage_vmotion import StorageVMotionEngine
from ..views.move_view import MoveView
from ..views.samples import GuestSample, MemberSample, SampleFeed, Sampler
from ..world.paging import Pager, dasd_wait_s
from ..world.scheduler import CPU_BOUND, allocate_cpu, cpu_asked_s, schedule_states
from ..world.state import (
    DISPATCH,
    DORMANT,
    PLACEMENT,
    STOPPED,
    Guest,
    Member,
    MemberSnapshot,
    Snapshot,
)
from ..world.world import CPResponse, Event
from .commands import CommandProcessor
from .driver import WorkloadDriver


@dataclass(frozen=True)
class Ticket:
    """A command that waits for the console: a SYNC relocation holds it, and the command runs
    when that relocation ends. ``Simulation.answer(ticket)`` gives its response then."""

    seq: int
    command: str
    queued_s: float


#: the longest stretch a member short of frames runs its guests one after another before the
#: next guest's turn (``Simulation._step_member``): a way of computing, not a figure of the system
PAGING_ROUND_S = 1.0


class Simulation:
    """A z/VM SSI cluster and its guests, advanced in fixed steps of simulated time.

    Parameters
    ----------
    scenario : ScenarioConfig
        The cluster, guests and timeline.
    seed : int, optional
        Overrides the scenario's seed; same scenario and seed give identical results.
    """

    def __init__(self, scenario: ScenarioConfig, seed: int | None = None) -> None:
        self.scenario = scenario
        self.seed = int(scenario.seed if seed is None else seed)
        self.rng = np.random.default_rng(self.seed)
        self.step_s = float(scenario.step_s)
        #: a quiet member is stepped this many steps at a time (1: every step)
        self.quiet_steps = max(1, round(scenario.quiet_step_s / self.step_s)) \
            if scenario.quiet_step_s > 0 else 1
        self.sample_s = max(self.step_s, float(scenario.sample_s))
        self.steps = 0
        self.members: dict[str, Member] = {m.name.upper(): Member(m) for m in scenario.members}
        # quiet members take turns: one member's long step per step, not all in one step
        for i, name in enumerate(sorted(self.members)):
            self.members[name].quiet_phase = i * self.quiet_steps // len(self.members)
        self.guests: dict[str, Guest] = {}
        for g in scenario.guests:
            self.guests[g.userid.upper()] = Guest(g, self.seed)
        self.events: list[Event] = []
        self._event_seq = 0
        self._listeners: list[Callable[[Event], None]] = []
        self._queue: list[tuple[float, int, TimelineEntry]] = []
        self._queue_seq = 0
        self._tickets: dict[int, CPResponse | None] = {}
        #: relocations repeated back and forth: (last command, the member the guest left, no
        #: repeat after this time, scenario line)
        self._repeats: list[tuple[VmrelocateMove, str, float, int]] = []
        #: the moment the command being run runs (None: now), and when the engines' next step
        #: of work begins (``World``)
        self.command_at_s: float | None = None
        self.moves_from_s = 0.0
        #: called as the commands due are picked, within a step too (``_run_due_commands``):
        #: code that issues commands as the run goes (an evacuation plan) schedules them then
        self.feeders: list[Callable[[], None]] = []
        #: the last step in which the guests ran up to a command's moment (``_ran_at``), and
        #: the latest such moment (``moment_s``)
        self._ran_in_step = -1
        self._last_at = 0.0
        #: per member, the guests' CPU piece by piece of the step as last worked out
        #: (``_cpu_pieces``): ((step, the relocations' CPU in the step then, the last event,
        #: the placement of the guests), the pieces)
        self._pieces: dict[str, tuple[tuple[int, float, int, int],
                                      list[dict[str, float]] | None]] = {}
        for entry in scenario.timeline:
            self.schedule(entry)
        #: each member's guests by user ID, as of the placement count (``guests_on``)
        self._placed: tuple[int, dict[str, list[Guest]]] = (-1, {})
        self.command_log: list[tuple[float, str, int, int, tuple[str, ...]]] = []

        #: every model parameter of this run: the defaults, with the scenario's [model] values
        self.models = Models.from_table(scenario.model)
        for m in self.members.values():
            m.frames_per_seg = self.models.paging.frames_per_seg
            m.free_low, m.free_high = self.models.paging.free_marks(m.frames, 0.0)
            m.free_high_max = self.models.paging.free_marks(m.frames, math.inf)[1]
        self.cp = CommandProcessor(self)
        self.reloc = RelocationEngine(self, self.models.lgr, self.models.paging)
        self.pager = Pager(self, self.reloc.incoming_on, self.models.paging)
        self.driver = WorkloadDriver(self, self.pager, self.models.paging, self.models.vio)
        self.pause = PauseEngine(self, self.models.pause, self.models.paging,
                                 self.models.lgr.dat_scan_s_per_gb)
        # other vendors' migrations, for comparison (Storage vMotion, PowerVM LPM)
        self.svm = StorageVMotionEngine(self, self.models.svmotion)
        self.lpm = LPMEngine(self, self.models.lpm)
        #: the run's samples every ``sample_s``, and the per-step peaks and paging episodes
        self.sampler = Sampler(self, self.sample_s)
        #: the run's member and guest samples (typed records, in time and name order)
        self.samples_member: list[MemberSample] = self.sampler.members
        self.samples_guest: list[GuestSample] = self.sampler.guests
        #: the lesson's objectives, score and debrief (None: the scenario has no objectives)
        self.lesson: LessonTracker | None = LessonTracker(self) if scenario.objectives else None
        self.io_left: dict[str, list[float]] = {n: [0.0] for n in self.members}
        #: apply references to wholly resident regions lazily (same distribution, far faster)
        self.defer_touches = True
        #: hold back first touches on members with room (``WorkloadDriver._defer_random``: the
        #: walk's outcome in distribution, tests/scenarios/test_seed_spread.py)
        self.defer_first_touches = True
        for guest in self.guests.values():
            if guest.cfg.logged_on:
                self.log_on(guest, guest.home, announce=False)
        for m in self.members.values():
            m.marks_at = (0.0, m.taken)  # (the free-frame marks follow what is taken from here)
        self.sampler.take()

    # -- clock -------------------------------------------------------------------------------
    @property
    def t(self) -> float:
        """Simulated seconds since the scenario started."""
        return self.steps * self.step_s

    def now_s(self) -> float:
        """Now: the moment the command being run runs, or the step's time outside of
        commands."""
        return self.t if self.command_at_s is None else self.command_at_s

    def moment_s(self) -> float:
        """The latest moment the run has got to: the command being run's, or within a step the
        last command's (its start before any), or the step's time."""
        if self.command_at_s is not None:
            return self.command_at_s
        return max(self.t, self._last_at)

    def peek(self) -> float:
        """Simulated time of the next scheduled command, or ``inf`` when none is queued."""
        return self._queue[0][0] if self._queue else math.inf

    def step(self) -> None:
        """Advance the world by one step of ``step_s`` simulated seconds."""
        self._run_due_commands(self.t + 1e-9)
        dt = self.step_s
        for name, m in self.members.items():
            self.io_left[name] = [m.io_capacity_s * dt]
        self.pause.advance()
        # relocation is system work: it runs before the guests get the CPU
        self.reloc.advance(dt)
        self.svm.advance(dt)
        self.lpm.advance(dt)
        self.pause.advance_cleanups(dt, self.reloc.cpu_s)
        # the commands due within the step run at their moments in it, before the guests run
        # the rest of it
        self.moves_from_s = self.t + dt
        self._run_due_commands(self.t + dt - 1e-6)
        moving = self._anything_moving()
        for name in sorted(self.members):
            m = self.members[name]
            if not m.up:
                continue
            if not moving and self._may_lag(m):
                m.lag += 1  # quiet: stepped with the steps it skipped, at the next boundary
                continue
            self._step_lagged(m, m.lag + 1)
        self.steps += 1
        self.moves_from_s = self.t
        self.sampler.after_step()
        if self.lesson is not None:
            self.lesson.update()

    # -- quiet members: several steps at once ----------------------------------------------
    def _anything_moving(self) -> bool:
        """Anything under way whose timing a longer step would blur: a relocation, a Storage
        vMotion or LPM, a suspend, resume or logon, a cleanup, a lesson."""
        if self.quiet_steps <= 1 or self.lesson is not None:
            return True
        p = self.pause
        return bool(self.reloc.active or self.svm.active or self.lpm.active or p.active
                    or p.cleanups or p.logons)

    def _may_lag(self, m: Member) -> bool:
        """``m`` may skip this step: it is quiet (nothing in XSTOR or on DASD, room above its
        demand scan's mark for every working set, no guest stopped or starting) and the step
        does not end on a boundary (its own turn of every ``quiet_step_s``, a sample, a
        command due, the scenario's end)."""
        if (self.steps + 1 + m.quiet_phase) % self.quiet_steps == 0 or \
                self._ran_in_step == self.steps:
            return False  # (its turn, or its guests ran part of the step for a command)
        end = self.t + self.step_s + 1e-9
        if self.t < self.scenario.duration_s <= end or end >= self.sampler.next_due() \
                or end >= self.peek():
            return False  # the scenario's end (a run may go on beyond it), a sample, a command
        if not m.roomy or m.xstor_used or m.slots_used or m.free_frames < m.free_high_max:
            return False
        # the guests' part, as the member's last step left them: it stands while nothing
        # happened since (a command, a logon or anything else says so with an event)
        return m.guests_quiet == (self._event_seq, PLACEMENT[0]) or \
            self._guests_quiet(m) is not None

    def _guests_quiet(self, m: Member) -> tuple[int, int] | None:
        """Whether no guest of ``m`` keeps it from skipping steps (stopped, starting up, not
        running Linux, pages out): the key ``Member.guests_quiet`` keeps then, or None."""
        for g in self.guests_on(m.name):
            if g.stopped_by or g.workload.starting or g.linux != "running" or g.n_xst \
                    or g.n_dsd:
                m.guests_quiet = None
                return None
        m.guests_quiet = (self._event_seq, PLACEMENT[0])
        return m.guests_quiet

    def _step_lagged(self, m: Member, steps: int, fresh_io: bool = False) -> None:
        """Step ``m`` over ``steps`` steps at once (the ones it skipped, and this one unless
        ``fresh_io``: a catch-up before this step's paging I/O was handed out)."""
        m.lag = 0
        dt = self.step_s * steps
        step_io = self.io_left[m.name]
        if steps > 1 or fresh_io:
            # nothing else used this member's paging I/O: it skipped the steps it is given now
            self.io_left[m.name] = [m.io_capacity_s * dt]
        # (the step ends at the end of this step, or before it for a catch-up)
        self._step_member(m, dt, self.t + (0.0 if fresh_io else self.step_s))
        if fresh_io:
            self.io_left[m.name] = step_io  # (this step's, which the catch-up did not use)

    def _catch_up(self) -> None:
        """Step every member that skipped steps up to now (before a command changes it)."""
        for name in sorted(self.members):
            m = self.members[name]
            if m.lag:
                self._step_lagged(m, m.lag, fresh_io=True)

    def run_until(
        self,
        t_s: float,
        progress: Callable[[float, str], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> None:
        """Step until simulated time ``t_s``.

        Parameters
        ----------
        t_s : float
            Simulated time to reach (rounded up to a whole step).
        progress : callable, optional
            ``progress(fraction, message)``, called now and then.
        should_stop : callable, optional
            Polled between steps; returning True stops early.
        """
        start = self.t
        total = max(t_s - start, 1e-9)
        every = max(1, int(total / self.step_s / 200))
        n = 0
        while self.t < t_s - 1e-9:
            if should_stop is not None and should_stop():
                break
            if self.lesson is not None and self.lesson.ended:
                break  # the lesson is over: nothing more to see
            self.step()
            n += 1
            if progress is not None and n % every == 0:
                progress(min(1.0, (self.t - start) / total), f"t={self.t:.0f}s")
        self._run_due_commands(self.t + 1e-9)
        if progress is not None:
            progress(1.0, f"t={self.t:.0f}s")

    # -- commands ------------------------------------------------------------------------------
    def schedule(self, entry: TimelineEntry) -> int:
        """Queue a command for a simulated time (commands due at the same time keep their order).

        Returns the command's place in the queue (the ``seq`` of a ``Ticket``).
        """
        seq = self._queue_seq
        heapq.heappush(self._queue, (entry.at_s, seq, entry))
        self._queue_seq += 1
        return seq

    def submit(self, command: str | Command) -> CPResponse | Ticket:
        """Issue a command now, as the operator at the console does.

        Returns CP's response, or a ``Ticket`` when a SYNC relocation holds the console: the
        command then runs as soon as the relocation ends, and ``answer(ticket)`` gives its
        response from then on.
        """
        if not self.console_busy():
            return self.execute(command)
        text = command if isinstance(command, str) else str(command)
        seq = self.schedule(TimelineEntry(self.t, text))
        self._tickets[seq] = None
        return Ticket(seq, text, self.t)

    def answer(self, ticket: Ticket) -> CPResponse | None:
        """The response to a command that waited (None while it still waits)."""
        return self._tickets.get(ticket.seq)

    def console_busy(self) -> bool:
        """True while a SYNC relocation holds the operator's console (commands wait)."""
        return any(r.options.sync and r.issuer == "OPERATOR" for r in self.reloc.active)

    def _console_freed_s(self) -> float:
        """When the last SYNC relocation that held the operator's console ended."""
        return max((r.t_end for r in self.reloc.all if r.options.sync
                    and r.issuer == "OPERATOR" and r.t_end is not None), default=0.0)

    @contextlib.contextmanager
    def _ran_at(self, t: float) -> Iterator[None]:
        """While a command runs at moment ``t`` (``World.command_at_s``): within the step, after
        its relocation work, every guest has run up to it first."""
        self._catch_up()
        if t > self.t + 1e-9:
            self._ran_in_step = self.steps  # (so no member skips the rest of this step)
            self._last_at = max(self._last_at, t)
            for u in sorted(self.guests):
                g = self.guests[u]
                self.run_guest_until(g, t)
                if g.member is not None and g.stopped_by:
                    # stopped up to now: it does not run that time later (after a BEGIN)
                    g.ran_s = max(g.ran_s, t - self.t)
        self.command_at_s = t
        try:
            yield
        finally:
            self.command_at_s = None
        # a relocation it started within the step does the rest of the step before the guests,
        # beside those the commands due at the same moment start (after the last of them)
        if not self._more_due_at(t):
            self.reloc.advance_joined()

    def _more_due_at(self, t: float) -> bool:
        """Whether a command, or the next relocation of a guest going back and forth, is due
        at moment ``t`` too (then the relocations started at ``t`` go on after it)."""
        if self.console_busy():
            return False
        if self._queue and self._queue[0][0] <= t + 1e-9:
            return True
        rep = self._next_repeat()
        return rep is not None and rep[0] <= t + 1e-9

    def _run_due_commands(self, until: float) -> None:
        """Run the commands due by ``until``, each at its moment, the earliest first: when it
        was due or when the console a SYNC relocation held was freed (the later), and the next
        relocation of a guest going back and forth when the last one ended. Within a step (after
        its relocation work) a relocation a command starts does the rest of the step at once,
        so a chain of SYNC relocations, or of relocations back and forth, goes on within the
        step, the guests' changes after each start counted by it (begun at the next step with
        the time before it owed, a relocation shorter than a step lay in time the guest had
        already run: 25 SYNC relocations of 3.4 s each took 118.4 s at 5 s steps, 88.4 s at
        0.5 to 2 s, their passes after the first empty)."""
        phases_to = -math.inf  # (phases ended by then were moved on: not again in this call)
        while True:
            for feed in self.feeders:
                feed()
            due = self._queue[0][0] if self._queue and not self.console_busy() else math.inf
            # the next command, the next back-and-forth relocation, the next end of a timed
            # phase of a suspend, resume or logon (at the same moment, in that order)
            rep = self._next_repeat()
            nexts = [(max(due, self._console_freed_s()) if due < math.inf else math.inf, 0),
                     (rep[0] if rep is not None else math.inf, 1),
                     (phase if (phase := self.pause.next_moment()) > phases_to else math.inf,
                      2)]
            at, kind = min(nexts)
            if at > until:
                return
            with self._ran_at(max(at, self.t - self.step_s)):
                if kind == 2:
                    self.pause.advance(at)
                    phases_to = at
                    continue
                if kind == 1:
                    assert rep is not None
                    self._repeat_one(rep[1])
                    continue
                due, seq, entry = heapq.heappop(self._queue)
                if entry.repeat:
                    self._start_repeat(entry)
                    continue
                resp = self.execute(entry.command, line=entry.line)
            if seq in self._tickets:
                self._tickets[seq] = resp

    def _start_repeat(self, entry: TimelineEntry) -> None:
        """A relocation issued back and forth: now, and again each time the last one ends."""
        cmd = parse_command(entry.command)
        assert isinstance(cmd, VmrelocateMove)
        g = self.guests.get(cmd.userid.upper())
        home = g.member if g is not None else None
        resp = self.execute(cmd, line=entry.line)
        if resp.ok and home is not None:
            until = entry.until_s if entry.until_s is not None else math.inf
            self._repeats.append((cmd, home, until, entry.line))

    def _next_repeat(self) -> tuple[float, int] | None:
        """When the next relocation of a guest going back and forth is due (its last one ended,
        the console free), and its place among the repeats; None when none is. The repeats of
        a guest that logged off end."""
        self._repeats = [x for x in self._repeats if (g := self.guests.get(x[0].userid.upper()))
                         is not None and g.member is not None]
        if self.console_busy():
            return None
        best: tuple[float, int] | None = None
        for i, (cmd, _home, _until, _line) in enumerate(self._repeats):
            g = self.guests[cmd.userid.upper()]
            if self.reloc.of(g.userid) is not None:
                continue
            last = next((r for r in reversed(self.reloc.all) if r.guest is g), None)
            at = last.t_end if last is not None and last.t_end is not None else self.t
            at = max(at, self._console_freed_s())  # (it waited for the console too)
            if last is not None and last.t_end is not None and last.t_end <= last.t_start:
                at = max(at, self.moves_from_s)  # (one that ended as it began: not again now)
            if best is None or at < best[0]:
                best = (at, i)
        return best

    def _repeat_one(self, i: int) -> None:
        """Issue the next relocation of the ``i``-th back-and-forth guest, now: to the other
        member when the last one arrived, to the same one again when it was cancelled. Past its
        end time, or when CP refuses it, its repeats end."""
        cmd, home, until, line = self._repeats.pop(i)
        g = self.guests[cmd.userid.upper()]
        assert g.member is not None
        if self.command_at_s is not None and self.command_at_s > until + 1e-9:
            return
        to = home if g.member == cmd.dest.upper() else cmd.dest
        other = cmd.dest if to == home else home
        nxt = dataclasses.replace(cmd, dest=to)
        if self.execute(nxt, line=line).ok:
            self._repeats.insert(i, (nxt, other, until, line))
        else:
            self.emit("REPEAT_STOPPED", g.member, g.userid,
                      f"{g.userid}: relocations back and forth end: CP refused {nxt}")

    def execute(self, command: str | Command, issuer: str = "OPERATOR",
                line: int = 0) -> CPResponse:
        """Run one CP or simulator command now and return CP's answer.

        ``command`` is command text or a typed command (``parse_command``); a typed command is
        logged as its canonical text. A command that CP would refuse changes nothing and gets
        CP's error message. ``line`` is the scenario line the command came from (0: typed or
        issued by code).
        """
        self._catch_up()  # the command sees, and changes, every member as of now
        if not isinstance(command, str):
            typed: Command | None = command
            command = str(command)
        else:
            typed = None
        verb = self.lesson.forbidden(command) if self.lesson is not None and line == 0 else None
        if verb is not None:
            resp = CPResponse([f"HCPLES2003E {verb} is not available in this lesson: the "
                               "lesson is about what you do with the cluster as it is"], 1)
        else:
            resp = self.cp.execute(typed if typed is not None else command, issuer)
        self.command_log.append((self.now_s(), command, resp.rc, line, tuple(resp.lines)))
        self.emit("COMMAND", None, None, command, {"rc": resp.rc, "response": resp.lines,
                                                  "issuer": issuer})
        if self.lesson is not None and self.moves_from_s <= self.t:
            # (within a step, after its relocation work, the lesson looks at the world as the
            # step ends: the moves are there already, and a time before them would be wrong)
            self.lesson.update()
        return resp

    # -- events --------------------------------------------------------------------------------
    def subscribe(self, listener: Callable[[Event], None]) -> None:
        """Call ``listener(event)`` for every event from now on."""
        self._listeners.append(listener)

    def emit(self, kind: str, member: str | None, userid: str | None, message: str,
             data: dict[str, Any] | None = None, at: float | None = None) -> Event:
        """Record an event that happened at simulated time ``at``: by default now, or, while a
        command runs, its moment (``command_at_s``). An engine that keeps its own clock within
        a step gives that (a pass ends at 15.7 s, not at the step's 15 s)."""
        when = self.now_s() if at is None else at
        ev = Event(round(when, 6), self._event_seq, kind, member, userid, message, data or {})
        self._event_seq += 1
        self.events.append(ev)
        for fn in self._listeners:
            fn(ev)
        return ev

    # -- logon / logoff -----------------------------------------------------------------------
    def log_on(self, g: Guest, member: str, announce: bool = True) -> None:
        g.log_on(member)
        g.ran_s = max(0.0, self.now_s() - self.t)  # (logged on within a step: from then on)
        g.count_dat_on(self.members[member])
        g.class_since = self.t  # dormant from now
        if announce:
            self.emit("LOGON", member, g.userid, f"{g.userid} logged on at {member}")
            # Linux boots, then its workload touches its storage again (the pause engine
            # reports when it is active)
            self.pause.log_on(g)

    def log_off(self, g: Guest) -> None:
        r = self.reloc.of(g.userid)
        if r is not None:
            self.reloc.abort(r, f"Relocation of {g.userid} cancelled: the guest logged off",
                             "logged off", now=self.now_s())
        member = g.member
        if member is not None:
            g.flush_pending()
            # CP resets the storage in a cleanup; its frames come back as it goes
            inline = self.members[member].cfg.logoff_cleanup == "inline"
            c = self.pause.start_cleanup(g, inline)
        g.log_off()
        self.pause.logged_off(g)
        self.emit("LOGOFF", member, g.userid, f"{g.userid} logged off; its storage is being "
                  f"reset ({'the user ID stays taken until then' if inline else 'cleanup state'})",
                  {"cleanup_s": round(c.seconds_left, 3),
                   "detach_s": round(c.detach_until - c.t_start, 3)} if member else {})

    def replenish(self, m: Member, want: int, pool: list[float] | None = None,
                  most: float = math.inf) -> int:
        """CP's demand scan on ``m`` now, within what is left of the step's paging I/O (and of
        ``pool``, a part of it set aside for the work that asks, which it lowers), and at most
        ``most`` of it."""
        io = self.io_left[m.name]
        if pool is None and most == math.inf:
            return self.pager.steal(m, want, io)
        mine = [min(io[0], pool[0] if pool is not None else math.inf, most)]
        had = mine[0]
        got = self.pager.steal(m, want, mine)
        io[0] -= had - mine[0]
        if pool is not None:
            pool[0] -= had - mine[0]
        return got

    def guests_on(self, member: str) -> list[Guest]:
        """Logged-on guests of a member, by user ID (a new list: the caller may change it)."""
        if self._placed[0] != PLACEMENT[0]:
            on: dict[str, list[Guest]] = {n: [] for n in self.members}
            for u in sorted(self.guests):
                g = self.guests[u]
                if g.member is not None:
                    on.setdefault(g.member, []).append(g)
            self._placed = (PLACEMENT[0], on)
        return list(self._placed[1].get(member, ()))

    # -- one member, one step ------------------------------------------------------------------
    def _step_member(self, m: Member, dt: float, end: float) -> None:
        """Run ``m`` for the ``dt`` seconds up to ``end`` (a quiet member's long step, or one
        step)."""
        guests = self.guests_on(m.name)
        # room for every page its guests' workloads could touch: nothing will have to page
        # (and the DAT tables of the megabytes they could still touch)
        grow = more = 0
        for g in guests:
            ws = g.workload.working_set_pages()
            if ws > g.n_cen:
                grow += ws - g.n_cen
                more += max(0, ws - g.instantiated)
        need = m.used_frames + grow + int(math.ceil(more / 256 * m.frames_per_seg))
        m.roomy = need <= m.frames - m.free_high_max
        schedule_states(self, m, guests, self.models.scheduler.elapsed_slice_s)
        for g in guests:
            g.released_rate = None  # (its state says whether it runs from here)
        runnable = [g for g in guests if g.state in (DISPATCH, DORMANT)]
        for g in runnable:
            self.driver.prepare(g)
        # CP's own work comes first (relocation, storage resets after logoffs, and its paging
        # at the pace of the last step); CP's path for the guests' virtual I/O is part of each
        # guest's share
        alloc = allocate_cpu(m, runnable, dt, self.reloc.cpu_s.get(m.name, 0.0)
                             + min(m.cp_cpus, m.cfg.cpus) * dt, self.models.vio.cp_cpu_per_io_s)
        io_left = self.io_left[m.name]
        wait = self.dasd_wait_s(m)
        for g in guests:
            if g.state == STOPPED:
                self.driver.interrupts(m, g, dt, wait, io_left)
        # (the places the guests' page reads hold: only a member with slots in use has reads)
        paging = m.slots_used > 0
        reads_before = [g.counters.dasd_in for g in runnable] if paging else []
        if paging:
            for g in runnable:
                g.io_short = False
        # the guests run one after another here, but at the same time on the member: each
        # virtual CPU has its page I/O in the devices' queue beside the others', so each guest
        # may use of the step's paging I/O what its faulting virtual CPUs' part of what is left
        # comes to (what it leaves goes to those after it). On a member short of frames the
        # demand scan takes pages from guests as the others' walks need frames, and a guest's
        # references of the step are all made when its walk has run: a long step runs them in
        # rounds of at most ``PAGING_ROUND_S`` each (each with its part of the step's paging
        # I/O, the free frames refilled between them), so that a guest whose walk comes later
        # is not a whole long step behind in its references (lesson 9 at 4 s steps gave
        # TEST1's pages where it gives PROD1's at 1 s and shorter steps)
        rounds = 1 if m.roomy or dt <= PAGING_ROUND_S else math.ceil(dt / PAGING_ROUND_S - 1e-9)
        # CP's relocation work does not take the processors evenly through a step (a DAT scan
        # takes one while it runs, a set-up none): where the guests ask more than a piece of
        # the step leaves them, they run piece by piece, each piece's CPU shared out after
        # the relocations' work in it (shared out over the whole step, the guests changed as
        # many pages while the scans held the processors as before they began: ten guests
        # relocated at once from 2 processors sent 46,500 pages in their second passes at 1 s
        # steps against 33,300 at 0.1 s)
        pieces = self._cpu_pieces(m, runnable, dt)
        if pieces is not None:
            rounds = len(pieces)
        for n in range(rounds if runnable else 0):
            # (the order turns by one guest a round, and runs backwards every other turn of
            # the whole list: turning alone put a guest before one two places after it in 10
            # rounds of 12, and of alike guests the first by name came out ahead)
            k = (m.turns + n) % len(runnable)
            order = runnable[k:] + runnable[:k]
            if len(runnable) > 2 and (m.turns + n) // len(runnable) % 2:
                order.reverse()
            until = dt * (n + 1) / rounds
            pool = [io_left[0] / (rounds - n)]
            round_io = pool[0]
            # (by the virtual CPUs that can fault: those its threads use)
            vcpus_left = sum(g.faulters for g in order)
            got = alloc if pieces is None else pieces[n]
            span = dt if pieces is None else dt / rounds
            for g in order:
                rest = max(0.0, until - g.ran_s)
                share = got.get(g.userid, 0.0) * g.running_share
                faulters = g.faulters  # (its walk of this round sets them anew)
                if rest > 0:
                    part = [pool[0] * faulters / vcpus_left]
                    given = part[0]
                    cpu0 = g.cpu_s_total
                    self.driver.run(m, g, rest, share * rest / span, wait, part)
                    g.cpu_step_given += share * rest / span
                    g.cpu_step_used += g.cpu_s_total - cpu0
                    g.cpu_step_span += rest
                    pool[0] -= given - part[0]
                    g.ran_s += rest
                vcpus_left -= faulters
            io_left[0] -= round_io - pool[0]
            if n < rounds - 1 and m.free_frames < m.free_high:
                # and between rounds the demand scan refills the free frames with what the
                # round left of its paging I/O, as it does at the end of a step
                spare = [pool[0]]
                self.pager.steal(m, m.free_high - m.free_frames, spare)
                io_left[0] -= pool[0] - spare[0]
        # (each of its virtual CPUs that can fault holds a place: a thread holds one read)
        m.fault_places = sum(
            float(g.faulters) if g.io_short
            else min(float(g.faulters), (g.counters.dasd_in - r0) * wait / dt)
            for g, r0 in zip(runnable, reads_before)) if paging else 0.0
        for g in guests:
            g.units_step = g.units_acc / dt
            g.units_acc = 0.0
            g.ran_s = 0.0
            g.cpu_rate = alloc.get(g.userid, 0.0) / dt
            g.rate_for = g.workload
            g.running_share = 1.0
            given, g.cpu_step_given = g.cpu_step_given, 0.0
            used, g.cpu_step_used = g.cpu_step_used, 0.0
            # (a second's worth of what it used where the member ran it: a part of the step
            # run before, up to a command or a pass boundary, is not in these counts)
            span, g.cpu_step_span = g.cpu_step_span, 0.0
            g.cpu_need = used / span if span > 0.0 and 0.0 < given and used < CPU_BOUND * given \
                else None
        m.turns += 1
        self.pager.adjust_marks(m, end)
        if m.free_frames < m.free_high:
            # short of frames only from a moment in the step (a relocation's inbound pages):
            # the devices' time before it is gone, the refill writes within what is left (a
            # relocation short of frames 0.6 s before the end of a step of 5 s had the whole
            # step's writes then, and its pass 1 went 8 % faster)
            since = m.short_at if m.short_at is not None and m.short_at > self.t else None
            self.replenish(m, m.free_high - m.free_frames,
                           most=math.inf if since is None
                           else m.io_capacity_s * (end - since))
        m.short_at = None
        xft = self.models.paging.xstor_free_target
        if m.cfg.xstor_pages > 0 and m.xstor_free < m.cfg.xstor_pages * xft:
            target = int(m.cfg.xstor_pages * 2 * xft)
            self.pager.migrate(m, target - m.xstor_free, io_left)
        cap = m.io_capacity_s * dt
        m.io_util = 0.0 if cap <= 0 else 1.0 - io_left[0] / cap
        after = m.counters.as_tuple()
        # CP's own paging work since the member was last counted: the demand scan's steals and
        # writes and XSTOR migration, those a relocation had it do for it included (a page
        # fault's CPU is the faulting guest's own)
        moved = sum(a - b for a, b in zip(after[2:5], m.cp_counted[2:5]))
        m.cp_counted = after
        cpu_cap = m.cfg.cpus * dt
        paging_cpu_s = moved * self.models.paging.cp_cpu_per_page_s / m.cfg.cpu_speed
        m.cp_paging_cpus = paging_cpu_s / dt
        used = m.cpu_used_step + paging_cpu_s + self.reloc.cpu_s.get(m.name, 0.0) + \
            m.vio_cpu_step + m.cleanup_cpus * dt
        m.cpu_util = min(1.0, used / cpu_cap) if cpu_cap > 0 else 0.0
        m.cpu_used_step = 0.0
        m.vio_cpu_step = 0.0
        self.sampler.note_member(m)
        for g in guests:
            self.sampler.note_guest(m, g)
        if self.quiet_steps > 1:
            self._guests_quiet(m)

    def dasd_wait_s(self, m: Member) -> float:
        """How long a virtual CPU waits for a DASD page fault (a block read), queueing
        included."""
        return dasd_wait_s(m, self.models.paging.block_pages)

    def _pieces_now(self, m: Member) -> list[dict[str, float]] | None:
        """The guests' CPU on ``m`` piece by piece of the step from the relocations' work so
        far (``_cpu_pieces``), or None when the step's share holds."""
        bins = self.reloc.cpu_bins.get(m.name)
        if bins is None:
            return None
        # (worked out again when the relocations did more, or anything happened since: a
        # command that stopped a guest, set a share or logged one off changes the shares)
        key = (self.steps, float(bins.sum()), self._event_seq, PLACEMENT[0])
        had = self._pieces.get(m.name)
        if had is None or had[0] != key:
            runnable = [x for x in self.guests_on(m.name) if self._in_pieces(x)]
            had = self._pieces[m.name] = (key, self._cpu_pieces(m, runnable, self.step_s))
        return had[1]

    @staticmethod
    def _in_pieces(g: Guest) -> bool:
        """Whether ``g`` runs in the step's CPU pieces (``_pieces_now``): a guest stopped within
        the step, for a relocation's last passes, does not; one stopped as the step began and
        released since does, from its release."""
        return not g.stopped_by and (g.state in (DISPATCH, DORMANT)
                                     or g.released_rate is not None)

    def _cpu_pieces(self, m: Member, runnable: list[Guest], dt: float
                    ) -> list[dict[str, float]] | None:
        """The guests' CPU for each piece of the step the relocations' work on ``m`` is
        counted in (``RelocationEngine.cpu_bins``), when in some piece they ask more than the
        processors have left; None when they do not (the step's share holds)."""
        bins = self.reloc.cpu_bins.get(m.name)
        if bins is None or not runnable:
            return None
        span = dt / len(bins)
        vio = self.models.vio.cp_cpu_per_io_s
        # CP's other work (paging, storage resets) takes its part of what the relocations
        # leave, piece by piece (a reset beside a relocation on one processor took all the rest
        # of it: the guests got none in any piece)
        free = np.maximum(m.cfg.cpus * span - bins, 0.0)
        cp = min(m.cp_cpus, m.cfg.cpus) * dt * free / max(float(free.sum()), 1e-12)
        asked = sum(cpu_asked_s(g, span, vio, m.cfg.cpu_speed) for g in runnable)
        if asked <= float((m.cfg.cpus * span - cp - bins).min()):
            return None
        return [allocate_cpu(m, runnable, span, float(b + c), vio) for b, c in zip(bins, cp)]

    def run_guest_until(self, g: Guest, t: float) -> None:
        """Run a guest's workload from where it stands in the current step up to time ``t``.

        A relocation calls this when a pass ends inside a step, so that the pages changed
        before the pass boundary belong to that pass and those after to the next; a command due
        within the step, so that it finds every guest where it stands then. A guest stopped
        as its member's step began and running again since (``Guest.release``) runs at the
        pace it ran at before, or piece by piece as the others where the relocations' work
        holds the processors.
        """
        if g.member is None or g.stopped_by:
            return
        m = self.members[g.member]
        if g.state in (DISPATCH, DORMANT):
            rate = g.cpu_rate
        elif g.released_rate is not None:  # stopped as the member's step began, running now
            rate = g.released_rate
        else:
            return
        if g.rate_for is not g.workload:
            # a workload its member has not shared out the CPU for (a logon, a phase of a
            # suspend or resume begun within the step): what it asks, up to the processors
            rate = min(cpu_asked_s(g, 1.0, self.models.vio.cp_cpu_per_io_s, m.cfg.cpu_speed),
                       float(m.cfg.cpus))
        part = t - (self.t + g.ran_s)
        if part <= 1e-9:
            return
        # (a guest released within the step too: at the rate it ran at before it stopped, it
        # ran through the relocations' scans that held the processors, and a command later in
        # a step of 5 s found it 0.8 CPU seconds further on than at steps of 0.1 s)
        pieces = self._pieces_now(m) if self._in_pieces(g) and g.rate_for is g.workload \
            else None
        if pieces is None:
            self.driver.run(m, g, part, rate * part, self.dasd_wait_s(m), self.io_left[m.name])
            g.ran_s += part
            return
        # (up to a relocation's pass boundary within the step's relocation work: piece by
        # piece, the guest's part of the processors the relocations left in each so far)
        span = self.step_s / len(pieces)
        end = t - self.t
        while end - g.ran_s > 1e-9:
            i = min(len(pieces) - 1, int(g.ran_s / span + 1e-9))
            over = min(end, (i + 1) * span) - g.ran_s
            if over <= 1e-12:
                over = min(end - g.ran_s, span)
            cpu = pieces[i].get(g.userid, 0.0) * g.running_share * over / span
            self.driver.run(m, g, over, cpu, self.dasd_wait_s(m), self.io_left[m.name])
            g.ran_s += over

    # -- samples and snapshots -----------------------------------------------------------------
    def sample_feed(self, every_s: float | None = None) -> SampleFeed:
        """Samples for a viewer every ``every_s`` simulated seconds (None: after every step).

        The feed's records are made as the run's own samples are (``samples_member``,
        ``samples_guest``), with rates over the feed's own interval; its first sample is of
        now. Taking them changes nothing in the run. ``SampleFeed.take_new`` hands over the
        samples taken since the last call. While quiet members skip steps, a sample comes at
        most every ``quiet_step_s``, each member as of its last step (``Sampler.after_step``).
        """
        return self.sampler.feed(self.step_s if every_s is None else max(self.step_s, every_s))

    def snapshot(self) -> Snapshot:
        """An immutable picture of the whole world now (copies, never live arrays).

        A quiet member that skips steps (``quiet_steps``) is shown as of its last step: at
        most ``quiet_step_s`` behind, and caught up before any command sees it.
        """
        members = tuple(
            MemberSnapshot(m.name, m.frames, m.used_frames, m.cfg.xstor_pages, m.xstor_used,
                           m.cfg.slots, m.slots_used, round(m.cpu_util * 100, 3),
                           round(m.io_util * 100, 3), m.counters.as_tuple())
            for m in (self.members[n] for n in sorted(self.members))
        )
        guests = tuple(self.guests[u].snapshot() for u in sorted(self.guests))
        view: MoveView | None = getattr(self, "_move_view", None)
        if view is None:  # made at the first snapshot: a run nobody looks at never needs it
            view = self._move_view = MoveView(self)
        return Snapshot(round(self.t, 6), members, guests, len(self.events),
                        tuple(self.reloc.snapshot(r) for r in self.reloc.all),
                        lesson=self.lesson.snapshot() if self.lesson is not None else None,
                        migrations=view.migrations(), pauses=view.pauses())

    # -- checks ----------------------------------------------------------------------------------
    def verify(self) -> list[str]:
        """Check every invariant against the bit-planes; the broken ones (empty: all hold)."""
        problems: list[str] = []
        counts = np.zeros(K.NPLANES, dtype=np.int64)
        per_member: dict[str, list[int]] = {n: [0, 0, 0] for n in self.members}
        dat: dict[str, int] = {n: 0 for n in self.members}
        incoming = [r.incoming for r in self.reloc.active if r.incoming is not None]
        for g in list(self.guests.values()) + incoming:
            if g.planes is None:
                continue
            bad = K.check_planes(g.planes, g.npages)
            if bad >= 0:
                problems.append(f"{g.userid}: page state invariant broken in word {bad}")
            K.count_planes(g.planes, counts)
            # first touches held back are counted but not yet placed
            counts[K.CEN] += sum(int(e[2]) for e in g.pending.values())
            for name, have, want in (("central", counts[K.CEN], g.n_cen),
                                     ("xstor", counts[K.XST], g.n_xst),
                                     ("dasd", counts[K.DSD], g.n_dsd),
                                     ("slots", counts[K.SLOT], g.n_slot)):
                if int(have) != want:
                    problems.append(f"{g.userid}: {name} pages {int(have)} but counted {want}")
            segs = K.count_segments(g.planes)
            if segs != g.n_seg or int(g.seg_map.sum()) != g.n_seg:
                problems.append(f"{g.userid}: {segs} megabytes hold pages but {g.n_seg} page "
                                f"management blocks are counted")
            assert g.member is not None
            if g.dat_on is None or g.dat_on is not self.members[g.member]:
                problems.append(f"{g.userid}: its DAT tables are not counted on {g.member}")
            else:
                dat[g.member] += g.n_seg + g.seg_guess
            pm = per_member[g.member]
            pm[0] += g.n_cen
            pm[1] += g.n_xst
            pm[2] += g.n_slot
        for c in self.pause.cleanups:
            if c.t_end is None:
                pm = per_member[c.member]
                pm[0] += int(math.floor(c.central + 1e-9))
                pm[1] += int(math.floor(c.xstor + 1e-9))
                pm[2] += int(math.floor(c.slots + 1e-9))
                dat[c.member] += int(math.floor(c.dat_segs + 1e-9))
        staging = {n: 0 for n in self.members}
        for rel in self.reloc.all:
            staging[rel.source] += rel.stage_pool
        reserved = {n: 0 for n in self.members}
        for mv in self.lpm.all:
            reserved[mv.dest] += mv.reserved
        for name, m in self.members.items():
            if staging[name] != m.stage_frames:
                problems.append(f"{name}: {m.stage_frames} staging frames counted but its "
                                f"relocations hold {staging[name]}")
            if reserved[name] != m.lpm_frames:
                problems.append(f"{name}: {m.lpm_frames} frames reserved for partitions but "
                                f"their migrations hold {reserved[name]}")
            if dat[name] != m.dat_segs:
                problems.append(f"{name}: {m.dat_segs} megabytes of DAT tables counted but the "
                                f"guests hold {dat[name]}")
            r, x, s = per_member[name]
            if (r, x, s) != (m.resident, m.xstor_used, m.slots_used):
                problems.append(f"{name}: member totals {(m.resident, m.xstor_used, m.slots_used)}"
                                f" but guests hold {(r, x, s)}")
            if not (0 <= m.resident <= m.frames):
                problems.append(f"{name}: {m.resident} frames used of {m.frames}")
            if not (0 <= m.xstor_used <= m.cfg.xstor_pages):
                problems.append(f"{name}: {m.xstor_used} XSTOR blocks used of {m.cfg.xstor_pages}")
            if not (0 <= m.slots_used <= m.cfg.slots):
                problems.append(f"{name}: {m.slots_used} slots used of {m.cfg.slots}")
        return problems
