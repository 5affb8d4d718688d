"""Put what was read together into a scenario: members, paging volumes, links and guests,
each value with a comment naming the file and line it came from, or saying it was assumed."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from ssisim.engine import MAX_LINK_CTCS

from .directory import Directory, Guest, resolve
from .notes import PAGES_PER_MB, Notes, Where
from .queries import MemberFacts, PageVolume, Queries
from .sysconfig import SystemConfig
from .workload_map import Rule, workload_for

PAGES_PER_GB = 1024 * PAGES_PER_MB
MAX_PAGES = 64 * 1024 * PAGES_PER_GB  # 64T, the largest size a scenario takes
MAX_MEMBERS = 4
#: Without INDICATE LOAD: the scenario format's default number of logical processors.
DEFAULT_CPUS = 4
#: Without QUERY ALLOC PAGE: a full-pack 3390 model 9 paging volume, 10,017 cylinders of which
#: cylinder 0 holds the label, 180 pages per cylinder (IBM 3390 geometry).
ASSUMED_VOLUME_SLOTS = 10016 * 180
#: Without ACTIVATE ISLINK: one FICON CHPID at 8 Gbit/s carrying 4 CTC devices.
ASSUMED_CHPID_GBPS = 8
ASSUMED_CTCS = 4
_PAGING_NAME = re.compile(r"(P\d{1,3}|PAG\w*|PG\d+)$|^PAG", re.IGNORECASE)


@dataclass
class Sourced:
    """A value and where it came from (a file and line, or why it was assumed)."""

    value: Any
    origin: str


@dataclass
class MemberPlan:
    """One ``[[member]]`` table to write."""

    name: str
    origin: str
    cpus: Sourced
    central: Sourced
    xstor: Sourced
    #: volid, slots, rdev ("" when unknown), origin
    volumes: list[tuple[str, int, str, str]] = field(default_factory=list)


@dataclass
class GuestPlan:
    """One ``[[guest]]`` table to write."""

    userid: str
    origin: str
    member: Sourced
    storage: Sourced
    logged_on: bool
    vcpus: Sourced | None = None
    share: Sourced | None = None
    share_absolute: Sourced | None = None
    set_reserved: Sourced | None = None
    standby: Sourced | None = None
    reserved: Sourced | None = None
    workload: Rule | None = None
    remarks: list[str] = field(default_factory=list)
    storage_pages: int = 0


@dataclass
class Plan:
    """Everything the scenario will hold."""

    name: str
    sources: list[str]
    members: list[MemberPlan]
    links: list[tuple[str, str, list[tuple[int, int]], str]]  # a, b, [(gbps, ctcs)], origin
    guests: list[GuestPlan]
    timeline: list[tuple[str, str]]  # command, origin


def size_text(pages: int) -> str:
    """Pages as an exact CP size: ``4G``, ``1536M``, ``2052K``."""
    if pages == 0:
        return "0"
    if pages % PAGES_PER_GB == 0:
        return f"{pages // PAGES_PER_GB}G"
    if pages % PAGES_PER_MB == 0:
        return f"{pages // PAGES_PER_MB}M"
    return f"{pages * 4}K"


def _members(d: Directory, sc: SystemConfig | None, q: Queries | None,
             notes: Notes) -> list[tuple[str, str]]:
    """Member names with where they came from, in SSI slot order."""
    if sc is not None and sc.members:
        found = [(n, w.cite()) for n, w in sc.members]
    else:
        found = []
        guests = {e.name for e in d.guests}
        from_queries = [m for m in (q.members if q else {}) if m not in guests]
        for m in from_queries:
            found.append((m, "named by the saved CP responses"))
        for m in d.members_named():
            if m not in from_queries:
                found.append((m, "named on BUILD ON statements"))
        why = "no SSI statement" if sc is not None else "no SYSTEM CONFIG"
        if found:
            notes.assume(f"members {', '.join(m for m, _ in found)}: {why}; taken from "
                         f"{'the saved responses' if from_queries else 'BUILD ON statements'}")
        else:
            found = [("MEMB1", "assumed: no member is named anywhere")]
            notes.assume(f"one member, MEMB1: {why} and no member is named anywhere")
    if len(found) > MAX_MEMBERS:
        notes.problem(sc.file if sc is not None else "members",
                      f"{len(found)} members; ssisim models at most {MAX_MEMBERS}: "
                      f"{', '.join(m for m, _ in found[MAX_MEMBERS:])} left out")
        found = found[:MAX_MEMBERS]
    return found


def _placements(d: Directory, members: list[str], q: Queries | None,
                notes: Notes) -> dict[str, list[tuple[str, Where]]]:
    """Where QUERY NAMES shows each user logged on: user ID -> [(member, entry)]."""
    seen: dict[str, list[tuple[str, Where]]] = {}
    for m in members:
        facts = q.members.get(m) if q else None
        for userid, at, where in (facts.names or []) if facts else []:
            place = at or m
            if place not in members:
                notes.problem(where, f"{userid} is shown AT {place}, not a member; ignored")
                continue
            seen.setdefault(userid, []).append((place, where))
    known = {e.name for e in d.guests}
    for userid, places in seen.items():
        if userid not in known:
            notes.ignore("logged-on user not in the directory", places[0][1])
    return seen


def build_plan(d: Directory, sc: SystemConfig | None, q: Queries | None, rules: list[Rule],
               sources: list[str], notes: Notes) -> Plan:
    """Decide every value of the scenario, with its origin; report what had to be assumed."""
    found = _members(d, sc, q, notes)
    names = [m for m, _ in found]
    facts = {m: (q.members.get(m) if q else None) or MemberFacts() for m in names}
    if q is not None:
        for extra in q.members:
            if extra not in names and extra not in {e.name for e in d.guests}:
                notes.ignore(f"saved responses of {extra} (not a member)", Where(extra))
    seen = _placements(d, names, q, notes)
    with_names = [m for m in names if facts[m].names is not None]
    guests = _guests(d, names, with_names, seen, q, rules, notes)
    if not guests:
        from .notes import InputError

        raise InputError(f"{d.file}: nothing to import: no USER or IDENTITY entry could be used")
    members = [_member(m, origin, facts[m], sc, guests, notes) for m, origin in found]
    for v in (sc.volumes if sc else []):
        if v.member is not None and v.member not in names:
            notes.problem(v.where, f"CP_OWNED SLOT {v.slot} {v.volid} belongs to {v.member}, "
                          f"not a member of the cluster ({', '.join(names)}): not imported")
    links = _links(names, sc, notes)
    timeline = [(f"SET SHARE {g.userid} ABSOLUTE {g.share_absolute.value:g}%",
                 g.share_absolute.origin)
                for g in guests if g.share_absolute is not None and g.logged_on]
    for r in rules:
        if r.used == 0:
            notes.say(f"{r.where}: pattern {r.pattern} matches no imported guest")
    title = f"{sc.cluster} (imported)" if sc is not None and sc.cluster else "Imported shop"
    return Plan(title, sources, members, links, guests, timeline)


def _guests(d: Directory, names: list[str], with_names: list[str],
            seen: dict[str, list[tuple[str, Where]]], q: Queries | None, rules: list[Rule],
            notes: Notes) -> list[GuestPlan]:
    out: list[GuestPlan] = []
    robin = 0
    candidates = [m for m in names if m not in with_names] or names
    everywhere_known = bool(with_names) and len(with_names) == len(names)
    for e in d.guests:
        if e.nolog:
            notes.ignore("NOLOG entry (cannot log on)", e.where)
            continue
        builds = [m for m, _, _ in e.builds if m in names]
        for m, _, at in e.builds:
            if m not in names:
                notes.problem(at, f"BUILD ON {m}: {m} is not a member")
        places = seen.get(e.name, [])
        logged_on = True
        if places:
            member = Sourced(places[0][0], places[0][1].cite())
            if len(places) > 1:
                where = ", ".join(p for p, _ in places)
                if e.kind == "IDENTITY":
                    notes.say(f"{e.name} (IDENTITY) is logged on on {where}; a scenario holds "
                              f"one guest per user ID: imported on {places[0][0]} only")
                else:
                    notes.problem(places[1][1], f"{e.name} is a USER shown logged on on "
                                  f"{where}; imported on {places[0][0]}")
        elif everywhere_known:
            target = builds[0] if builds else names[robin % len(names)]
            if not builds:
                robin += 1
            logged_on = False
            member = Sourced(target, "not in any QUERY NAMES: defined, not logged on; "
                             f"{'its first BUILD ON member' if builds else 'round robin'}")
        else:
            pool = [m for m in builds if m in candidates] or builds
            if pool:
                target, rule = pool[0], "its first BUILD ON member"
            else:
                target, rule = candidates[robin % len(candidates)], "round robin"
                robin += 1
            why = "no QUERY NAMES" if not with_names else "not in any QUERY NAMES given"
            member = Sourced(target, f"assumed: {why}; {rule}")
            notes.assume(f"{e.name} placed on {target}: {why}; {rule}")
        g = resolve(d, e, notes, member.value if e.kind == "IDENTITY" else None)
        plan = _guest(g, member, logged_on, q, notes)
        if plan is None:
            continue
        plan.workload = workload_for(rules, g.userid)
        out.append(plan)
    return out


def _guest(g: Guest, member: Sourced, logged_on: bool, q: Queries | None,
           notes: Notes) -> GuestPlan | None:
    v = q.guests.get(g.userid) if q else None
    storage = v.storage if v and v.storage else g.storage
    if storage is None:
        notes.problem(g.where, f"{g.userid}: no storage is defined (USER statement or STORAGE); "
                      "skipped")
        return None
    if not 0 < storage[0] <= MAX_PAGES:
        notes.problem(storage[1], f"{g.userid}: storage {size_text(storage[0])} is outside "
                      "1 page to 64T; skipped")
        return None
    plan = GuestPlan(g.userid, g.where.cite(), member,
                     Sourced(size_text(storage[0]), storage[1].cite()), logged_on,
                     storage_pages=storage[0])
    if g.vcpus_where is not None or g.vcpus != 1:
        plan.vcpus = Sourced(g.vcpus, (g.vcpus_where or g.where).cite())
    share = g.values.get("share")
    if share is not None:
        (value, absolute), at = share
        if absolute:
            plan.share_absolute = Sourced(value, at.cite())
            if not logged_on:
                notes.say(f"{at}: {g.userid} is not logged on; its ABSOLUTE share is not set")
        else:
            plan.share = Sourced(value, at.cite())
    for key in ("set_reserved", "standby", "reserved"):
        got = (getattr(v, key) if v is not None and key != "set_reserved" else None) \
            or g.values.get(key)
        if got is not None and got[0] > 0:
            if got[0] > MAX_PAGES:
                notes.problem(got[1], f"{g.userid}: {key} is more than 64T; left out")
                continue
            shown = got[0] if key == "set_reserved" else size_text(got[0])
            setattr(plan, key, Sourced(shown, got[1].cite()))
    machine = g.values.get("machine")
    if machine is not None:
        plan.remarks.append(f"machine mode {machine[0]}: {machine[1].cite()}")
    most = g.values.get("maxstorage")
    if most is not None and storage[0] > most[0] and storage is not (v.storage if v else None):
        notes.problem(storage[1], f"{g.userid}: storage {size_text(storage[0])} is more than its "
                      f"MAXSTORAGE {size_text(most[0])} (line {most[1].line}), which z/VM does "
                      f"not accept; {size_text(storage[0])} imported")
    if most is not None:
        plan.remarks.append(f"maximum storage {size_text(most[0])} ({most[1]}): only limits "
                            "DEFINE STORAGE; not modelled")
    return plan


def _member(name: str, origin: str, f: MemberFacts, sc: SystemConfig | None,
            guests: list[GuestPlan], notes: Notes) -> MemberPlan:
    if f.cpus is not None:
        cpus = Sourced(min(256, f.cpus[0]), f.cpus[1].cite())
    else:
        cpus = Sourced(DEFAULT_CPUS, "assumed: no INDICATE LOAD")
        notes.assume(f"{DEFAULT_CPUS} CPUs for {name}: no INDICATE LOAD")
    if f.central is not None and 0 < f.central[0] <= MAX_PAGES:
        central = Sourced(size_text(f.central[0]), f.central[1].cite())
    else:
        total = sum(g.storage_pages for g in guests
                    if g.member.value == name and g.logged_on)
        gb = max(1, math.ceil(total / PAGES_PER_GB))
        central = Sourced(f"{gb}G", "assumed: no QUERY STORAGE; the storage of its "
                          "logged-on guests, no overcommit")
        notes.assume(f"central storage {gb}G for {name}: no QUERY STORAGE; the defined storage "
                     "of its logged-on guests (no overcommit)")
    if f.xstor is not None and f.xstor[0] <= MAX_PAGES:
        xstor = Sourced(size_text(f.xstor[0]), f.xstor[1].cite())
    else:
        xstor = Sourced("0", "assumed: no QUERY XSTORE (z/VM 6.3 and later run without)")
        notes.assume(f"no XSTOR for {name}: no QUERY XSTORE")
    plan = MemberPlan(name, origin, cpus, central, xstor)
    owned = [v for v in (sc.volumes if sc else []) if v.member == name]
    if f.volumes is not None:
        plan.volumes = [_volume(v) for v in f.volumes]
    else:
        for v in owned:
            if _PAGING_NAME.search(v.volid):
                plan.volumes.append((v.volid, ASSUMED_VOLUME_SLOTS, "",
                                     f"{v.where.cite()}; size assumed: a full 3390-9"))
                notes.assume(f"{v.volid} on {name} is a paging volume of a full 3390-9 "
                             f"({ASSUMED_VOLUME_SLOTS:,} slots): no QUERY ALLOC PAGE "
                             f"({v.where})")
            else:
                notes.say(f"{v.where}: {v.volid} not taken as a paging volume (its name does "
                          f"not look like one and there is no QUERY ALLOC PAGE of {name})")
    if not plan.volumes:
        notes.assume(f"{name} has no paging volumes: none found")
    return plan


def _volume(v: PageVolume) -> tuple[str, int, str, str]:
    return (v.volid, v.slots, v.rdev, v.where.cite())


def _links(names: list[str], sc: SystemConfig | None,
           notes: Notes) -> list[tuple[str, str, list[tuple[int, int]], str]]:
    ends: dict[frozenset[str], tuple[int, str]] = {}
    for link in (sc.islinks if sc else []):
        if link.member not in names or link.node not in names or link.member == link.node:
            notes.problem(link.where, f"ISLINK from {link.member} to {link.node}: both must be "
                          "members, and different; skipped")
            continue
        key = frozenset((link.member, link.node))
        if link.ctcs > MAX_LINK_CTCS:
            notes.problem(link.where, f"ISLINK from {link.member} to {link.node} names "
                          f"{link.ctcs} CTC devices; a logical link takes at most "
                          f"{MAX_LINK_CTCS}: {MAX_LINK_CTCS} used")
            link = dataclasses.replace(link, ctcs=MAX_LINK_CTCS)
        old = ends.get(key)
        if old is None or link.ctcs > old[0]:
            ends[key] = (link.ctcs, link.where.cite())
    out: list[tuple[str, str, list[tuple[int, int]], str]] = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            got = ends.get(frozenset((a, b)))
            if got is not None:
                ctcs, origin = got
                chpids = [(ASSUMED_CHPID_GBPS, min(16, ctcs - 16 * k))
                          for k in range(math.ceil(ctcs / 16))]
                out.append((a, b, chpids, f"{origin}; CHPID speed assumed "
                            f"{ASSUMED_CHPID_GBPS} Gbit/s, up to 16 CTCs each"))
                notes.assume(f"link {a}-{b}: FICON CHPIDs at {ASSUMED_CHPID_GBPS} Gbit/s, up to "
                             "16 CTCs each (SYSTEM CONFIG does not say the speed)")
            else:
                out.append((a, b, [(ASSUMED_CHPID_GBPS, ASSUMED_CTCS)],
                            "assumed: no ACTIVATE ISLINK for this pair"))
                notes.assume(f"link {a}-{b}: one {ASSUMED_CHPID_GBPS} Gbit/s CHPID with "
                             f"{ASSUMED_CTCS} CTCs: no ACTIVATE ISLINK for the pair (members "
                             "of an SSI cluster are always linked)")
    return out


# -- TOML -------------------------------------------------------------------------------------

def _s(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _line(key: str, value: str, origin: str, indent: str = "") -> str:
    left = f"{indent}{key} = {value}"
    return f"{left:<28} # {origin}" if origin else left


def render(plan: Plan) -> str:
    """The scenario as TOML text, each value commented with its origin."""
    out = [
        "# A scenario imported by `ssisim import` from:",
        *(f"#   {s}" for s in plan.sources),
        "# Each value says where it came from; 'assumed' marks values the input did not give.",
        'format = "ssisim-scenario"',
        "version = 1",
        f"name = {_s(plan.name)}",
        f"description = {_s('Imported from ' + ', '.join(plan.sources))}",
        "",
        "[run]",
        "seed = 1",
        "duration_s = 600             # the format's default; set the length of the study",
    ]
    for m in plan.members:
        out += ["", "[[member]]", _line("name", _s(m.name), m.origin),
                _line("cpus", str(m.cpus.value), m.cpus.origin),
                _line("central", _s(m.central.value), m.central.origin),
                _line("xstor", _s(m.xstor.value), m.xstor.origin)]
        for volid, slots, rdev, origin in m.volumes:
            out += ["  [[member.volume]]", _line("volid", _s(volid), origin, "  "),
                    _line("slots", str(slots), f"{size_text(slots)} of 4 KiB slots", "  ")]
            if rdev:
                out.append(_line("rdev", _s(rdev), "", "  "))
    for a, b, chpids, origin in plan.links:
        cells = ", ".join(f"{{gbps = {g}, ctcs = {c}}}" for g, c in chpids)
        out += ["", "[[link]]", _line("members", f"[{_s(a)}, {_s(b)}]", origin),
                f"chpids = [{cells}]"]
    for g in plan.guests:
        out += ["", f"# {g.origin}", *(f"# {r}" for r in g.remarks), "[[guest]]",
                _line("userid", _s(g.userid), ""),
                _line("member", _s(g.member.value), g.member.origin),
                _line("storage", _s(g.storage.value), g.storage.origin)]
        if not g.logged_on:
            out.append(_line("logged_on", "false", "not logged on when QUERY NAMES was saved"))
        if g.vcpus is not None:
            out.append(_line("vcpus", str(g.vcpus.value), g.vcpus.origin))
        if g.share is not None:
            out.append(_line("share", f"{g.share.value:g}", g.share.origin))
        if g.set_reserved is not None:
            out.append(_line("set_reserved", str(g.set_reserved.value), g.set_reserved.origin))
        for key in ("standby", "reserved"):
            s = getattr(g, key)
            if s is not None:
                out.append(_line(key, _s(s.value), s.origin))
        if g.workload is not None:
            cells = "".join(f", {k} = {v}" for k, v in g.workload.params.items())
            out.append(_line("workload", f"{{type = {_s(g.workload.kind)}{cells}}}",
                             g.workload.where.cite()))
        if g.share_absolute is not None and g.logged_on:
            out.append(f"# SHARE ABSOLUTE {g.share_absolute.value:g}%: set by the timeline at "
                       "t = 0")
    for command, origin in plan.timeline:
        out += ["", "[[timeline]]", "at_s = 0", _line("command", _s(command), origin)]
    return "\n".join(out) + "\n"
