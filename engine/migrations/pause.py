"""Pausing guests and letting them go: CP STOP/BEGIN, Linux suspend/resume, logoff cleanup.

Linux suspend (hibernation) is a guest-side action: the guest freezes its services, writes the
pages it uses to its own swap disk, and halts; resume boots the kernel, reads the image back and
restarts the services. CP STOP stops the virtual CPUs at once: memory stays, devices stay active,
so network interrupts still get the guest scheduled now and then. Parameters are in
``PauseModel`` with how each was derived.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..basics.units import PAGES_PER_GB, PAGES_PER_MB
from ..basics.workloads import Workload
from ..kernels import pages as K
from ..world.state import Guest
from ..world.world import World


@dataclass(frozen=True)
class PauseModel:
    """Parameters of pausing and logoff, derived from published measurements.

    Sources: IBM Linux on System z white paper "Methods to pause a z/VM guest" (2011): z/VM 5.4 on
    a z10 LPAR, 10 GB central + 2 GB XSTOR, guests of 768 MB (application server) and 650 MB
    (database); IBM z/VM 7.3 performance report "Support for Guests Greater than One Terabyte".
    """

    #: Memory the Linux kernel itself uses, added to the workload's working set in the image.
    kernel_mb: float = 32.0
    #: Freezing the services before the image is written, seconds, by workload type. A Java
    #: application server has many threads to freeze and sessions to quiesce; a database flushes
    #: its log. Derived: published halts of 27 s (application server) and 8 s (database) less
    #: writing their images (532 MB and 232 MB at 40 MB/s) leave about 14 s and 2 s.
    prepare_s: dict[str, float] = field(default_factory=lambda: {
        "appserver": 14.0, "database": 2.0, "webserver": 5.0, "idle": 1.0})
    #: Booting the kernel before the image is read back (IPL to the resume point), seconds.
    boot_s: float = 6.0
    #: Thawing the services after the image is back, seconds (resume's 21 s less boot, reading
    #: 532 MB at 40 MB/s and the first request's 0.6 s).
    restart_s: dict[str, float] = field(default_factory=lambda: {
        "appserver": 1.1, "database": 0.5, "webserver": 0.5, "idle": 0.2})
    #: A request to a running application, seconds (published: 0.6 s).
    request_s: float = 0.6
    #: TCP's initial retransmission timeout (Linux): a request sent while the guest's CPUs were
    #: stopped went unanswered and is sent again this long after, so the first answer after
    #: BEGIN comes no sooner (published: 3 s after BEGIN).
    tcp_retransmit_s: float = 3.0
    #: Logoff cleanup resets every instantiated page: 565 s for the 2002 GB guest before the
    #: cleanup-state change, 0.2822 s per GB.
    cleanup_s_per_gb: float = 565.0 / 2002.0
    #: With the cleanup state, the user ID is free again once CP has let go of the guest's
    #: devices and its region and segment tables: about 10 s for the 2 TB guest, 5 s per TB of
    #: defined storage.
    detach_s_per_tb: float = 5.0
    #: Pages an external interrupt touches while CP handles it for a stopped guest.
    irq_pages: int = 8
    #: How long a stopped guest stays on the dispatch list after an interrupt, seconds
    #: (CP's test-idle time).
    irq_hold_s: float = 0.3


PAUSE = PauseModel()


@dataclass
class Pause:
    """A Linux suspend or resume under way, or a finished one (for the summary)."""

    userid: str
    action: str  # "suspend" or "resume"
    t_start: float
    image_pages: int
    phase: str = ""  # prepare, write, halted | boot, read, restart, serving
    t_phase_end: float = 0.0
    target_units: float = 0.0
    t_end: float | None = None
    saved: Workload | None = None

    def to_dict(self) -> dict[str, Any]:
        """The pause as the JSON summary carries it."""
        return {"guest": self.userid, "action": self.action, "start_s": round(self.t_start, 3),
                "image_mb": round(self.image_pages / PAGES_PER_MB, 1),
                "seconds": None if self.t_end is None else round(self.t_end - self.t_start, 3),
                "result": "done" if self.t_end is not None else self.phase}


@dataclass
class Cleanup:
    """The storage of a guest that has logged off, being reset by CP."""

    userid: str
    member: str
    inline: bool
    t_start: float
    detach_until: float
    central: float
    xstor: float
    slots: float
    rate_pages_s: float
    t_end: float | None = None

    @property
    def left(self) -> float:
        """Pages still to reset."""
        return self.central + self.xstor + self.slots


class PauseEngine:
    """Suspends, resumes, CP STOP interrupts and logoff cleanups of a simulation."""

    def __init__(self, sim: World, model: PauseModel = PAUSE) -> None:
        self.sim = sim
        self.model = model
        self.pauses: list[Pause] = []
        self.cleanups: list[Cleanup] = []
        self.active: dict[str, Pause] = {}
        self._irq_rng: dict[str, np.random.Generator] = {}

    # -- Linux suspend / resume ---------------------------------------------------------------
    def image_pages(self, g: Guest) -> int:
        """Pages Linux writes when it hibernates: its kernel and its workload's working set."""
        used = g.workload.working_set_pages() + int(self.model.kernel_mb * PAGES_PER_MB)
        return max(1, min(used, g.instantiated or used, g.cfg.storage_pages))

    def suspend(self, g: Guest) -> Pause:
        """Start hibernating ``g`` (checks done by the caller)."""
        kind = g.workload.kind
        image = self.image_pages(g)
        p = Pause(g.userid, "suspend", self.sim.t, image, "prepare",
                  self.sim.t + self.model.prepare_s.get(kind, 2.0), saved=g.workload)
        # frozen services: the guest does no more work of its own
        g.set_workload(Workload("none", {}, g.cfg.storage_pages))
        g.linux = "suspending"
        self.active[g.userid] = p
        self.pauses.append(p)
        self.sim.emit("SUSPEND_START", g.member, g.userid,
                      f"{g.userid}: Linux hibernates ({image / PAGES_PER_MB:.0f} MB image)",
                      {"image_pages": image})
        return p

    def resume(self, g: Guest) -> Pause:
        """Start resuming ``g`` from its hibernation image."""
        p = Pause(g.userid, "resume", self.sim.t, g.image_pages, "boot",
                  self.sim.t + self.model.boot_s, saved=g.saved_workload)
        g.linux = "resuming"
        # booting touches the kernel's pages
        kernel_mb = self.model.kernel_mb
        g.set_workload(Workload("seqtouch", {"buffer_mb": kernel_mb,
                                             "rate_pages_s": kernel_mb * PAGES_PER_MB / 2},
                                g.cfg.storage_pages))
        self.active[g.userid] = p
        self.pauses.append(p)
        self.sim.emit("RESUME_START", g.member, g.userid,
                      f"{g.userid}: Linux resumes from its {g.image_pages / PAGES_PER_MB:.0f} MB "
                      "image")
        return p

    def logged_off(self, g: Guest) -> None:
        """``g`` logged off in the middle of a suspend or resume: it ends there.

        A suspend that had not finished its image leaves none: Linux boots afresh at the next
        logon, with the workload it ran. A resume leaves the image where it was: at the next
        logon Linux finds it and stays halted until RESUME.
        """
        p = self.active.pop(g.userid, None)
        if p is None:
            return
        p.phase = "logged off"
        if p.action == "suspend" and p.saved is not None:
            g.workload = p.saved

    def own_workload(self, g: Guest) -> Workload:
        """The work ``g`` does for its users: while Linux suspends, is suspended or resumes,
        the workload it left (it runs again once resumed), not the image walk or the nothing
        that stands in for it meanwhile."""
        p = self.active.get(g.userid)
        if p is not None and p.saved is not None:
            return p.saved
        if g.linux == "suspended" and g.saved_workload is not None:
            return g.saved_workload
        return g.workload

    def _swap_walk(self, g: Guest, p: Pause, write: bool) -> None:
        """The image moving between memory and swap disk: a walk over its pages at disk speed."""
        rate = g.cfg.swap_mb_s * PAGES_PER_MB
        g.set_workload(Workload("seqtouch", {"buffer_mb": p.image_pages / PAGES_PER_MB,
                                             "rate_pages_s": rate, "write": 1 if write else 0},
                                g.cfg.storage_pages))
        p.target_units = g.units_total + p.image_pages

    def advance(self) -> None:
        """Move every suspend and resume to its next phase when the time has come."""
        t = self.sim.t
        for uid, p in list(self.active.items()):
            g = self.sim.guests[uid]
            if p.phase in ("prepare", "boot", "restart") and t + 1e-9 >= p.t_phase_end:
                if p.phase == "prepare":
                    p.phase = "write"
                    self._swap_walk(g, p, write=False)
                elif p.phase == "boot":
                    p.phase = "read"
                    self._swap_walk(g, p, write=True)
                else:
                    self._serving(g, p)
            elif p.phase in ("write", "read") and g.units_total + 0.5 >= p.target_units:
                if p.phase == "write":
                    self._halted(g, p)
                else:
                    p.phase = "restart"
                    g.set_workload(Workload("none", {}, g.cfg.storage_pages))
                    p.t_phase_end = t + self.model.restart_s.get(
                        p.saved.kind if p.saved else "idle", 0.5)

    def _halted(self, g: Guest, p: Pause) -> None:
        g.set_workload(Workload("none", {}, g.cfg.storage_pages))
        g.linux = "suspended"
        g.image_pages = p.image_pages
        g.saved_workload = p.saved
        p.phase = "halted"
        p.t_end = self.sim.t
        del self.active[g.userid]
        self.sim.emit("SUSPENDED", g.member, g.userid,
                      f"{g.userid} halted after {p.t_end - p.t_start:.1f} s; its image is on its "
                      "swap disk", {"seconds": round(p.t_end - p.t_start, 6)})

    def _serving(self, g: Guest, p: Pause) -> None:
        g.set_workload(p.saved or Workload("idle", {}, g.cfg.storage_pages))
        g.linux = "running"
        g.image_pages = 0
        p.phase = "serving"
        p.t_end = self.sim.t + self.model.request_s
        del self.active[g.userid]
        self.sim.emit("SERVING", g.member, g.userid,
                      f"{g.userid} answers requests again {p.t_end - p.t_start:.1f} s after "
                      "RESUME", {"seconds": round(p.t_end - p.t_start, 6)})

    # -- CP STOP / BEGIN ----------------------------------------------------------------------
    def first_request_s(self, g: Guest) -> float:
        """Time until a client gets its first answer after BEGIN.

        The client's request went unanswered while the CPUs were stopped; TCP sends it again
        ``tcp_retransmit_s`` after the first try. Answering walks the hot part of the working
        set: pages CP took while the guest was stopped come back from XSTOR at once and from
        DASD at the volumes' speed; if that takes longer, the answer comes later.
        """

        if g.planes is None or g.member is None:
            return self.model.request_s
        w = g.workload
        hot = w.working_set_pages()
        if "hot_fraction" in w.params:
            hot = max(1, int(hot * w.params["hot_fraction"]))
        words = g.planes[: (hot + 63) // 64]
        counts = np.zeros(K.NPLANES, dtype=np.int64)
        K.count_planes(words, counts)
        m = self.sim.members[g.member]
        work = (self.model.request_s + int(counts[K.XST]) * 15e-6
                + int(counts[K.DSD]) * self.sim.dasd_wait_s(m) / max(1, g.cfg.vcpus))
        return max(self.model.tcp_retransmit_s, work)

    def interrupts(self, g: Guest, dt: float) -> int:
        """External interrupts that reach a stopped guest in one step (random, seeded)."""
        rate = g.workload.interrupts_per_s() if g.workload.kind != "none" else 0.0
        if g.saved_workload is not None and g.workload.kind == "none":
            rate = g.saved_workload.interrupts_per_s()
        if rate <= 0:
            return 0
        rng = self._irq_rng.get(g.userid)
        if rng is None:
            rng = np.random.default_rng([self.sim.seed, zlib.crc32(g.userid.encode()), 7])
            self._irq_rng[g.userid] = rng
        return int(rng.poisson(rate * dt))

    # -- logoff cleanup -----------------------------------------------------------------------
    def start_cleanup(self, g: Guest, inline: bool) -> Cleanup:
        """Begin resetting a departing guest's storage (its counts move to the cleanup)."""
        assert g.member is not None
        t = self.sim.t
        gb = g.instantiated / PAGES_PER_GB
        total_s = gb * self.model.cleanup_s_per_gb
        rate = g.instantiated / total_s if total_s > 0 else math.inf
        detach = t + total_s if inline else t + self.model.detach_s_per_tb * g.npages / (
            1024 * PAGES_PER_GB)
        c = Cleanup(g.userid, g.member, inline, t, detach, float(g.n_cen), float(g.n_xst),
                    float(g.n_slot), rate)
        self.cleanups.append(c)
        return c

    def cleanup_of(self, userid: str) -> Cleanup | None:
        """The cleanup still holding ``userid`` (its ID not yet free), if any.

        Holds of less than 50 ms are not counted: a small guest logs off and on at once.
        """
        for c in self.cleanups:
            if c.userid == userid and c.t_end is None and \
                    self.sim.t < c.detach_until - 0.05:
                return c
        return None

    def cleaning(self, member: str) -> list[Cleanup]:
        """Cleanups under way on a member."""
        return [c for c in self.cleanups if c.member == member and c.t_end is None]

    def advance_cleanups(self, dt: float) -> None:
        """Reset ``dt`` seconds' worth of pages of every departing guest; frames come back."""
        for c in self.cleanups:
            if c.t_end is not None:
                continue
            m = self.sim.members[c.member]
            budget = c.rate_pages_s * dt
            for tier in ("central", "xstor", "slots"):
                have = getattr(c, tier)
                take = min(have, budget)
                whole = int(math.floor(have)) - int(math.floor(have - take))
                setattr(c, tier, have - take)
                budget -= take
                if tier == "central":
                    m.resident -= whole
                elif tier == "xstor":
                    m.xstor_used -= whole
                else:
                    m.slots_used -= whole
            if c.left <= 1e-6:
                c.t_end = self.sim.t + dt
                self.sim.emit("CLEANUP_DONE", c.member, c.userid,
                              f"{c.userid}: storage reset after {c.t_end - c.t_start:.1f} s",
                              {"seconds": round(c.t_end - c.t_start, 6)})
