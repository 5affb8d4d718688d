"""The simulation worker: the only thread that touches the ``Simulation``.

It advances the simulated clock at the chosen pace, issues the window's typed commands between
steps with ``Simulation.submit`` (a command issued while a SYNC relocation holds the console gets
a ``Ticket`` and runs when the relocation ends, exactly as in a headless replay; its answer is
``Simulation.answer(ticket)`` then), and publishes immutable frames to a ``Mailbox`` that the
window reads on its redraw timer. The plots' samples are the engine's own: a sample feed
(``Simulation.sample_feed``) takes one after every step. Rare happenings (compiling done,
paused at a target, a failure) are Qt signals.
"""

from __future__ import annotations

import os
import queue
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QThread, Signal

from ssisim.engine import (
    Command,
    CPResponse,
    Event,
    SampleFeed,
    ScenarioConfig,
    Simulation,
    Snapshot,
    Ticket,
    warmup_kernels,
)

from .frames import ConsoleItem, copy_event
from .mailbox import Mailbox
from .pacing import Pacer, Watch, Watcher, moves_under_way

#: Longest stretch of stepping between two looks at the command queue and two publications
#: (wall seconds): bounds how long a drop waits before its command runs.
CHUNK_WALL_S = 0.012
#: Pause after each chunk while running flat out (wall seconds), so the window gets the GIL.
YIELD_WALL_S = 0.002
#: Longest wait for the window to finish a redraw before stepping on regardless (wall seconds).
GUI_WAIT_S = 0.05
#: A step longer than this (CPU seconds) holds a redraw up if it runs during it: a paint calls
#: into Python many times, and each call waits for the GIL the stepping worker holds. After
#: such a step the worker publishes and waits until the window has painted the frame
#: (``gui_idle``) before the next one; shorter steps are stepped in chunks of ``CHUNK_WALL_S``
#: between redraws (and wait for a redraw the window began, both its apply and its paint).
#: The 1,000-guest shop's steps take 2 to 15 ms (a quiet member's ten seconds for its 250
#: guests): at 5 ms, most of them waited for a redraw the window makes at most every
#: ``REDRAW_MS``, idle, and the clock ran at 100 to 170 simulated seconds a second instead of
#: 200 to 250 (longest pause and drop to screen within their targets either way).
LONG_STEP_CPU_S = 0.015


#: How much nicer than the window the simulation thread is (Linux nice steps): when the
#: machine is busy the window gets the CPU first; alone, the simulation runs at full speed.
NICE_STEPS = 5


def _lower_thread_priority() -> None:
    """Make the calling thread yield the CPU to the window's thread under contention."""
    if hasattr(os, "setpriority") and hasattr(threading, "get_native_id"):
        try:  # on Linux a thread is a task of its own: this renices only this thread
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + NICE_STEPS)
        except OSError:
            pass  # not allowed here: run at the same priority


@dataclass(frozen=True)
class _Msg:
    kind: str
    payload: Any = None


@dataclass
class _Request:
    """A command the window issued; ``ticket`` while it waits for the console."""

    request_id: int
    command: Command
    t_s: float
    ticket: Ticket | None = None


class SimWorker(QThread):
    """Runs one simulation at a time in its own thread.

    Parameters
    ----------
    scenario : ScenarioConfig
        The scenario to simulate.
    mailbox : Mailbox
        Where frames are published for the window.
    """

    #: Kernel compilation (or loading from the cache) started.
    warmup_started = Signal()
    #: Kernel compilation finished after this many wall seconds.
    warmup_finished = Signal(float)
    #: The clock stopped by itself at this simulated time; the reason is ``target`` (a time
    #: asked for with ``run_to``), ``end`` (the scenario's duration) or ``lesson`` (the
    #: lesson has ended: the clock stays stopped, as ``Simulation.run_until`` does headless).
    paused = Signal(float, str)
    #: The simulation raised; the text is the traceback. The clock is paused.
    failed = Signal(str)
    #: A frame was published and the worker waits for it to be painted (after a long step, or
    #: with a command's answer: a drop shows its relocation at once): the window redraws now
    #: rather than on its next tick (True: a command's answer, drawn even before the usual
    #: spacing of redraws has passed).
    published = Signal(bool)

    def __init__(self, scenario: ScenarioConfig, mailbox: Mailbox) -> None:
        super().__init__()
        self.mailbox = mailbox
        self._scenario = scenario
        self._inbox: queue.Queue[_Msg] = queue.Queue()
        self._next_id = 0
        #: The simulation the window asked for last (main thread): frames of an older one are
        #: stale once it is asked (``SessionModel.expect``).
        self.requested_generation = 1
        self.pause_at_end = True
        #: Watch mode (a preference): slow the clock while a guest moves (``pacing.Watcher``).
        self.watch_moves = True
        # everything below belongs to the worker thread once it runs
        self._sim: Simulation | None = None
        self._generation = 0
        self._running = False
        self._pacer = Pacer(1.0)
        self._user_factor: float | None = 1.0  # the speed the user chose
        self._watcher = Watcher()
        self._watch: Watch | None = None
        self._stop_at: float | None = None
        self._end_reported = False
        self._lesson_end_reported = False
        #: the engine's samples for the plots, one after every step (``Simulation.sample_feed``)
        self._feed: SampleFeed | None = None
        self._events: list[Event] = []
        self._console: list[ConsoleItem] = []
        self._seen_events = 0
        self._seen_commands = 0
        #: Requests whose command waits for the console (a SYNC relocation holds it).
        self._waiting: deque[_Request] = deque()
        #: Answers to requests by the number of their command's COMMAND event (``_answered``).
        self._answers: dict[int, tuple[_Request, CPResponse]] = {}
        #: The number of the latest COMMAND event the simulation emitted.
        self._last_command_seq: int | None = None
        self._snapshot: Snapshot | None = None
        #: The last step took longer than ``LONG_STEP_CPU_S`` (the window reads it too:
        #: then it holds the worker until a frame is painted, not only applied).
        self.long_steps = False
        #: What watch mode last decided from (``_update_watch``): how many events there were
        #: and the user's speed; None: decide again.
        self._watch_key: tuple | None = None
        self._dirty = False
        #: Cleared by the window while it applies a frame and paints it. A redraw calls into
        #: Python many times (paint callbacks), each needing the GIL, which a stepping worker
        #: holds: the worker waits between steps while this is clear, so a redraw is never
        #: slowed to a crawl (tests/perf/gui_bench.py measures the effect).
        self.gui_idle = threading.Event()
        self.gui_idle.set()

    # -- called from the main thread -----------------------------------------------------------
    def submit(self, command: Command) -> int:
        """Issue a typed command at the current simulated time; returns its request id."""
        if not isinstance(command, Command):
            raise TypeError(f"the worker takes typed commands (parse_command), not "
                            f"{type(command).__name__}")
        self._next_id += 1
        self._inbox.put(_Msg("command", (self._next_id, command)))
        return self._next_id

    def run_clock(self) -> None:
        """Start (or continue) the clock at the chosen speed."""
        self._inbox.put(_Msg("run"))

    def pause_clock(self) -> None:
        """Stop the clock after the current step."""
        self._inbox.put(_Msg("pause"))

    def step_clock(self) -> None:
        """Advance one step and pause."""
        self._inbox.put(_Msg("step"))

    def set_speed(self, factor: float | None) -> None:
        """Simulated seconds per wall second; None for as fast as the machine allows."""
        self._inbox.put(_Msg("speed", factor))

    def run_to(self, t_s: float) -> None:
        """Run until simulated time ``t_s``, then pause and emit ``paused``."""
        self._inbox.put(_Msg("run_to", float(t_s)))

    def reset(self, scenario: ScenarioConfig | None = None) -> int:
        """Start the simulation afresh, of the same scenario or of another one (paused).

        Returns the generation the new simulation's frames will carry: every frame of an
        older generation that is still on its way is stale from now on.
        """
        self.requested_generation += 1
        self._inbox.put(_Msg("reset", (scenario, self.requested_generation)))
        return self.requested_generation

    def call(self, fn: Callable[[Simulation], Any]) -> Future:
        """Run ``fn(sim)`` on the worker thread between steps; its result arrives in the future.

        For short questions (a session recording, a summary): the clock does not advance
        while ``fn`` runs.
        """
        fut: Future = Future()
        self._inbox.put(_Msg("call", (fn, fut)))
        return fut

    def stop(self, timeout_ms: int = 10_000) -> None:
        """End the thread and wait for it."""
        self._inbox.put(_Msg("stop"))
        if self.isRunning():
            self.wait(timeout_ms)
        # questions nobody will answer now: whoever waits on them hears so at once
        while True:
            try:
                msg = self._inbox.get_nowait()
            except queue.Empty:
                break
            if msg.kind == "call":
                msg.payload[1].cancel()

    # -- the thread ----------------------------------------------------------------------------
    def run(self) -> None:
        """The thread: compile the kernels, build the simulation, then serve and step."""
        _lower_thread_priority()
        try:
            self.warmup_started.emit()
            t0 = time.perf_counter()
            warmup_kernels()
            self.warmup_finished.emit(time.perf_counter() - t0)
            self._new_sim(self._scenario, 1)
            while True:
                if not self._handle_messages(self._idle_wait()):
                    return
                if self._dirty and self._running:
                    # what a command did is shown before the next step: with a thousand
                    # guests a step takes a tenth of a second, which a drop would wait for
                    self._publish()
                if self._running:
                    self._advance()
                    if self._pacer.factor is None and self._running:
                        time.sleep(YIELD_WALL_S)
                    if not self._inbox.empty():
                        continue  # the commands first: one frame shows the step and them
                if self._dirty:
                    self._publish()
        except Exception:  # noqa: BLE001 (the window shows it; the thread ends cleanly)
            self.failed.emit(traceback.format_exc())

    def _idle_wait(self) -> float | None:
        """How long to block for a message: not at all while there are steps to take."""
        if not self._running or self._sim is None:
            return 0.25
        wait = self._pacer.wait_s(self._sim.t, self._sim.step_s)
        return min(wait, 0.05) if wait > 0 else 0.0

    def _handle_messages(self, block_s: float | None) -> bool:
        """Apply the messages waiting (blocking up to ``block_s`` for the first); False: stop."""
        try:
            msg = self._inbox.get(timeout=block_s) if block_s else self._inbox.get_nowait()
        except queue.Empty:
            return True
        while True:
            if not self._apply(msg):
                return False
            try:
                msg = self._inbox.get_nowait()
            except queue.Empty:
                return True

    def _apply(self, msg: _Msg) -> bool:
        sim = self._sim
        assert sim is not None
        if msg.kind == "stop":
            return False
        if msg.kind == "command":
            rid, command = msg.payload
            self._command(rid, command)
            self._check_lesson_end()
        elif msg.kind in ("run", "step", "run_to") and self._lesson_over():
            # the lesson is over: its clock stays where the lesson ended (Reset starts again)
            self._running = False
            self._stop_at = None
            self._dirty = True
            self.paused.emit(sim.t, "lesson")
        elif msg.kind == "run":
            self._running = True
            self._pacer.restart(sim.t)
            self._update_watch()
        elif msg.kind == "pause":
            self._running = False
            self._stop_at = None
        elif msg.kind == "step":
            self._running = False
            self._stop_at = None
            self._step()
            self._run_due()
            self._check_lesson_end()
        elif msg.kind == "speed":
            # the user's choice holds: the moves under way are no longer watched
            self._user_factor = msg.payload
            self._watcher.dismiss()
            self._watch = None
            self._watch_key = None
            self._pacer.set_factor(msg.payload, sim.t)
        elif msg.kind == "run_to":
            self._stop_at = msg.payload
            self._running = sim.t < msg.payload - 1e-9
            self._pacer.restart(sim.t)
            self._update_watch()  # a run to a time goes there at the chosen speed
            if not self._running:
                self._dirty = True
                self.paused.emit(sim.t, "target")
        elif msg.kind == "reset":
            scenario, generation = msg.payload
            self._new_sim(scenario or self._scenario, generation)
        elif msg.kind == "call":
            fn, fut = msg.payload
            if fut.set_running_or_notify_cancel():
                try:
                    fut.set_result(fn(sim))
                except Exception as e:  # noqa: BLE001 (handed to whoever waits on it)
                    fut.set_exception(e)
            self._collect()
        self._dirty = True
        return True

    # -- simulation ----------------------------------------------------------------------------
    def _new_sim(self, scenario: ScenarioConfig, generation: int) -> None:
        self._scenario = scenario
        self._sim = Simulation(scenario)
        self._sim.subscribe(self._on_event)
        self._generation = generation
        # The last simulation's picture must never stand for this one: ``_publish`` reuses a
        # snapshot whose time and event count match the simulation's, and a scenario opened
        # at t = 0 from another one paused at t = 0 with as many events (none, often) matched:
        # the window then drew the old scenario's guests under the new one's name.
        self._snapshot = None
        self._running = False
        self._stop_at = None
        self._end_reported = False
        self._lesson_end_reported = False
        self._feed = self._sim.sample_feed()
        self._events.clear()
        self._console.clear()
        self._seen_events = 0
        self._seen_commands = 0
        self._waiting.clear()
        self._answers.clear()
        self._last_command_seq = None
        self._watcher = Watcher(self._watcher.wall_s, self._watcher.factors)
        self._watch = None
        self._watch_key = None
        self._pacer.set_factor(self._user_factor, 0.0)
        self._run_due()  # the timeline's commands at t = 0 run before the first picture
        self._dirty = True

    def _lesson_over(self) -> bool:
        """True once the scenario's lesson (its objectives) has ended."""
        sim = self._sim
        return sim is not None and sim.lesson is not None and sim.lesson.ended

    def _check_lesson_end(self) -> bool:
        """Stop the clock the first time the lesson is found ended; True then.

        Headless, ``Simulation.run_until`` stops stepping at the lesson's end: so does the
        window, so what the student sees is what a replay of the session gives.
        """
        if self._lesson_end_reported or not self._lesson_over():
            return False
        sim = self._sim
        assert sim is not None
        self._lesson_end_reported = True
        self._running = False
        self._stop_at = None
        self._publish()
        self.paused.emit(sim.t, "lesson")
        return True

    def _step(self) -> None:
        sim = self._sim
        assert sim is not None
        # the thread's CPU time: wall time would count the waits for the GIL while the window
        # paints, and make the steps of a small cluster look long
        t0 = time.thread_time()
        sim.step()
        self.long_steps = time.thread_time() - t0 > LONG_STEP_CPU_S
        # no snapshot here: one is made when a frame is published or watch mode looks
        # (``_current_snapshot``); with a thousand guests it costs a third of a step

    def _run_due(self) -> None:
        """Run the commands due now, without stepping, and collect what they produced."""
        sim = self._sim
        assert sim is not None
        sim.run_until(sim.t)
        self._collect()

    def _advance(self) -> None:
        """Step for up to ``CHUNK_WALL_S`` at the pace allowed, then return to the inbox."""
        sim = self._sim
        assert sim is not None
        deadline = time.perf_counter() + CHUNK_WALL_S
        allowed = self._pacer.allowed(sim.t, sim.step_s)
        stepped = False
        try:
            while self._running:
                if self._stop_at is not None and sim.t >= self._stop_at - 1e-9:
                    self._running = False
                    self._stop_at = None
                    self._run_due()
                    self._publish()
                    self.paused.emit(sim.t, "target")
                    return
                if self.pause_at_end and not self._end_reported and \
                        sim.t >= self._scenario.duration_s - 1e-9 and self._stop_at is None:
                    self._end_reported = True
                    self._running = False
                    self._run_due()
                    self._publish()
                    self.paused.emit(sim.t, "end")
                    return
                if sim.t + sim.step_s > allowed + 1e-9:
                    break  # not due yet at this pace
                self.gui_idle.wait(GUI_WAIT_S)
                if not self._inbox.empty():
                    break  # a command came while the window painted: it runs before the step
                self._step()
                stepped = True
                if self._update_watch():
                    break  # a move began or ended: the next steps go at the new pace
                if self._lesson_over():
                    self._run_due()  # as run_until does after its last step
                    self._check_lesson_end()
                    return
                if time.perf_counter() >= deadline or not self._inbox.empty() or \
                        self.long_steps:
                    break  # (after a long step: publish it, and wait for its paint)
        except Exception:  # noqa: BLE001 (reported to the window, which shows it)
            self._running = False
            self._dirty = True
            self.failed.emit(traceback.format_exc())
            return
        if stepped:
            self._run_due()
            self._dirty = True

    def _command(self, rid: int, command: Command) -> None:
        sim = self._sim
        assert sim is not None
        # commands already due (a scenario's, a session's) run first, as they would headless
        sim.run_until(sim.t)
        req = _Request(rid, command, sim.t)
        before = self._last_command_seq
        res = sim.submit(command)
        if isinstance(res, Ticket):
            req.ticket = res
            self._waiting.append(req)
            self._console.append(ConsoleItem(
                "waiting", sim.t, str(command),
                ("Waiting: a SYNC relocation holds the console; the command runs when it ends",),
                0, rid, seq=len(sim.events) - 0.5))
        elif self._last_command_seq is not None and self._last_command_seq != before:
            self._answers[self._last_command_seq] = (req, res)
        else:  # no COMMAND event (never expected): answer it where the events stand now
            self._console.append(ConsoleItem("answer", sim.t, str(command), tuple(res.lines),
                                             res.rc, rid, seq=len(sim.events) - 0.5))
        self._collect()
        self._update_watch()

    def _on_event(self, e: Event) -> None:
        """Called by the simulation for every event (on this thread)."""
        if e.kind == "COMMAND":
            self._answered()
            self._last_command_seq = e.seq

    def _answered(self) -> None:
        """Take the answers of waiting commands that have run.

        A waiting command runs when the console is free, and the simulation gives its answer
        (``answer(ticket)``) as soon as it has run, before any other command runs: so the
        latest COMMAND event is that command's, and its answer goes there among the events.
        """
        while self._waiting:
            req = self._waiting[0]
            assert req.ticket is not None and self._sim is not None
            resp = self._sim.answer(req.ticket)
            if resp is None or self._last_command_seq is None:
                return  # they run in the order they were issued: the rest wait too
            self._waiting.popleft()
            self._answers[self._last_command_seq] = (req, resp)

    def _collect(self) -> None:
        """Copy the events that are new since the last look, and answer the window's commands."""
        sim = self._sim
        assert sim is not None
        self._answered()
        new = sim.events[self._seen_events:]
        self._seen_events = len(sim.events)
        for e in new:
            self._events.append(copy_event(e))
            if e.kind != "COMMAND":
                continue
            # COMMAND events and the command log are appended together, in the same order
            log = sim.command_log[self._seen_commands] \
                if self._seen_commands < len(sim.command_log) else None
            self._seen_commands += 1
            answer = self._answers.pop(e.seq, None)
            if answer is not None:
                req, resp = answer
                self._console.append(ConsoleItem(
                    "answer", e.t_s, str(req.command), tuple(resp.lines), resp.rc,
                    req.request_id, req.ticket is not None, e.seq))
                continue
            lines = tuple(e.data.get("response", ()))
            rc = int(e.data.get("rc", 0))
            # not the window's: the scenario's timeline, or a recorded session being replayed
            # (``ssisim gui --session``: issued interactively, line 0)
            typed = log is not None and log[3] == 0
            self._console.append(ConsoleItem("session" if typed else "timeline", e.t_s,
                                             e.message, lines, rc, seq=e.seq))

    def _current_snapshot(self) -> Snapshot:
        """The snapshot of the world now (the last one, unless a command changed the world)."""
        sim = self._sim
        assert sim is not None
        snap = self._snapshot
        if snap is None or snap.t_s != round(sim.t, 6) or snap.events != len(sim.events):
            snap = sim.snapshot()
            self._snapshot = snap
        return snap

    def _update_watch(self) -> bool:
        """Watch mode: slow the clock while a guest moves, back to the user's speed after.

        Only while the clock runs freely: a run to a set time (screenshots, ``--run-until``)
        goes there at the chosen speed. True when the pace changed.
        """
        watch = None
        if self.watch_moves and self._running and self._stop_at is None:
            sim = self._sim
            assert sim is not None
            # a move begins with an event (RELOCATION_START, LPM_START, ...): while none came
            # and none is watched, the answer stands, and the snapshot it needs is spared
            key = (len(sim.events), self._user_factor)
            if self._watch is None and key == self._watch_key:
                return False
            self._watch_key = key
            watch = self._watcher.update(moves_under_way(self._current_snapshot()),
                                         self._user_factor)
        else:
            self._watch_key = None
        if watch == self._watch:
            return False
        self._watch = watch
        factor = watch.factor if watch is not None else self._user_factor
        if factor != self._pacer.factor:
            sim = self._sim
            assert sim is not None
            self._pacer.set_factor(factor, sim.t)
        self._dirty = True
        return True

    def _publish(self) -> None:
        snap = self._current_snapshot()  # a command may have changed the world since the step
        # the engine's samples since the last frame: immutable records, handed over as they are
        samples = self._feed.take_new() if self._feed is not None else ()
        # after a long step, or with the answer to a command (a drop), the worker waits until
        # the window has painted this frame: stepping on would hold the GIL the window's
        # apply and paint need, and delay what the user waits to see
        answers = any(c.kind == "answer" for c in self._console)
        wait = self._running and (self.long_steps or answers)
        if wait:
            self.gui_idle.clear()  # set again once the window has painted this frame
        self.mailbox.put(self._generation, snap, samples, self._events, self._console,
                         self._running, self._watch)
        self._events = []
        self._console = []
        self._dirty = False
        if wait:
            self.published.emit(answers)
