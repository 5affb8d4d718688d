"""Planning work off the GUI thread: an evacuation search or a sweep, with progress and cancel.

Qt-free. A ``PlanJob`` runs ``work(progress, executor)`` on a thread of its own; the runs go to
a pool of processes started with *spawn* (a forked copy of a process with Qt's threads is not
safe), or run on the job's thread when one process is asked for. The engine's ``progress``
callable records how far the work is; the window reads it on a timer (``state()``) and gets the
result from ``future`` (``app.futures.when_done``). ``cancel()`` drops the runs not yet started
and makes the next progress report raise ``Cancelled``.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

#: ``progress(stage, done, total)``: what the job is doing, and runs done of the stage's total.
Progress = Callable[[str, int, int], None]


class Cancelled(Exception):
    """The job was cancelled before it finished."""


@dataclass(frozen=True)
class JobState:
    """How far a job is: the stage, runs done and runs in the stage, runs done before it."""

    stage: str = "starting"
    done: int = 0
    total: int = 0
    finished_before: int = 0

    @property
    def runs_done(self) -> int:
        """Runs finished in every stage so far."""
        return self.finished_before + self.done


def default_processes() -> int:
    """One process per core, at least one."""
    return max(1, os.cpu_count() or 1)


class PlanJob:
    """Run ``work(progress, executor)`` on a thread; see the module's docstring.

    Parameters
    ----------
    work : callable
        Takes the progress callable and an executor for the runs (None: run them here), and
        returns the result. It must not touch Qt.
    processes : int
        Processes for the runs; 1 runs them on the job's own thread.
    """

    def __init__(self, work: Callable[[Progress, Executor | None], Any],
                 processes: int = 1) -> None:
        self.work = work
        self.processes = max(1, processes)
        #: The result (or the exception: ``Cancelled`` once cancelled).
        self.future: Future = Future()
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._state = JobState()
        self._pool: ProcessPoolExecutor | None = None
        self._thread = threading.Thread(target=self._run, name="ssisim-plan", daemon=True)

    def start(self) -> PlanJob:
        """Start the work; returns the job."""
        self.future.set_running_or_notify_cancel()
        self._thread.start()
        return self

    @property
    def cancelled(self) -> bool:
        """True once ``cancel()`` was called."""
        return self._cancel.is_set()

    def state(self) -> JobState:
        """How far the job is now (any thread)."""
        with self._lock:
            return self._state

    def progress(self, stage: str, done: int, total: int) -> None:
        """The engine's progress report (on the job's thread); raises ``Cancelled`` once the
        job was cancelled, which ends the work at the next finished run."""
        if self._cancel.is_set():
            raise Cancelled()
        with self._lock:
            s = self._state
            before = s.finished_before
            if stage != s.stage and s.done == s.total:  # a new batch of runs
                before += s.done
            self._state = JobState(stage, done, total, before)

    def cancel(self) -> None:
        """Stop: runs not started are dropped, the result is ``Cancelled`` (any thread)."""
        self._cancel.set()
        pool = self._pool
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait for the job's thread to end; True when it has."""
        self._thread.join(timeout_s)
        return not self._thread.is_alive()

    def _run(self) -> None:
        pool = None
        try:
            if self.processes > 1:
                pool = ProcessPoolExecutor(self.processes,
                                           mp_context=multiprocessing.get_context("spawn"))
                self._pool = pool
            if self._cancel.is_set():
                raise Cancelled()
            result = self.work(self.progress, pool)
            if self._cancel.is_set():
                raise Cancelled()
        except BaseException as e:  # noqa: BLE001 (handed to the window through the future)
            # once cancelled, whatever the dropped runs raised is the cancellation
            self.future.set_exception(Cancelled() if self._cancel.is_set() else e)
        else:
            self.future.set_result(result)
        finally:
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["Cancelled", "JobState", "PlanJob", "Progress", "default_processes"]
