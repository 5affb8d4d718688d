"""What the Plan menu's dialogs share: one background ``PlanJob`` at a time, started and
cancelled from the dialog's buttons, its progress read on a timer, its end delivered on the GUI
thread (``when_done``)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QPushButton

from .futures import when_done
from .plan_jobs import PlanJob, Progress


class JobDialog:
    """A mixin for a ``QDialog`` that runs one ``PlanJob``: it has ``start_button``,
    ``cancel_button``, a ``timer`` polling the progress, ``say(text)``, and ``_finished(job,
    result)`` and ``_failed(job, error)`` for the end."""

    job: PlanJob | None
    timer: QTimer
    start_button: QPushButton
    cancel_button: QPushButton

    def say(self, text: str, error: bool = False) -> None:  # pragma: no cover - the dialog's
        raise NotImplementedError

    def _finished(self, job: PlanJob, result: Any) -> None:  # pragma: no cover - the dialog's
        raise NotImplementedError

    def _failed(self, job: PlanJob, e: BaseException) -> None:  # pragma: no cover
        raise NotImplementedError

    def _launch(self, work: Callable[[Progress, Executor | None], Any],
                processes: int) -> PlanJob:
        """Start ``work`` in the background; its end comes to ``_finished`` or ``_failed``."""
        self.start_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.job = job = PlanJob(work, processes).start()
        self.timer.start()
        when_done(self, job.future, lambda r: self._finished(job, r),  # type: ignore[arg-type]
                  lambda e: self._failed(job, e))
        return job

    def cancel(self) -> None:
        """Stop the job: the runs under way finish in their processes, unseen."""
        if self.job is not None:
            self.job.cancel()
            self.say("cancelling ...")
            self.cancel_button.setEnabled(False)

    def _end(self, job: PlanJob) -> bool:
        """The job is over; False when it is no longer this dialog's."""
        if job is not self.job:
            return False
        self.job = None
        self.timer.stop()
        self.start_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        return True
