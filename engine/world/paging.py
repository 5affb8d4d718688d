"""Paging: CP's demand scan (stealing frames, dormant guests first), the migration of aged
XSTOR pages to DASD, and the page-out bookkeeping and events that go with them.

The simulation core calls ``Pager.steal`` and ``Pager.migrate`` once per member and step; the
kernels in ``kernels.pages`` do the page-level work over the bit-planes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import groupby
from typing import Protocol

import numpy as np

from ..kernels import pages as K
from .state import STATE_CLASS, Guest, Member
from .world import World


@dataclass(frozen=True)
class PagingModel:
    """CP's own costs of paging: CPU per fault and per page moved, and the XSTOR free target.

    Orders of magnitude of CP's instruction paths on the machines of the calibration cases
    (z10 to z16): a page fault resolved from XSTOR is a synchronous move of one page plus the
    fault path (about 15 us); a DASD fault costs CP its fault path and the I/O set-up, the wait
    itself being the device's (``dasd_wait_s``); a first touch takes a frame off the free list
    and clears it. None of the calibration cases pages, so these are stated, not fitted.
    """

    #: A page fault served from XSTOR: synchronous, this long (seconds of the guest's CPU).
    xstor_fault_s: float = 15e-6
    #: CPU CP spends handling a DASD page fault (the wait itself is the device's).
    dasd_fault_cpu_s: float = 8e-6
    #: First touch of a page: CP finds and clears a frame.
    new_page_s: float = 1.5e-6
    #: CPU of CP's own paging work, charged to the member, seconds per page moved (a
    #: relocation's read of a page from the source's XSTOR too, on its way).
    cp_cpu_per_page_s: float = 4e-6
    #: XSTOR migration starts when less than this share of blocks is free, and frees twice it.
    xstor_free_target: float = 0.05
    #: Free frames are kept between a low and a high mark: when a walk finds none free the
    #: demand scan frees some for it, and at the end of a step (or of a round of one) it
    #: refills them up to the high mark; a relocation's inbound pages and staging take only
    #: frames above the low mark. CP's marks adjust themselves (z/VM 7.3 control block
    #: THRESHOL: a low and a high threshold, counts of the times they were raised because the
    #: available list ran empty or came close to it, and of the times they were lowered): a
    #: member whose guests take frames fast keeps many free, one whose guests take none keeps
    #: few. So the low mark holds the frames the member's guests, arriving relocations and CP
    #: took (net, ``Member.taken``) in ``free_horizon_s`` at the pace of its last step (at
    #: least 64), and the high mark twice that (at least 128); neither above
    #: ``free_low_share`` and ``free_high_share`` of the frames for guests, and both at those
    #: ceilings after a step in which a walk found no frame free. Assumed: a
    #: tenth of a second, a demand scan's pass with its writes queued behind the devices'
    #: reads; no source gives it (docs/model.md, "Assumptions", shows what it moves).
    free_horizon_s: float = 0.1
    free_low_share: float = 0.005
    free_high_share: float = 0.01
    #: Pages per paging I/O. CP can write the pages it steals from a guest in blocks to
    #: contiguous slots, and read the whole block back on a fault on one of them (block
    #: paging); an I/O of n pages takes the device's service time plus n - 1 pages' transfer
    #: at its rate (``mb_s``). No calibration case pins the block size, and results of heavy
    #: paging hang on it (docs/model.md, "Block paging"), so the default is 1 page per I/O;
    #: a scenario studies blocks with ``[model.paging] block_pages``.
    block_pages: int = 1
    #: CP's page management block (PGMBK) for one megabyte of a guest's storage: its page
    #: table, page status table and CP's own entries for the megabyte's 256 pages, 8 KiB
    #: (z/VM 7.3 CP control block PGM64, "Page Management Block": two 4 KiB pages,
    #: PGMGBKLN = X'2000'). CP builds one when a page of the megabyte is first instantiated
    #: and keeps it in central storage while the guest holds any page of it, so a guest's DAT
    #: tables take 2 frames per megabyte it has touched, beside its pages.
    pgmbk_kib: float = 8.0

    def free_marks(self, frames: int, rate: float) -> tuple[int, int]:
        """The low and high marks of a member of ``frames`` frames for guests whose free
        frames were taken at ``rate`` a second (``free_horizon_s``; ``inf``: at their
        ceiling)."""
        low_cap = int(frames * self.free_low_share + 1e-6)
        high_cap = int(frames * self.free_high_share + 1e-6)
        want = math.inf if rate == math.inf else rate * self.free_horizon_s
        return (max(64, low_cap if want >= low_cap else int(want)),
                max(128, high_cap if 2 * want >= high_cap else int(2 * want)))

    @property
    def frames_per_seg(self) -> float:
        """Frames one megabyte's page management block takes (``Member.frames_per_seg``)."""
        return self.pgmbk_kib / 4.0


PAGING = PagingModel()


class PagingWorld(World, Protocol):
    """What the pager needs of the simulation besides the ``World``: a member's guests."""

    def guests_on(self, member: str) -> list[Guest]:
        """The guests logged on to ``member``, in user ID order."""
        ...


def dasd_wait_s(m: Member, block: int = 1) -> float:
    """How long a virtual CPU waits for a DASD page fault on ``m``: the devices' service time
    and the transfer of the ``block`` pages the I/O reads, and the wait for a device when more
    reads wait than the devices serve at once.

    A virtual CPU waiting for a page fault has one read outstanding and starts no other: the
    faulting virtual CPUs and the devices are a closed queue. ``Member.fault_places`` is how many
    reads the guests held in the devices on average in the member's last step (their reads a second
    times their wait, Little's law; every virtual CPU that can fault, ``Guest.faulters``, of a guest
    whose reads found the step's paging I/O used up). With no more than the devices' concurrency
    (their queue depths; volumes on one device count once) each read is served at once; with more,
    each waits its turn, ``n / concurrency`` service times (the closed queue's asymptote when the
    virtual CPUs do little between faults). The step's paging I/O budget (``Member.io_capacity_s``)
    bounds what the devices move in all. Virtual CPUs that keep faulting hold their places whatever
    the wait (Little's law gives them back), so the figure does not swing from step to step as the
    devices' use in the step before did (a busy member's faults alternated between floods and
    standstills); a guest with pages on DASD that no longer faults holds none.
    """
    if m.service_s <= 0:
        return 0.01
    served = m.service_s * (1.0 + (block - 1) * m.xfer_ratio)
    return served * max(1.0, m.fault_places / max(1, m.io_concurrency))


def moves_io_share(m: Member) -> float:
    """The share of ``m``'s paging I/O a relocation's reads of its guest's pages on DASD may
    use beside the guests' page faults: for storage, existing work comes first.

    A virtual CPU waiting for a page holds one of the devices' places with its read;
    ``Member.fault_places`` is how many the guests' reads held on average in the member's last
    step (``dasd_wait_s``). The relocation keeps as many reads queued as places are left, and
    one when none is (CP throttles it while the paging queue is deep, but it waits its turn in
    it): of ``concurrency`` places with ``f`` held, ``max(1, concurrency - f)`` requests served
    beside ``f`` (the same closed queue as the faults').
    """
    conc = max(1, m.io_concurrency)
    busy = m.fault_places
    mine = max(1.0, conc - busy)
    return mine / max(conc, busy + mine)


def io_units(m: Member, ios: int, pages: int) -> float:
    """Paging I/O budget ``ios`` I/Os moving ``pages`` pages use on ``m``: a service time each
    (which covers one page), and the transfer of each further page at the devices' rate (the
    step's budget counts service times, ``Member.io_capacity_s``; the rate is shared by every
    I/O in a device's queue)."""
    return ios + max(0, pages - ios) * m.xfer_units


def io_budget(m: Member, io_left: float, block: int) -> int:
    """How many I/Os of ``block`` pages fit in what is left of the step's paging I/O."""
    return int(io_left / (1.0 + (block - 1) * m.xfer_units))


class Pager:
    """The demand scan and XSTOR migration of one simulation.

    Parameters
    ----------
    world : PagingWorld
        The simulation (its clock, events and guests).
    incoming_on : callable
        The guests arriving by relocation on a member: their frames count, and can be stolen.
    """

    def __init__(self, world: PagingWorld, incoming_on: Callable[[str], list[Guest]],
                 model: PagingModel = PAGING) -> None:
        self.world = world
        self.incoming_on = incoming_on
        self.model = model
        self._steal_out = np.zeros(K.S_OUT_LEN, dtype=np.int64)
        self._steal_tot = np.zeros(K.SS_OUT_LEN, dtype=np.int64)
        self._io = np.zeros(1, dtype=np.float64)
        self._mig_out = np.zeros(K.M_OUT_LEN, dtype=np.int64)

    def steal(self, m: Member, want: int, io_left: list[float],
               protect: Guest | None = None) -> int:
        """CP's demand scan: free up to ``want`` frames, dormant guests first.

        CP walks its lists in order: the dormant list first, the guest dormant longest first,
        taking a guest's unreferenced pages before moving on to the next, so a few idle guests
        give most of the frames; then the eligible and the dispatch list, whose guests are all
        at work, each giving in proportion to its resident pages. A visit of those lists
        resumes where the last one left off: after the guest it ended with, or at that guest
        when the visit had what it wanted before the guest gave its whole share. So when the
        paging devices' queue fills before a visit is through, or a visit is done before its
        last guest's share, it is not the same guests every time that give the less (every
        visit beginning with the same guest made it give the most). Pages referenced since the
        last visit get a second chance; reserved pages (SET RESERVED) are protected. Two clock
        passes over each list; only then are referenced pages taken, in the same order.
        """
        if want <= 0:
            return 0
        if m.cfg.xstor_pages > 0 and m.xstor_free < want and m.slots_free > 0:
            # XSTOR is full: its oldest blocks go on to DASD to make room for the pages taken
            # now (likelier to be wanted again), rather than these going to DASD past them (a
            # full XSTOR never migrated while the guests' reads and the scan's writes used all
            # of the paging devices, and the paused guests' pages held it while the busy
            # guests' went to DASD). The same writes either way; only which pages they carry
            self.migrate(m, want - m.xstor_free, io_left)
        guests = [g for g in self.world.guests_on(m.name) + self.incoming_on(m.name)
                  if g.n_cen > g.set_reserved and g is not protect]
        guests.sort(key=lambda g: (g.class_since, g.userid))
        got = 0
        passes = [(c, False) for c in (0, 0, 1, 1, 2, 2)] + [(c, True) for c in (0, 1, 2)]
        for cls, take_ref in passes:
            need = want - got
            if need <= 0:
                break
            cands = [g for g in guests if STATE_CLASS.get(g.state, 0) == cls
                     and g.n_cen > g.set_reserved]
            if cls:  # (the lists in a fixed order: by user ID)
                cands.sort(key=lambda g: g.userid)
                at, after = m.scan_next
                k = next((i for i, g in enumerate(cands)
                          if g.userid > at or (g.userid == at and not after)), 0)
                cands = cands[k:] + cands[:k]
            if cls == 0:
                # dormant: the longest dormant gives all it can first (guests dormant equally
                # long, in proportion: ``_from_group``)
                def take(g: Guest, share: int, io: list[float],
                         ref: bool = take_ref) -> tuple[int, bool]:
                    return self.steal_from(m, g, share, ref, io)

                for _, tied in groupby(cands, key=lambda g: g.class_since):
                    n, stop = self._from_group(m, list(tied), lambda g: g.n_cen - g.set_reserved,
                                               want - got, io_left, take)
                    got += n
                    if stop:
                        return got
                continue
            total = sum(g.n_cen - g.set_reserved for g in cands)
            for g in cands:  # at work: each in proportion
                avail = g.n_cen - g.set_reserved
                whole = min(avail, max(1, math.ceil(need * avail / total)))
                share = min(whole, want - got)
                # (the next visit: after this guest, or at it if it gave less than its share)
                m.scan_next = (g.userid, share >= whole)
                if share > 0:
                    n, stop = self._give(m, g, share, take_ref, io_left, want - got)
                    got += n
                    if stop:
                        return got
        return got

    def _from_group(self, m: Member, group: list[Guest], has: Callable[[Guest], int],
                    want: int, io_left: list[float],
                    take: Callable[[Guest, int, list[float]], tuple[int, bool]]
                    ) -> tuple[int, bool]:
        """Guests as old on CP's lists as each other (one, or several dormant equally long)
        give up to ``want`` of what they have (``has``): several give in proportion to it,
        each with its part of the paging I/O the group had, and what their parts leave goes to
        them again, in turn, before the next guest. ``take(g, share, io)`` takes up to
        ``share`` from ``g`` within the budget ``io`` (which it lowers): how many, and whether
        it was blocked. How many the group gave, and whether the visit is over (the paging
        devices' queue or the slots are full, or ``want`` is had)."""
        got = 0
        if len(group) > 1:
            had = io_left[0]
            total = sum(has(g) for g in group)
            for g in group:
                part = has(g) / total
                io = [min(io_left[0], had * part)]
                io0 = io[0]
                n, blocked = take(g, min(has(g), max(1, math.ceil(want * part)), want - got),
                                  io)
                io_left[0] -= io0 - io[0]
                got += n
                if got >= want:
                    return got, True
                if blocked and m.slots_free <= 0:
                    self.note_blocked(m)
                    return got, True
        for g in group:
            share = min(has(g), want - got)
            if share > 0:
                n, blocked = take(g, share, io_left)
                got += n
                if blocked:
                    self.note_blocked(m)
                if blocked or got >= want:
                    return got, True
        return got, False

    def _give(self, m: Member, g: Guest, share: int, take_ref: bool, io_left: list[float],
              still: int) -> tuple[int, bool]:
        """``g`` gives up to ``share`` pages: how many it gave, and whether the visit is over
        (the paging devices' queue or the slots are full, or the ``still`` wanted are had)."""
        n, blocked = self.steal_from(m, g, share, take_ref, io_left)
        if blocked:
            self.note_blocked(m)
        return n, blocked or n >= still

    def adjust_marks(self, m: Member, t: float) -> None:
        """Set ``m``'s free-frame marks at time ``t`` from the pace frames were taken at since
        they were last set (``PagingModel.free_marks``)."""
        t0, taken0 = m.marks_at
        taken = m.taken
        rate = max(0, taken - taken0) / (t - t0) if t > t0 else 0.0
        if m.ran_empty:
            rate = math.inf  # (a walk waited for a frame: raised to their ceiling)
        m.free_low, m.free_high = self.model.free_marks(m.frames, rate)
        m.marks_at = (t, taken)
        m.ran_empty = False

    def make_room(self, m: Member, io_left: list[float], dt: float,
                  io_walk: float | None = None) -> int:
        """Free frames for guests that ran out of them while they run: a piece of the refill to
        ``free_high`` at a time.

        The demand scan's writes and the guests' page reads share the paging devices' queue
        and interleave in it. A step is longer than one demand scan, so freeing all the way to
        ``free_high`` at once would spend the step's paging I/O on writes before a single read,
        and the guests would stand still for the rest of the step (then run without paging the
        step after: an oscillation of the step, not of the system). At most an eighth of what
        the devices serve in ``dt`` at a time (at least a block) keeps the two interleaved at
        any step length; a member without paging devices steals only to XSTOR, which costs no
        device time, and refills at once.

        ``io_left`` is what is left of the paging I/O of the walk that ran out of frames
        (``io_walk``: all of its part of the step), and the piece is at most what half of its
        part writes: a fault costs the write that frees its frame and the read that fills it.
        (A walk that spent all of its I/O on writes had none left for its read, and the frames
        it freed went to the walks after it in the step: of eight touchers of a guest, the
        first stood still for 50 s while it paid for the others' frames.)
        """
        # (the list ran empty: CP raises its thresholds, THRESHOL's "incremented, hit zero",
        # to their ceilings when the marks are next set. Raised at once, the first piece freed
        # after the walk that ran out was a whole refill to the ceiling, taken from the guests
        # the walks had not reached yet: of two alike idle guests in overcommit.toml one wrote
        # out 388,000 pages and the other 320,000 with every first touch walked)
        m.ran_empty = True
        want = max(m.free_high - m.free_frames, 256)
        if m.io_capacity_s > 0:
            block = self.model.block_pages
            per_page = (1.0 + (block - 1) * m.xfer_units) / block  # (a write, in blocks)
            walk = io_left[0] if io_walk is None else io_walk
            want = min(want, max(block, min(int(m.io_capacity_s * dt / 8),
                                             int(walk / (2.0 * per_page)))))
        return self.steal(m, want, io_left)

    def steal_from(self, m: Member, g: Guest, want: int, take_ref: bool,
                    io_left: list[float]) -> tuple[int, bool]:
        """Take up to ``want`` pages of one guest, from the slices of its storage its walks
        touched longest ago first, a share from each slice touched at the same time
        (``K.steal_slices``: one hand per slice; a small steal visits a few slices, the next
        steal the following ones, so the cost stays with the pages taken)."""
        assert g.planes is not None
        g.flush_pending()
        tot = self._steal_tot
        self._io[0] = io_left[0]
        order, ostamp = g.slices_by_age()
        K.steal_slices(g.planes, g.steal_cursors, g.slice_clear, order, ostamp, g.steal_slice,
                       (g.npages + 63) // 64, want,
                       take_ref, m.xstor_free, m.slots_free, self._io, m.xfer_units,
                       self.model.block_pages, self._steal_out, tot)
        io_left[0] = float(self._io[0])
        if tot[K.SS_ANY_CLEAR]:
            g.any_clear = True
        g.steal_slice = int(tot[K.SS_LAST])
        got = int(tot[K.SS_GOT])
        if not got:
            return 0, bool(tot[K.SS_BLOCKED])
        to_x, to_dw, to_dc = (int(tot[K.SS_TO_XSTOR]), int(tot[K.SS_TO_DASD_WRITTEN]),
                              int(tot[K.SS_TO_DASD_CLEAN]))
        net = int(tot[K.SS_SLOTS_NET])
        g.n_cen -= got
        g.n_xst += to_x
        g.n_dsd += to_dw + to_dc
        g.n_slot += net
        m.resident -= got
        m.xstor_used += to_x
        m.slots_used += net
        for c in (g.counters, m.counters):
            c.xstor_out += to_x
            c.dasd_out += to_dw
            c.dasd_clean += to_dc
        # the episode's events in the order the slices gave their pages
        fx, fd = int(tot[K.SS_FIRST_XSTOR]), int(tot[K.SS_FIRST_DASD])
        if fx >= 0 and fd > fx:
            self.note_pageout(m, g, to_x, 0)
            self.note_pageout(m, g, 0, to_dw + to_dc)
        elif fd >= 0 and fx > fd:
            self.note_pageout(m, g, 0, to_dw + to_dc)
            self.note_pageout(m, g, to_x, 0)
        else:
            self.note_pageout(m, g, to_x, to_dw + to_dc)
        g.page_gen += 1
        return got, bool(tot[K.SS_BLOCKED])

    def migrate(self, m: Member, want: int, io_left: list[float]) -> int:
        """Move aged XSTOR pages on to DASD, the oldest first: the blocks of the guest dormant
        longest (whose pages went to XSTOR earliest and have not been wanted since), all of them,
        before the next guest's (guests dormant equally long, in proportion to their blocks);
        within a guest, clock-wise through its storage from where its last migration stopped
        (no age is kept for a block)."""
        if want <= 0:
            return 0
        guests = [g for g in self.world.guests_on(m.name) + self.incoming_on(m.name)
                  if g.n_xst > 0]
        guests.sort(key=lambda g: (STATE_CLASS.get(g.state, 0), g.class_since, g.userid))
        moved = 0
        out = self._mig_out
        block = self.model.block_pages

        def take(g: Guest, share: int, io: list[float]) -> tuple[int, bool]:
            """Migrate up to ``share`` of ``g``'s blocks within ``io``: how many, and whether
            it was blocked."""
            nonlocal moved
            assert g.planes is not None
            K.migrate_xstor(g.planes, g.migrate_cursor, share, io_budget(m, io[0], block),
                            m.slots_free, out, block)
            n = int(out[0])
            g.migrate_cursor = int(out[1])
            g.n_xst -= n
            g.n_dsd += n
            g.n_slot += n
            m.xstor_used -= n
            m.slots_used += n
            io[0] -= io_units(m, int(out[3]), n)
            moved += n
            for c in (g.counters, m.counters):
                c.migrated += n
                c.dasd_out += n
            if n:
                self.note_pageout(m, g, 0, n)
            return n, bool(out[2])

        for cls in (0, 1, 2):
            cands = [g for g in guests if STATE_CLASS.get(g.state, 0) == cls]
            # the next guest, or the guests whose pages are as old (``class_since`` tied)
            for _, tied in groupby(cands, key=lambda g: g.class_since):
                _, stop = self._from_group(m, list(tied), lambda g: g.n_xst, want - moved,
                                           io_left, take)
                if stop:
                    return moved
        return moved

    def note_pageout(self, m: Member, g: Guest, to_xstor: int, to_dasd: int) -> None:
        for tier, n in (("xstor", to_xstor), ("dasd", to_dasd)):
            if n and tier not in g.first_out:
                g.first_out[tier] = self.world.t
                self.world.emit("PAGEOUT_FIRST", m.name, g.userid,
                          f"{g.userid}: first pages moved to {tier.upper()}", {"tier": tier})
        if g.episode_start is None:
            g.episode_start = self.world.t
            g.episode_pages = 0
            self.world.emit("PAGEOUT_START", m.name, g.userid, f"{g.userid} is losing pages")
        g.episode_pages += to_xstor + to_dasd
        g.episode_last_out = self.world.t

    def note_blocked(self, m: Member) -> None:
        if m.slots_free <= 0 and not m.dasd_full_reported:
            m.dasd_full_reported = True
            self.world.emit("PAGING_FULL", m.name, None,
                      f"{m.name}: all {m.cfg.slots} paging slots are in use")
