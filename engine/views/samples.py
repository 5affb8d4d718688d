"""Samples: every member's and guest's numbers at a point of simulated time, as typed records.

One pipeline feeds every reader. ``Simulation`` owns a ``Sampler`` that takes the run's samples
every ``sample_s`` (the run store, the CSV export, the report and the summary read them) and
keeps the per-step peaks and paging episodes. A viewer that wants samples more often (the
window draws every step) opens a ``SampleFeed`` at its own cadence: the same code makes its
records, from the live world, and taking them changes nothing in the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Protocol

from ..migrations.pause import PauseEngine
from ..migrations.relocation import Relocation, RelocationEngine
from ..world.state import Guest, Member
from ..world.world import World

# A paging episode of a guest ends after this long without page-outs (seconds).
EPISODE_GAP_S = 30.0


class MemberSample(NamedTuple):
    """One member at one sample time.

    A named tuple: its fields, in order, are the run store's ``member_samples`` columns and the
    CSV export's ``members.csv`` columns. Rates are pages per second over the time since the
    previous sample of the same sampler (0 at its first).
    """

    t_s: float
    member: str
    central_used: int  # frames in use (guest pages, their DAT tables, relocations' staging)
    free_frames: int
    xstor_used: int  # XSTOR blocks in use
    slots_used: int  # paging slots (DASD) in use
    page_in_s: float  # page faults served from XSTOR and DASD
    page_out_s: float  # pages stolen to XSTOR, written to DASD or stolen clean
    xstor_in_s: float
    dasd_in_s: float
    xstor_out_s: float
    dasd_out_s: float  # pages written to DASD (steals and migrations)
    migrate_s: float  # XSTOR pages moved on to DASD
    cpu_pct: float  # the member's CPU busy over the last step, percent


class GuestSample(NamedTuple):
    """One guest at one sample time (its fields are the ``guest_samples`` columns).

    ``throughput`` is the guest's work units per second since the previous sample; while Linux
    suspends or resumes that is the engine's stand-in work (``SampleSet.stand_in``).
    """

    t_s: float
    userid: str
    member: str  # "" while logged off
    state: str  # the scheduler's state (dispatch, eligible, dormant, ..., logged off)
    central: int  # pages in central storage
    xstor: int
    dasd: int
    throughput: float
    scheduled: int  # times a stopped guest was dispatched for an interrupt (CP STOP)


class LinkSample(NamedTuple):
    """One relocation's use of its link at one sample time (under way, or ended since the
    previous sample of the same sampler)."""

    userid: str
    start_s: float  # when the relocation started: with the user ID, names the relocation
    pages_per_s: float  # pages sent since the previous sample, per second
    link_pages_per_s: float  # what the link can carry for this relocation now
    pages_left: int  # still to send in the current pass


#: Phases of a Linux suspend or resume (``Pause`` action, phase) in which the engine runs
#: stand-in work for the guest (writing or reading its image, or nothing): the guest's own
#: workload does no work then.
STAND_IN_PHASES = frozenset({("suspend", "prepare"), ("suspend", "write"), ("resume", "boot"),
                             ("resume", "read"), ("resume", "restart")})


@dataclass(frozen=True)
class SampleSet:
    """Every member and guest at one sample time, members and guests in name order.

    Immutable through and through (tuples of named tuples of numbers and strings): safe to
    hand to another thread.
    """

    t_s: float
    members: tuple[MemberSample, ...]
    guests: tuple[GuestSample, ...]
    #: guests whose ``throughput`` is the engine's stand-in work for a Linux suspend or resume,
    #: not their workload's (which does nothing then)
    stand_in: frozenset[str] = frozenset()
    links: tuple[LinkSample, ...] = ()


class Sampled(World, Protocol):
    """What a sampler reads: the world, the pause and relocation engines, and how many steps a
    quiet member may skip (``Simulation.quiet_steps``)."""

    pause: PauseEngine
    reloc: RelocationEngine
    quiet_steps: int


class _Measure:
    """Takes ``SampleSet`` records of a world; rates cover the time since the previous one.

    A quiet member that skips steps (``Simulation.quiet_steps``) stands as of its last step:
    its figures, and its guests', are those of that step, and their rates cover the time from
    its step before the previous sample to its last one (a member not stepped since keeps its
    rates), so they come out steady, never as nothing for nine samples and ten times as much
    in the tenth.
    """

    def __init__(self, world: Sampled) -> None:
        self.world = world
        #: when the previous sample was taken (None: none yet; the first has rates 0)
        self.last_t: float | None = None
        self._counters: dict[str, tuple[int, ...]] = {}
        self._units: dict[str, float] = {}
        self._moved: dict[Relocation, int] = {}
        #: per member: the time it stood at in the previous sample, and its rates then
        self._asof: dict[str, float] = {}
        self._rates: dict[str, list[float]] = {}
        self._tput: dict[str, float] = {}

    def take(self) -> SampleSet:
        w = self.world
        t = round(w.t, 6)
        span = 0.0 if self.last_t is None else t - self.last_t
        members = []
        fresh: dict[str, float] = {}  # members stepped since the previous sample: their span
        for name in sorted(w.members):
            m = w.members[name]
            asof = round(t - m.lag * w.step_s, 6)
            now = m.counters.as_tuple()
            prev_t = self._asof.get(name)
            span_m = 0.0 if prev_t is None else asof - prev_t
            if prev_t is None or span_m > 0:
                prev = self._counters.get(name, (0,) * len(now))
                rates = [(a - b) / span_m if span_m > 0 else 0.0 for a, b in zip(now, prev)]
                self._counters[name] = now
                self._rates[name] = rates
                self._asof[name] = asof
                fresh[name] = span_m
            else:
                rates = self._rates[name]
            # counters: xstor_in, dasd_in, xstor_out, dasd_out, dasd_clean, migrated, new
            members.append(MemberSample(
                t, name, m.used_frames, m.free_frames, m.xstor_used, m.slots_used,
                rates[0] + rates[1], rates[2] + rates[3] + rates[4], rates[0], rates[1],
                rates[2], rates[3], rates[5], round(m.cpu_util * 100, 3),
            ))
        guests = []
        for uid in sorted(w.guests):
            g = w.guests[uid]
            on = g.member if g.member in w.members else None
            if on is None or on in fresh:
                span_g = span if on is None else fresh[on]
                prev_u = self._units.get(uid, 0.0)
                tput = (g.units_total - prev_u) / span_g if span_g > 0 else 0.0
                self._units[uid] = g.units_total
                self._tput[uid] = tput
            else:
                tput = self._tput.get(uid, 0.0)
            guests.append(GuestSample(
                t, uid, g.member or "", g.state, g.n_cen, g.n_xst, g.n_dsd, round(tput, 6),
                g.scheduled,
            ))
        links = []
        moved: dict[Relocation, int] = {}
        for r in w.reloc.all:
            if r.active:
                moved[r] = r.pages_moved
            elif r not in self._moved:
                continue  # ended before the previous sample: nothing more to say
            sent = r.pages_moved - self._moved.get(r, 0)
            links.append(LinkSample(r.guest.userid, round(r.t_start, 6),
                                    sent / span if span > 0 else 0.0,
                                    w.reloc.link_rate(r), r.send_left if r.active else 0))
        self._moved = moved
        self.last_t = t
        stand_in = frozenset(uid for uid, p in w.pause.active.items()
                             if (p.action, p.phase) in STAND_IN_PHASES)
        return SampleSet(t, tuple(members), tuple(guests), stand_in, tuple(links))


class SampleFeed:
    """Samples for a viewer at its own cadence, kept until it takes them.

    Open one with ``Simulation.sample_feed``; the simulation takes its samples after each step
    (and one when it is opened), and ``take_new`` hands over those since the last call.
    """

    def __init__(self, world: Sampled, every_s: float) -> None:
        self.every_s = every_s
        self._measure = _Measure(world)
        self._new: list[SampleSet] = [self._measure.take()]

    def after_step(self, t: float, at_least_s: float = 0.0) -> None:
        """Take a sample if one is due at simulated time ``t`` (the simulation calls this),
        at least ``at_least_s`` after the previous one."""
        last = self._measure.last_t
        if last is None or t - last >= max(self.every_s, at_least_s) - 1e-9:
            self._new.append(self._measure.take())

    def take_new(self) -> tuple[SampleSet, ...]:
        """The samples taken since the last call, oldest first."""
        new = tuple(self._new)
        self._new.clear()
        return new


class Sampler:
    """The run's samples, every ``sample_s``, and the per-step peaks and paging episodes.

    ``members`` and ``guests`` are the run's records (``Simulation.samples_member`` and
    ``samples_guest`` are these lists): the run store saves them, the CSV export writes them,
    the summary and INDICATE LOAD read them.
    """

    def __init__(self, world: Sampled, sample_s: float) -> None:
        self.world = world
        self.sample_s = sample_s
        self.members: list[MemberSample] = []
        self.guests: list[GuestSample] = []
        self._measure = _Measure(world)
        self._feeds: list[SampleFeed] = []

    def take(self) -> SampleSet:
        """Take the run's sample now."""
        s = self._measure.take()
        self.members.extend(s.members)
        self.guests.extend(s.guests)
        return s

    def next_due(self) -> float:
        """Simulated time of the run's next sample."""
        last = self._measure.last_t
        return 0.0 if last is None else last + self.sample_s

    def after_step(self) -> None:
        """Take the run's sample when it is due, and the feeds' (after every step).

        While quiet members skip steps (``Simulation.quiet_steps``, each member on its own
        turn), a feed's sample is taken at most once every ``quiet_steps`` steps: each member
        has been stepped once since the previous one, and shows as of its last step, at most
        that far behind. When every member is up to date (something under way, or a run's own
        sample, a boundary no member steps over), at the feed's own cadence.
        """
        w = self.world
        t = w.t
        last = self._measure.last_t
        if last is None or t - last >= self.sample_s - 1e-9:
            self.take()
        if self._feeds:
            lagging = any(m.lag for m in w.members.values())
            quiet_s = w.quiet_steps * w.step_s
            for f in self._feeds:
                f.after_step(t, quiet_s if lagging else 0.0)

    def feed(self, every_s: float) -> SampleFeed:
        """A feed of samples every ``every_s`` simulated seconds, from now on."""
        f = SampleFeed(self.world, every_s)
        self._feeds.append(f)
        return f

    # -- every step: peaks and paging episodes --------------------------------------------------
    def note_member(self, m: Member) -> None:
        """Keep the member's storage peaks (every step: a sample sees only every
        ``sample_s``) and report paging space going over half full."""
        m.peak["central"] = max(m.peak["central"], m.used_frames)
        m.peak["xstor"] = max(m.peak["xstor"], m.xstor_used)
        m.peak["slots"] = max(m.peak["slots"], m.slots_used)
        if m.cfg.slots and not m.half_full_reported and m.slots_used * 2 > m.cfg.slots:
            m.half_full_reported = True
            self.world.emit("PAGING_50PCT", m.name, None,
                            f"{m.name}: paging space is over 50 % full ({m.slots_used} of "
                            f"{m.cfg.slots} slots)")

    def note_guest(self, m: Member, g: Guest) -> None:
        """Keep the guest's page peaks and end its paging episode after a quiet spell."""
        g.peak["central"] = max(g.peak["central"], g.n_cen)
        g.peak["xstor"] = max(g.peak["xstor"], g.n_xst)
        g.peak["dasd"] = max(g.peak["dasd"], g.n_dsd)
        t = self.world.t
        if g.episode_start is not None and t - g.episode_last_out > EPISODE_GAP_S:
            self.world.emit("PAGEOUT_END", m.name, g.userid,
                            f"{g.userid} lost {g.episode_pages} pages since "
                            f"t={g.episode_start:.0f}s",
                            {"pages": g.episode_pages, "since_s": g.episode_start})
            g.episode_start = None
