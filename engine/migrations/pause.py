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
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..basics.units import PAGES_PER_GB, PAGES_PER_MB
from ..basics.workloads import Workload
from ..kernels import pages as K
from ..world.paging import PAGING, PagingModel
from ..world.state import Guest
from ..world.world import World
from .migration import command_lead, command_start
from .relocation import MODEL as LGR


@dataclass(frozen=True)
class PauseModel:
    """Parameters of pausing, logoff and logon, derived from published measurements.

    Sources: IBM Linux on System z white paper "Methods to pause a z/VM guest" (2011): z/VM 5.4 on
    a z10 LPAR, 10 GB central + 2 GB XSTOR, guests of 768 MB (application server) and 650 MB
    (database), swap disks streaming 40 MB/s; IBM z/VM 7.3 performance report "Support for
    Guests Greater than One Terabyte"; Linux's hibernation and swap defaults.
    """

    #: Memory the Linux kernel itself uses, added to the workload's working set in the image.
    kernel_mb: float = 32.0
    #: Suspend, before anything is written: freezing the tasks, syncing the file systems and
    #: quiescing the devices, seconds. Derived: the database halted in 8 s; its 232 MB image
    #: (200 MB buffer pool and 32 MB kernel, less than half its 650 MB, so nothing to swap out
    #: first) streams in 5.8 s at 40 MB/s: 2.2 s remain.
    freeze_s: float = 2.2
    #: Share of its memory Linux can write as a hibernation image. Linux copies every page of the
    #: image into free memory before writing it (``hibernate_preallocate_memory``), so the image
    #: is at most half of memory; a guest using more swaps the excess out first, the least
    #: recently used pages, which the image then does not hold.
    image_max_share: float = 0.5
    #: Swapping out before the image: Linux writes the excess in clusters of 8 pages (its
    #: ``page-cluster`` default 3), 32 KiB per I/O, not in the image's long sequential stream.
    reclaim_io_kib: float = 32.0
    #: What each of those cluster writes costs beyond its transfer at the swap disk's speed:
    #: the device's start and service time and Linux's reclaim scan between writes, seconds.
    #: Assumed 1.65 ms (a 3390 write with its channel program, and the scan): the swap-out then
    #: runs at 12.9 MB/s on a 40 MB/s disk. Not derivable alone: the application server (532 MB
    #: used of 768) and the 768 MB guests using 600 MB both hang on it; both published figures
    #: hold from 1.5 to 1.9 ms.
    reclaim_io_s: float = 0.00165
    #: Booting the kernel before the image is read back (IPL to the resume point), and the
    #: same kernel booting at a logon, seconds (assumed: the publication gives resume whole).
    boot_s: float = 6.0
    #: Resume, after the image is back: devices and network interfaces brought up again,
    #: applications reconnecting, seconds; does not grow with the image. Derived: the
    #: application server answered 21 s after resume; less booting (6 s), reading its 384 MB
    #: image at 40 MB/s (9.6 s) and the first request (0.6 s): 4.8 s. The pages it swapped out
    #: are its least used: they come back later, as touched, not before the first answer.
    reinit_s: float = 4.8
    #: A request to a running application, seconds (published: 0.6 s).
    request_s: float = 0.6
    #: TCP's initial retransmission timeout (Linux): a request sent while the guest's CPUs were
    #: stopped went unanswered and is sent again this long after, so the first answer after
    #: BEGIN comes no sooner (published: 3 s after BEGIN).
    tcp_retransmit_s: float = 3.0
    #: Logoff cleanup, per page in central storage: its frame is cleared before it is reused,
    #: seconds (CP's work on one processor, at cpu_speed 1). Derived: the 2 TB guest had all of
    #: its 2002 GB in central storage (no paging) and its cleanup took 565 s before the
    #: cleanup-state change; less its walk of the DAT tables of its 2048 GB of defined storage
    #: at the relocation's scan rate (``lgr.dat_scan_s_per_gb``, 0.03865 s a GB: 79.2 s),
    #: 485.8 s / (2002 x 262,144 pages) = 0.93 us a frame, about 4.4 GB/s.
    clear_frame_s: float = (565.0 - 2048 * LGR.dat_scan_s_per_gb) / (2002.0 * PAGES_PER_GB)
    #: Logoff cleanup, per DASD slot or XSTOR block the guest held: it is only marked free in
    #: its allocation map, no data is touched, seconds. Assumed 0.1 us: reading the page's entry
    #: and clearing a bit, a tenth of clearing a frame.
    release_slot_s: float = 1e-7
    #: With the cleanup state, the user ID is free again once CP has let go of the guest's
    #: devices and its region and segment tables: about 10 s for the 2 TB guest, 5 s per TB of
    #: defined storage.
    detach_s_per_tb: float = 5.0
    #: A guest logged on counts as active once Linux has booted and it has touched this share
    #: of its working set (kernel included) again. A definition, not a measurement (assumed):
    #: a workload that references its working set at random keeps finding a few untouched pages
    #: long after it has settled.
    active_share: float = 0.9
    #: Pages an external interrupt touches while CP handles it for a stopped guest, in the
    #: guest's working set (assumed: a network frame and its buffer descriptors).
    irq_pages: int = 8
    #: Share of those pages the interrupt changes (assumed: the frame's buffer, not the rest).
    irq_write_share: float = 0.1
    #: CPU CP spends per page it touches for such an interrupt, seconds (assumed: a storage
    #: reference and its bookkeeping, well under the page fault paths of ``PagingModel``).
    irq_touch_cpu_s: float = 1e-6

    def reclaim_mb_s(self, swap_mb_s: float) -> float:
        """How fast Linux swaps pages out before hibernating, MB/s, on a swap disk that streams
        ``swap_mb_s``: one cluster per I/O, each paying ``reclaim_io_s`` besides its transfer."""
        mb = self.reclaim_io_kib / 1024.0
        per_io = (mb / swap_mb_s if swap_mb_s > 0 else math.inf) + self.reclaim_io_s
        return mb / per_io if per_io > 0 else math.inf


PAUSE = PauseModel()


@dataclass
class Pause:
    """A Linux suspend or resume under way, or a finished one (for the summary)."""

    userid: str
    action: str  # "suspend" or "resume"
    t_start: float
    image_pages: int  # the image Linux writes (suspend) or reads back (resume)
    phase: str = ""  # prepare, reclaim, write, halted | boot, read, restart, serving
    t_phase_end: float = 0.0
    target_units: float = 0.0
    t_end: float | None = None
    saved: Workload | None = None
    #: pages Linux swaps out before it writes the image (suspend; 0 when the image fits)
    swapped_pages: int = 0
    #: length of the current timed phase (prepare, reclaim, boot, restart), seconds
    phase_s: float = 0.0
    #: the image's walk (write, read): when it began and its pace, pages a second
    t_walk: float = 0.0
    walk_rate: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The pause as the JSON summary carries it."""
        return {"guest": self.userid, "action": self.action, "start_s": round(self.t_start, 3),
                "image_mb": round(self.image_pages / PAGES_PER_MB, 1),
                "swapped_mb": round(self.swapped_pages / PAGES_PER_MB, 1),
                "seconds": None if self.t_end is None else round(self.t_end - self.t_start, 3),
                "result": "done" if self.t_end is not None else self.phase}


@dataclass
class Cleanup:
    """The storage of a guest that has logged off, being reset by CP.

    ``central`` frames must each be cleared (``clear_frame_s``); ``xstor`` blocks and DASD
    ``slots`` are only released (``release_slot_s``). CP walks the guest's DAT tables in address
    order over its whole defined storage (``walk_s`` for all of it, touched or not), so every
    kind goes down in step with the work done.
    """

    userid: str
    member: str
    inline: bool
    t_start: float
    detach_until: float
    central: float
    xstor: float
    slots: float
    clear_frame_s: float
    release_slot_s: float
    t_end: float | None = None
    #: seconds of the walk of its DAT tables still to do (its defined storage)
    walk_s: float = 0.0
    #: megabytes whose page management blocks (the guest's DAT tables) it still holds: they
    #: are let go as the reset walks the storage, and cost no work of their own
    dat_segs: float = 0.0
    #: seconds it began before the engines' step of work it is first advanced in
    #: (``command_lead``): its first step does that much more
    lead_s: float = 0.0

    @property
    def left(self) -> float:
        """Pages still to reset."""
        return self.central + self.xstor + self.slots

    @property
    def seconds_left(self) -> float:
        """Work still to do, seconds."""
        return self.central * self.clear_frame_s + (self.xstor + self.slots) * \
            self.release_slot_s + self.walk_s


@dataclass
class Logon:
    """A guest logged on: Linux boots, then its workload touches its working set again.

    The guest becomes *active* once it holds ``active_share`` of ``target_pages``. New pages
    need frames: on a member where a logoff cleanup still holds storage, they come as the
    cleanup clears frames or as CP steals them, so the guest gets there later.
    """

    userid: str
    member: str
    t_start: float
    target_pages: int
    t_boot_end: float
    cleanup_pages: int  # pages a logoff cleanup still held on the member at logon
    phase: str = "boot"  # boot, touch, active
    saved: Workload | None = None
    boot_walk: Workload | None = None
    t_active: float | None = None
    #: (time, pages instantiated) when the touch was last looked at: the moment it got there
    #: within a step is found between that and the next look
    seen: tuple[float, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The logon as a JSON record."""
        return {"guest": self.userid, "member": self.member, "start_s": round(self.t_start, 3),
                "target_mb": round(self.target_pages / PAGES_PER_MB, 1),
                "cleanup_gb_at_logon": round(self.cleanup_pages / PAGES_PER_GB, 3),
                "active_s": None if self.t_active is None
                else round(self.t_active - self.t_start, 3),
                "result": self.phase}


class PauseEngine:
    """Suspends, resumes, CP STOP interrupts, logoff cleanups and logons of a simulation."""

    def __init__(self, sim: World, model: PauseModel = PAUSE,
                 paging: PagingModel = PAGING,
                 dat_walk_s_per_gb: float = LGR.dat_scan_s_per_gb) -> None:
        self.sim = sim
        self.model = model
        #: CP's walk of a guest's DAT tables, seconds per GB of defined storage at cpu_speed 1:
        #: a logoff cleanup's, as a relocation's pass makes it (``lgr.dat_scan_s_per_gb``)
        self.dat_walk_s_per_gb = dat_walk_s_per_gb
        self.paging = paging  # what a page fault costs, served from XSTOR
        self.pauses: list[Pause] = []
        self.cleanups: list[Cleanup] = []
        self.logons: list[Logon] = []
        self.active: dict[str, Pause] = {}
        self.booting: dict[str, Logon] = {}
        self._irq_rng: dict[str, np.random.Generator] = {}

    # -- Linux suspend / resume ---------------------------------------------------------------
    def image_pages(self, g: Guest) -> int:
        """Pages Linux saves on its swap disk when it hibernates: the pages it uses (its kernel
        and its workload's working set, no more than it has touched). The swap space must hold
        them all: the image, and what Linux swaps out to make room for the image's copy."""
        used = g.workload.working_set_pages() + int(self.model.kernel_mb * PAGES_PER_MB)
        return max(1, min(used, g.instantiated or used, g.cfg.storage_pages))

    def image_split(self, g: Guest) -> tuple[int, int]:
        """``(image, swapped)``: the pages written as the image, and those Linux swaps out
        first because the image can hold at most ``image_max_share`` of memory."""
        used = self.image_pages(g)
        image = min(used, max(1, int(g.cfg.storage_pages * self.model.image_max_share)))
        return image, used - image

    def suspend(self, g: Guest) -> Pause:
        """Start hibernating ``g`` (checks done by the caller)."""
        logon = self.booting.pop(g.userid, None)
        if logon is not None:
            # hibernating while it comes up: the workload it was starting is the one to keep
            logon.phase = "suspended"
            if logon.saved is not None and g.workload is logon.boot_walk:
                g.set_workload(logon.saved)
        image, swapped = self.image_split(g)
        m = self.model
        t = command_start(self.sim)
        p = Pause(g.userid, "suspend", t, image, "prepare", t + m.freeze_s,
                  saved=g.workload, swapped_pages=swapped, phase_s=m.freeze_s)
        # frozen services: the guest does no more work of its own
        g.set_workload(Workload("none", {}, g.cfg.storage_pages))
        g.linux = "suspending"
        self.active[g.userid] = p
        self.pauses.append(p)
        more = (f", {swapped / PAGES_PER_MB:.0f} MB swapped out first to make room for it"
                if swapped else "")
        self.sim.emit("SUSPEND_START", g.member, g.userid,
                      f"{g.userid}: Linux hibernates ({image / PAGES_PER_MB:.0f} MB image{more})",
                      {"image_pages": image, "swapped_pages": swapped})
        return p

    def resume(self, g: Guest) -> Pause:
        """Start resuming ``g`` from its hibernation image."""
        t = command_start(self.sim)
        p = Pause(g.userid, "resume", t, g.image_pages, "boot",
                  t + self.model.boot_s, saved=g.saved_workload,
                  phase_s=self.model.boot_s)
        g.linux = "resuming"
        g.set_workload(self._kernel_walk(g))
        self.active[g.userid] = p
        self.pauses.append(p)
        self.sim.emit("RESUME_START", g.member, g.userid,
                      f"{g.userid}: Linux resumes from its {g.image_pages / PAGES_PER_MB:.0f} MB "
                      "image")
        return p

    def _kernel_walk(self, g: Guest) -> Workload:
        """Booting touches the kernel's pages."""
        kernel_mb = min(self.model.kernel_mb, g.cfg.storage_pages / PAGES_PER_MB)
        boot_s = max(self.model.boot_s, 1e-3)
        return Workload("seqtouch", {"buffer_mb": kernel_mb,
                                     "rate_pages_s": kernel_mb * PAGES_PER_MB / boot_s},
                        g.cfg.storage_pages)

    def logged_off(self, g: Guest) -> None:
        """``g`` logged off in the middle of a suspend, resume or logon: it ends there.

        A suspend that had not finished its image leaves none: Linux boots afresh at the next
        logon, with the workload it ran. A resume leaves the image where it was: at the next
        logon Linux finds it and stays halted until RESUME.
        """
        logon = self.booting.pop(g.userid, None)
        if logon is not None:
            logon.phase = "logged off"
            if logon.saved is not None and g.workload is logon.boot_walk:
                g.workload = logon.saved
        p = self.active.pop(g.userid, None)
        if p is None:
            return
        p.phase = "logged off"
        if p.action == "suspend" and p.saved is not None:
            g.workload = p.saved

    def own_workload(self, g: Guest) -> Workload:
        """The work ``g`` does for its users: while Linux suspends, is suspended, resumes or
        boots, the workload it left or is starting (it runs once Linux is up), not the image
        walk, the boot or the nothing that stands in for it meanwhile."""
        p = self.active.get(g.userid)
        if p is not None and p.saved is not None:
            return p.saved
        if g.linux == "suspended" and g.saved_workload is not None:
            return g.saved_workload
        logon = self.booting.get(g.userid)
        if logon is not None and logon.saved is not None and g.workload is logon.boot_walk:
            return logon.saved
        return g.workload

    def _swap_walk(self, g: Guest, p: Pause, write: bool, at: float) -> None:
        """The image moving between memory and swap disk: a walk over its pages at disk speed,
        from ``at`` (the end of the phase before, within the last step: the pages it would have
        moved since count as moved)."""
        rate = g.cfg.swap_mb_s * PAGES_PER_MB
        g.set_workload(Workload("seqtouch", {"buffer_mb": p.image_pages / PAGES_PER_MB,
                                             "rate_pages_s": rate, "write": 1 if write else 0},
                                g.cfg.storage_pages))
        p.t_walk, p.walk_rate = at, rate
        p.target_units = g.units_total + p.image_pages - rate * max(0.0, self.sim.t - at)

    def _timed(self, p: Pause, phase: str, seconds: float, at: float) -> None:
        """A phase of ``seconds`` from ``at``."""
        p.phase = phase
        p.phase_s = seconds
        p.t_phase_end = at + seconds

    def advance(self, at: float | None = None) -> None:
        """Move every suspend, resume and logon to its next phase when the time has come: by
        the step's start, or by ``at`` within the step (``next_moment``)."""
        t = self.sim.t if at is None else at
        for uid, p in list(self.active.items()):
            g = self.sim.guests[uid]
            while self.active.get(uid) is p and self._next_phase(g, p, t):
                pass
        self._advance_logons(t)

    def next_moment(self) -> float:
        """The earliest end of a timed phase (a suspend's preparation, a resume's boot, a
        logon's boot) still to come (``inf``: none): the simulation moves it on at that moment
        within the step, the guests run up to it first, so the workload that follows runs the
        rest of the step (moved on as the next step began, a logon's application started up to
        a step late: active 20 s after logon at 5 s steps, 11.75 s at 0.25 s)."""
        ends = [p.t_phase_end for p in self.active.values()
                if p.phase in ("prepare", "reclaim", "boot", "restart")]
        ends += [lg.t_boot_end for lg in self.booting.values() if lg.phase == "boot"]
        t = self.sim.t + 1e-9
        return min((e for e in ends if e > t), default=math.inf)

    def _next_phase(self, g: Guest, p: Pause, t: float) -> bool:
        """Move ``p`` on when its phase has ended by ``t``. A phase ends inside a step and the
        next one begins then, not when the next step begins: so a suspend or resume takes as
        long at any step length. True when it moved on."""
        if p.phase in ("prepare", "reclaim", "boot", "restart") and t + 1e-9 >= p.t_phase_end:
            at = p.t_phase_end
            if p.phase == "prepare" and p.swapped_pages:
                # the image must fit in half of memory: Linux swaps the excess out first
                rate = self.model.reclaim_mb_s(g.cfg.swap_mb_s) * PAGES_PER_MB
                self._timed(p, "reclaim", p.swapped_pages / rate, at)
            elif p.phase in ("prepare", "reclaim"):
                p.phase = "write"
                self._swap_walk(g, p, False, at)
            elif p.phase == "boot":
                p.phase = "read"
                self._swap_walk(g, p, True, at)
            else:
                self._serving(g, p, at)
            return True
        if p.phase in ("write", "read") and g.units_total + 0.5 >= p.target_units:
            # the walk was through when its last page went, at the disk's pace
            at = max(p.t_walk, t - (g.units_total - p.target_units) / max(p.walk_rate, 1e-9))
            if p.phase == "write":
                self._halted(g, p, at)
            else:
                g.set_workload(Workload("none", {}, g.cfg.storage_pages))
                self._timed(p, "restart", self.model.reinit_s, at)
            return True
        return False

    def _halted(self, g: Guest, p: Pause, at: float) -> None:
        g.set_workload(Workload("none", {}, g.cfg.storage_pages))
        g.linux = "suspended"
        g.image_pages = p.image_pages
        g.saved_workload = p.saved
        p.phase = "halted"
        p.t_end = at
        del self.active[g.userid]
        self.sim.emit("SUSPENDED", g.member, g.userid,
                      f"{g.userid} halted after {p.t_end - p.t_start:.1f} s; its image is on its "
                      "swap disk", {"seconds": round(p.t_end - p.t_start, 6)}, at=p.t_end)

    def _serving(self, g: Guest, p: Pause, at: float) -> None:
        g.set_workload(p.saved or Workload("idle", {}, g.cfg.storage_pages))
        g.linux = "running"
        g.image_pages = 0
        p.phase = "serving"
        p.t_end = at + self.model.request_s
        del self.active[g.userid]
        self.sim.emit("SERVING", g.member, g.userid,
                      f"{g.userid} answers requests again {p.t_end - p.t_start:.1f} s after "
                      "RESUME", {"seconds": round(p.t_end - p.t_start, 6)}, at=p.t_end)

    # -- logon ----------------------------------------------------------------------------------
    def log_on(self, g: Guest) -> Logon | None:
        """``g`` was just logged on: Linux boots (``boot_s``), then its workload starts and
        touches its storage again at the rate its CPUs and the member's free frames allow.

        A guest whose Linux finds a hibernation image stays halted instead (until RESUME).
        """
        if g.member is None or g.linux != "running":
            return None
        m = self.model
        target = self._touch_target(g, g.workload)
        held = sum(int(c.central) for c in self.cleaning(g.member))
        walk = self._kernel_walk(g)
        t = command_start(self.sim)
        logon = Logon(g.userid, g.member, t, max(1, target), t + m.boot_s,
                      held, saved=g.workload, boot_walk=walk)
        g.set_workload(walk)
        self.logons.append(logon)
        self.booting[g.userid] = logon
        return logon

    def _touch_target(self, g: Guest, w: Workload) -> int:
        """Pages a guest logged on touches before it is active: its workload's working set,
        or at least the kernel's (the model lays both out from the first page)."""
        kernel = int(self.model.kernel_mb * PAGES_PER_MB)
        return max(1, min(g.cfg.storage_pages, max(w.working_set_pages(), kernel)))

    def _advance_logons(self, t: float) -> None:
        for uid, lg in list(self.booting.items()):
            g = self.sim.guests[uid]
            if lg.phase == "boot":
                if t + 1e-9 < lg.t_boot_end:
                    continue
                lg.phase = "touch"
                lg.seen = (lg.t_boot_end, g.instantiated)
                if g.workload is lg.boot_walk and lg.saved is not None:
                    g.set_workload(lg.saved)
                elif g.workload is not lg.boot_walk:
                    # a WORKLOAD command during the boot: that is what it touches now
                    lg.target_pages = self._touch_target(g, g.workload)
            need = self.model.active_share * lg.target_pages
            if lg.phase == "touch" and g.instantiated < need:
                lg.seen = (t, g.instantiated)
            elif lg.phase == "touch":
                # it got there between the last look and this one, at the pace it touched
                at = t
                if lg.seen is not None and lg.seen[1] < need < g.instantiated and t > lg.seen[0]:
                    at = lg.seen[0] + (t - lg.seen[0]) * (need - lg.seen[1]) / \
                        (g.instantiated - lg.seen[1])
                lg.phase = "active"
                lg.t_active = at
                del self.booting[uid]
                secs = at - lg.t_start
                why = (f"; a logoff cleanup held {lg.cleanup_pages / PAGES_PER_GB:.0f} GB of "
                       f"{lg.member}'s storage when it logged on" if lg.cleanup_pages else "")
                self.sim.emit("ACTIVE", g.member, uid,
                              f"{uid} is active {secs:.1f} s after logon: Linux booted and it "
                              f"touched {g.instantiated / PAGES_PER_MB:.0f} MB of its storage"
                              f"{why}",
                              {"seconds": round(secs, 6),
                               "cleanup_gb": round(lg.cleanup_pages / PAGES_PER_GB, 3)},
                              at=at)

    # -- CP STOP / BEGIN ----------------------------------------------------------------------
    def first_request_s(self, g: Guest) -> float:
        """Time until a client gets its first answer after BEGIN.

        The client's request went unanswered while the CPUs were stopped; TCP sends it again
        ``tcp_retransmit_s`` after the first try. Answering walks the hot part of the working
        set: pages CP took while the guest was stopped come back from XSTOR at once and from
        DASD at the volumes' speed, as many reads at a time as its virtual CPUs fault and the
        devices serve at once (a faulting virtual CPU waits for its read); if that takes longer,
        the answer comes later.
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
        work = (self.model.request_s + int(counts[K.XST]) * self.paging.xstor_fault_s
                + int(counts[K.DSD]) * self.sim.dasd_wait_s(m)
                / max(1, min(g.cfg.vcpus, m.io_concurrency)))
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
        """Begin resetting a departing guest's storage (its counts move to the cleanup).

        Each frame is cleared; each XSTOR block and DASD slot is only released. Inline, the
        user ID stays taken until all of it is done; in the cleanup state, only until CP has
        let go of the guest's devices and DAT tables (``detach_s_per_tb`` of defined storage).
        """
        assert g.member is not None
        lead = command_lead(self.sim)
        t = command_start(self.sim)
        m = self.model
        # CP's work on one processor of the member, as fast as its processors are
        speed = self.sim.members[g.member].cfg.cpu_speed
        c = Cleanup(g.userid, g.member, inline, t, t, float(g.n_cen), float(g.n_xst),
                    float(g.n_slot), m.clear_frame_s / speed, m.release_slot_s / speed)
        # (the walk over its DAT tables is the one a relocation's pass makes)
        c.walk_s = g.npages / PAGES_PER_GB * self.dat_walk_s_per_gb / speed
        c.detach_until = t + c.seconds_left if inline else \
            t + m.detach_s_per_tb * g.npages / (1024 * PAGES_PER_GB)
        c.lead_s = lead
        # the member keeps counting the guest's DAT tables, now the cleanup's
        c.dat_segs = float(g.n_seg)
        g.dat_on = None
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

    def advance_cleanups(self, dt: float, reloc_cpu_s: dict[str, float] | None = None) -> None:
        """Do ``dt`` seconds of every departing guest's reset; frames, XSTOR blocks and slots
        come back as it goes (frames to the free frames, where a guest logging on finds them).

        Each reset is CP's work on one processor of its member while it runs: system work, it
        comes before the guests' (``Member.cleanup_cpus``, processors' worth in this step). CP's
        tasks share the member's processors: with more resets and relocations under way than
        it has processors, each reset gets its part of them, and more of what the relocations
        of the step (done before: ``reloc_cpu_s``, CPU seconds they used on each member) left
        unused."""
        tasks = {name: m.reloc_tasks for name, m in self.sim.members.items()}
        resets: dict[str, int] = {}
        for c in self.cleanups:
            if c.t_end is None:
                tasks[c.member] = tasks.get(c.member, 0) + 1
                resets[c.member] = resets.get(c.member, 0) + 1
        for m in self.sim.members.values():
            m.cleanup_cpus = 0.0
        for c in self.cleanups:
            if c.t_end is not None:
                continue
            m = self.sim.members[c.member]
            # (processors the relocations did not use in this step, among the resets)
            used = (reloc_cpu_s or {}).get(c.member, 0.0)
            left = max(0.0, m.cfg.cpus - used / dt) if dt > 0 else 0.0
            part = min(1.0, max(m.cfg.cpus / tasks[c.member], left / resets[c.member]))
            t0 = self.sim.t - c.lead_s  # (begun before the step: it does that much more)
            span = dt + c.lead_s
            c.lead_s = 0.0
            work = c.seconds_left / part  # seconds it takes at its part of a processor
            done = 1.0 if work <= span else span / work
            if c.inline:
                # (its user ID stays taken until all of it is done: at its part of a
                # processor, later than a whole one would finish it)
                c.detach_until = max(c.detach_until, t0 + work)
            # (processors' worth over the time it ran, its lead included)
            m.cleanup_cpus += part * min(work, span) / span if span > 0 else 0.0
            c.walk_s -= c.walk_s * min(1.0, done)
            for tier in ("central", "xstor", "slots", "dat_segs"):
                have = getattr(c, tier)
                take = have if done >= 1.0 else have * done
                whole = int(math.floor(have + 1e-9)) - int(math.floor(have - take + 1e-9))
                setattr(c, tier, have - take)
                if tier == "central":
                    m.resident -= whole
                elif tier == "dat_segs":
                    m.dat_segs -= whole
                elif tier == "xstor":
                    m.xstor_used -= whole
                else:
                    m.slots_used -= whole
            if c.left <= 1e-6 and c.walk_s <= 1e-9:
                c.t_end = t0 + min(work, span)
                self.sim.emit("CLEANUP_DONE", c.member, c.userid,
                              f"{c.userid}: storage reset after {c.t_end - c.t_start:.1f} s",
                              {"seconds": round(c.t_end - c.t_start, 6)}, at=c.t_end)
