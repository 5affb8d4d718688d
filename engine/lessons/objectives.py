"""Lessons and objectives: measurable conditions on a run, a score, hints and a debrief.

An objective is data in the scenario (``[[objective]]``), one of a small vocabulary of kinds
(``KINDS``). The ``LessonTracker`` evaluates them after every step and every command, the same
way in the desktop app and headless, and produces the score and the debrief.

Two families of objectives:

- *achieve* (``relocated``, ``member_empty``, ``central_free``, ``guest_state``,
  ``command_used``): met the first time the condition holds, by ``by_s`` (default: the end of
  the lesson); failed when the deadline passes.
- *always* (``paging_below``, ``keep_running``): failed the first time the condition breaks;
  met if it never broke when the lesson ends.

The lesson ends at the scenario's ``duration_s``, when the student ends it (``LESSON END``), or
as soon as every *achieve* objective is decided (the *always* ones still holding are then met).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..basics.config import LessonConfig, ObjectiveConfig
from ..basics.units import PAGES_PER_GB
from ..cp.grammar import VERBS
from ..migrations.relocation import THROTTLE_REASONS
from ..views.cluster import Cluster
from ..world.state import LessonSnapshot, ObjectiveSnapshot

#: guest states ``guest_state`` can ask for
GUEST_STATES = ("running", "stopped", "suspended", "logged_on", "logged_off")
#: ways ``relocated`` can ask a guest to be moved
METHODS = ("vmrelocate", "lpm", "vmotion")


@dataclass(frozen=True)
class FieldSpec:
    """One field of an objective kind: its type (``guest``, ``member``, ``number``, ...)."""

    name: str
    type: str
    required: bool = False
    help: str = ""


def _f(name: str, type_: str, required: bool = False, help: str = "") -> FieldSpec:
    return FieldSpec(name, type_, required, help)


_BY = _f("by_s", "seconds", help="deadline in simulated seconds (default: the end of the lesson)")
_AFTER = _f("after_s", "seconds", help="the condition counts only from this simulated time on")

#: the vocabulary: kind -> (family, fields, what it means)
KINDS: dict[str, tuple[str, tuple[FieldSpec, ...], str]] = {
    "relocated": ("achieve", (
        _f("guest", "guest", True),
        _f("to", "target", help="destination member (a datastore for method vmotion)"),
        _f("method", "method", help="vmrelocate (default), lpm or vmotion"),
        _f("max_quiesce_s", "number", help="the guest may be stopped at most this long"),
        _f("max_total_s", "number", help="the move may take at most this long"),
        _f("max_passes", "integer", help="memory-move passes (iterations) at most"),
        _f("max_throttle_s", "number", help="throttles may hold the move at most this long"),
        _BY, _AFTER), "a move of the guest completes within the limits"),
    "member_empty": ("achieve", (_f("member", "member", True), _BY, _AFTER),
                     "no guest is logged on to the member (evacuated)"),
    "central_free": ("achieve", (_f("member", "member", True),
                                 _f("min_gb", "number", True, "free central storage, GB"), _BY,
                                 _AFTER),
                     "the member has at least min_gb of central storage free"),
    "guest_state": ("achieve", (
        _f("guest", "guest", True), _f("state", "state", True, " | ".join(GUEST_STATES)),
        _f("member", "member", help="and is on this member"), _BY, _AFTER),
        "the guest is in the state (running, stopped, suspended, logged_on, logged_off)"),
    "command_used": ("achieve", (_f("command", "command", True,
                                    "words of the command; abbreviations typed count"), _BY,
                                  _AFTER),
                     "the student issued the command successfully"),
    "paging_below": ("always", (_f("member", "member", help="default: every member"),
                                _f("max_pct", "number", True, "percent of a volume's slots")),
                     "no paging volume is ever fuller than max_pct"),
    "keep_running": ("always", (_f("guests", "guests", True, "user IDs"),),
                     "the guests stay logged on, not stopped, not suspended (relocation "
                     "quiesce excepted)"),
}


def _ts(t: float) -> str:
    """A simulated time for a sentence: to a tenth of a second, no trailing zeros."""
    return f"{round(t, 1):g}"


def _throttle(key: str) -> str:
    """A throttle ("destination:frames") as a phrase: its side and what it waits for."""

    side, _, reason = key.partition(":")
    why = THROTTLE_REASONS.get((side, reason), reason.replace("_", " "))
    return f"the {side} throttle ({why})"


def default_text(kind: str, p: dict[str, Any]) -> str:
    """A sentence for an objective without its own ``text``."""
    by = f" by t = {p['by_s']:g} s" if "by_s" in p else ""
    if kind == "relocated":
        how = {"vmrelocate": "Relocate", "lpm": "Migrate (LPM)", "vmotion": "Move the disk of"}
        s = f"{how[p.get('method', 'vmrelocate')]} {p['guest']}"
        if "to" in p:
            s += f" to {p['to']}"
        lim = []
        if "max_quiesce_s" in p:
            lim.append(f"a quiesce of at most {p['max_quiesce_s']:g} s")
        if "max_total_s" in p:
            lim.append(f"at most {p['max_total_s']:g} s in all")
        if "max_passes" in p:
            lim.append(f"at most {p['max_passes']} passes")
        if "max_throttle_s" in p:
            lim.append(f"at most {p['max_throttle_s']:g} s of throttles")
        return s + (" with " + " and ".join(lim) if lim else "") + by
    if kind == "member_empty":
        return f"Evacuate {p['member']}: no guest logged on there{by}"
    if kind == "central_free":
        return f"Free {p['min_gb']:g} GB of central storage on {p['member']}{by}"
    if kind == "guest_state":
        on = f" on {p['member']}" if "member" in p else ""
        return f"{p['guest']} {p['state'].replace('_', ' ')}{on}{by}"
    if kind == "command_used":
        return f"Issue {p['command'].upper()}{by}"
    if kind == "paging_below":
        where = f"on {p['member']}" if "member" in p else "anywhere"
        return f"No paging volume {where} above {p['max_pct']:g} % full"
    if kind == "keep_running":
        return f"Keep {', '.join(p['guests'])} running"
    return kind


def command_matches(wanted: str, typed: str, verb_min: dict[str, int]) -> bool:
    """True when ``typed`` is ``wanted`` written with CP abbreviations (``Q ALLOC PAGE``).

    Each typed word must begin the wanted word (at least the verb's minimum for the first
    word); the typed command may go on after the wanted words.
    """
    w, t = wanted.upper().split(), typed.upper().split()
    if len(t) < len(w) or not w:
        return False
    need = verb_min.get(w[0], len(w[0]))
    if not (len(t[0]) >= min(need, len(w[0])) and w[0].startswith(t[0])):
        return False
    return all(a.startswith(b) for a, b in zip(w[1:], t[1:]))


@dataclass
class ObjectiveState:
    """Where an objective stands during a run."""

    cfg: ObjectiveConfig
    family: str
    status: str = "pending"  # pending, met, failed
    t: float | None = None  # when it was decided
    detail: str = ""  # why it is met or failed, in a sentence
    evidence: list[tuple[float, str]] = field(default_factory=list)
    peak: float = -math.inf  # the best (achieve) or worst (always) value seen
    peak_t: float = 0.0
    seen_moves: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The objective's result as the summary carries it."""
        return {"id": self.cfg.id, "kind": self.cfg.kind, "text": self.cfg.text,
                "points": self.cfg.points, "status": self.status,
                "earned": self.cfg.points if self.status == "met" else 0,
                "t_s": None if self.t is None else round(self.t, 3), "detail": self.detail,
                "evidence": [{"t_s": round(t, 3), "text": s} for t, s in self.evidence]}


class LessonTracker:
    """Evaluates a scenario's objectives as the simulation runs; scores and debriefs."""

    def __init__(self, sim: Cluster) -> None:
        self.sim = sim
        sc = sim.scenario
        self.lesson: LessonConfig | None = sc.lesson
        self.objectives = [ObjectiveState(o, KINDS[o.kind][0]) for o in sc.objectives]
        self.end_s = float(sc.duration_s)
        self.ended = False
        self.end_reason = ""
        self.ended_s: float | None = None
        self.hints_used: list[tuple[float, int]] = []  # (time, hint index)

        self._verb_min = dict(VERBS)

    # -- commands -------------------------------------------------------------------------------
    def forbidden(self, command: str) -> str | None:
        """The forbidden verb a typed command uses, if the lesson forbids it."""
        if self.lesson is None or self.ended or not command.split():
            return None
        word = command.split()[0].upper()
        for verb in self.lesson.forbid:
            if verb.startswith(word) and len(word) >= min(self._verb_min.get(verb, 1), len(verb)):
                return verb
        return None

    def hint(self) -> list[str]:
        """The next hint (it costs points), or why there is none."""
        hints = self.lesson.hints if self.lesson else ()
        n = len(self.hints_used)
        if n >= len(hints):
            return [f"No more hints: all {len(hints)} are shown" if hints
                    else "This scenario has no hints"]
        h = hints[n]
        self.hints_used.append((self.sim.t, n))
        self.sim.emit("HINT", None, None, f"Hint {n + 1} of {len(hints)} (-{h.cost:g} points): "
                      f"{h.text}", {"hint": n + 1, "cost": h.cost})
        return [f"Hint {n + 1} of {len(hints)} (costs {h.cost:g} points):", h.text]

    def status_lines(self) -> list[str]:
        """The objectives as a table, and the score so far."""
        mark = {"met": "MET", "failed": "FAILED", "pending": "open"}
        out = [f"{'objective':<10} {'status':<7} {'points':>6}  text"]
        for o in self.objectives:
            out.append(f"{o.cfg.id[:10]:<10} {mark[o.status]:<7} {o.cfg.points:>6g}  {o.cfg.text}")
        s = self.score()
        state = (f"ended at {_ts(self.ended_s)} s" if self.ended and self.ended_s is not None
                 else f"ends at {self.end_s:g} s")
        out.append(f"Score so far {s['score']:g} of {s['max_score']:g} "
                   f"({len(self.hints_used)} hints used); the lesson {state}")
        return out

    def end(self, reason: str) -> None:
        """End the lesson now: undecided objectives are settled, the score fixed."""
        if self.ended:
            return
        t = self.sim.t
        for o in self.objectives:
            if o.status != "pending":
                continue
            if o.family == "always":
                o.status, o.t = "met", t
                o.detail = o.detail or "held to the end"
            else:
                o.status, o.t = "failed", t
                o.detail = self._missed(o)
            self._announce(o)
        self.ended, self.ended_s, self.end_reason = True, t, reason
        s = self.score()
        self.sim.emit("LESSON_END", None, None, f"Lesson ended ({reason}): score {s['score']:g} "
                      f"of {s['max_score']:g}", {"reason": reason, **s})

    # -- evaluation -------------------------------------------------------------------------------
    def update(self) -> None:
        """Evaluate every undecided objective against the simulation's present state."""
        if self.ended:
            return
        sim = self.sim
        t = sim.t
        for o in self.objectives:
            if o.status == "pending" and t >= o.cfg.params.get("after_s", 0.0) - 1e-9:
                getattr(self, "_eval_" + o.cfg.kind)(o, t)
            if o.status == "pending" and o.family == "achieve":
                by = o.cfg.params.get("by_s")
                if by is not None and t >= by - 1e-9:
                    o.status, o.t, o.detail = "failed", t, self._missed(o)
                    self._announce(o)
        if t >= self.end_s - 1e-9:
            self.end("time is up")
            return
        achieve = [o for o in self.objectives if o.family == "achieve"]
        if achieve and all(o.status != "pending" for o in achieve):
            # run on a little, so what the last action causes still counts
            last = max(o.t or 0.0 for o in achieve)
            settle = self.lesson.settle_s if self.lesson is not None else 0.0
            if t >= min(last + settle, self.end_s) - 1e-9:
                self.end("every task is decided")

    def _decide(self, o: ObjectiveState, status: str, t: float, detail: str) -> None:
        o.status, o.t, o.detail = status, t, detail
        self._announce(o)

    def _announce(self, o: ObjectiveState) -> None:
        kind = "OBJECTIVE_MET" if o.status == "met" else "OBJECTIVE_FAILED"
        self.sim.emit(kind, None, None, f"{o.cfg.id}: {o.cfg.text}: {o.detail}",
                      {"objective": o.cfg.id, "points": o.cfg.points})

    def _moves(self, method: str) -> list[Any]:
        sim = self.sim
        moves: dict[str, list[Any]] = {"vmrelocate": list(sim.reloc.all),
                                        "lpm": list(sim.lpm.all), "vmotion": list(sim.svm.all)}
        return moves[method]

    def _eval_relocated(self, o: ObjectiveState, t: float) -> None:
        p = o.cfg.params
        moves = [m for m in self._moves(p.get("method", "vmrelocate"))
                 if m.guest.userid == p["guest"]]
        for m in moves[o.seen_moves:]:
            if m.active:
                break
            o.seen_moves += 1
            d = m.to_dict()
            o.evidence += self._move_evidence(m, d)
            if m.state != "done":
                o.detail = (f"the move of {p['guest']} to {m.dest} at {_ts(m.t_start)} s ended "
                            f"{d['result']}: {d['message']}")
                continue
            if "to" in p and m.dest != p["to"]:
                continue
            over = []
            if "max_quiesce_s" in p and d["quiesce_s"] > p["max_quiesce_s"] + 1e-9:
                over.append(f"a quiesce of {d['quiesce_s']:.1f} s (at most "
                            f"{p['max_quiesce_s']:g} s)")
            if "max_total_s" in p and d["relocation_s"] > p["max_total_s"] + 1e-9:
                over.append(f"{d['relocation_s']:.1f} s in all (at most {p['max_total_s']:g} s)")
            if "max_passes" in p and d["passes"] > p["max_passes"]:
                over.append(f"{d['passes']} passes (at most {p['max_passes']})")
            thr = sum(d["throttle_s"].values())
            if "max_throttle_s" in p and thr > p["max_throttle_s"] + 1e-9:
                over.append(f"{thr:.1f} s of throttles (at most {p['max_throttle_s']:g} s)")
            said = (f"moved to {m.dest} at {_ts(m.t_end)} s: {d['passes']} passes, quiesce "
                    f"{d['quiesce_s']:.1f} s, {d['relocation_s']:.1f} s in all")
            if over:
                o.detail = f"{p['guest']} {said}, but with " + " and ".join(over)
                continue
            self._decide(o, "met", m.t_end, f"{p['guest']} {said}")
            return

    def _move_evidence(self, m: Any, d: dict[str, Any]) -> list[tuple[float, str]]:
        """What decided a move: its outcome, its quiesce, the throttles that held it."""
        uid = m.guest.userid
        out = [(m.t_start, f"{uid}: move to {m.dest} started ({d['options']})")]
        thr = sorted(d["throttle_s"].items(), key=lambda kv: -kv[1])
        q0 = m.t_quiesce
        in_q: dict[str, float] = {}
        if q0 is not None and m.t_end is not None:
            for e in self.sim.events:
                if e.kind == "THROTTLE_END" and e.userid == uid and e.t_s >= m.t_start:
                    s0 = e.data.get("start_s", e.t_s)
                    ov = min(e.t_s, m.t_end) - max(s0, q0)
                    if ov > 0 and e.t_s > s0:
                        # (a throttle that slows sending all along, message ordering, costs
                        # the part of its span its ``seconds`` say)
                        ov *= min(1.0, e.data.get("seconds", e.t_s - s0) / (e.t_s - s0))
                        k = f"{e.data.get('side')} {e.data.get('reason')}"
                        in_q[k] = in_q.get(k, 0.0) + ov
        for k, v in thr[:2]:
            if v >= 1.0:
                out.append((m.t_start, f"{uid}: {_throttle(k)} held the move {v:.1f} s in all"))
        if q0 is not None:
            q = f"{uid}: quiesced at {_ts(q0)} s for {d['quiesce_s']:.1f} s"
            k, v = max(in_q.items(), key=lambda kv: kv[1], default=("", 0.0))
            if v >= max(0.05, 0.05 * d["quiesce_s"]):  # (a twentieth or less: noise)
                q += f"; {_throttle(k.replace(' ', ':'))} stretched it by {v:.1f} s"
            out.append((q0, q))
        end = m.t_end if m.t_end is not None else self.sim.t
        out.append((end, f"{uid}: {d['result']} after {d['relocation_s']:.1f} s, "
                    f"{d['passes']} passes"))
        return out

    def _eval_member_empty(self, o: ObjectiveState, t: float) -> None:
        name = o.cfg.params["member"]
        left = [g.userid for g in self.sim.guests.values() if g.member == name]
        moves = [m for m in self.sim.reloc.all if m.source == name and not m.active]
        for m in moves[o.seen_moves:]:
            d = m.to_dict()
            if m.state == "done":
                o.evidence.append((m.t_end or t, f"{d['guest']} relocated to {m.dest} in "
                                   f"{d['relocation_s']:.1f} s"))
            else:
                o.evidence += self._move_evidence(m, d)
        o.seen_moves = len(moves)
        if not left:
            self._decide(o, "met", t, f"{name} has no guest logged on at {_ts(t)} s")
        else:
            o.detail = f"still on {name}: {', '.join(sorted(left))}"

    def _eval_central_free(self, o: ObjectiveState, t: float) -> None:
        p = o.cfg.params
        m = self.sim.members[p["member"]]
        free = m.free_frames / PAGES_PER_GB
        if free > o.peak:
            o.peak, o.peak_t = free, t
        if free >= p["min_gb"] - 1e-9:
            self._decide(o, "met", t, f"{free:.1f} GB free on {m.name} at {_ts(t)} s")

    def _guest_is(self, uid: str, state: str) -> bool:
        g = self.sim.guests[uid]
        if state == "logged_off":
            return not g.logged_on
        if not g.logged_on:
            return False
        if state == "logged_on":
            return True
        if state == "suspended":
            return g.linux == "suspended"
        if state == "stopped":
            return "stop" in g.stopped_by
        return g.linux == "running" and not (g.stopped_by - {"relocation", "lpm", "vmotion"})

    def _eval_guest_state(self, o: ObjectiveState, t: float) -> None:
        p = o.cfg.params
        g = self.sim.guests[p["guest"]]
        if self._guest_is(g.userid, p["state"]) and ("member" not in p
                                                      or g.member == p["member"]):
            where = f" on {g.member}" if g.member else ""
            self._decide(o, "met", t, f"{g.userid} {p['state'].replace('_', ' ')}{where} at "
                         f"{_ts(t)} s")

    def _eval_command_used(self, o: ObjectiveState, t: float) -> None:
        want = o.cfg.params["command"]
        for ct, cmd, rc, line, _resp in self.sim.command_log:
            if line == 0 and rc == 0 and command_matches(want, cmd, self._verb_min):
                self._decide(o, "met", ct, f"{cmd} at {_ts(ct)} s")
                return

    def _eval_paging_below(self, o: ObjectiveState, t: float) -> None:
        p = o.cfg.params
        names = [p["member"]] if "member" in p else sorted(self.sim.members)
        for n in names:
            for volid, _rdev, total, used in self.sim.members[n].volume_use():
                pct = 100.0 * used / total if total else 0.0
                if pct > o.peak:
                    o.peak, o.peak_t = pct, t
                if pct > p["max_pct"] + 1e-9:
                    o.evidence.append((t, f"{volid} on {n} is {pct:.1f} % full"))
                    self._decide(o, "failed", t, f"{volid} on {n} reached {pct:.1f} % at "
                                 f"{_ts(t)} s (limit {p['max_pct']:g} %)")
                    return
        o.detail = f"the fullest volume was {o.peak:.1f} % full" if o.peak >= 0 else "no paging"

    def _eval_keep_running(self, o: ObjectiveState, t: float) -> None:
        for uid in o.cfg.params["guests"]:
            if not self._guest_is(uid, "running"):
                g = self.sim.guests[uid]
                why = ("logged off" if not g.logged_on else
                       f"Linux {g.linux}" if g.linux != "running" else "stopped")
                cause = [(ct, c) for ct, c, rc, _l, _r in self.sim.command_log
                         if rc == 0 and uid in c.upper().split()]
                if cause:
                    o.evidence.append(cause[-1])
                self._decide(o, "failed", t, f"{uid} was {why} at {_ts(t)} s")
                return

    def _missed(self, o: ObjectiveState) -> str:
        """Why an achieve objective was not met by its deadline."""
        p = o.cfg.params
        by = p.get("by_s")
        when = f"by {by:g} s" if by is not None else "by the end of the lesson"
        if o.cfg.kind == "relocated":
            to = " to " + p["to"] if "to" in p else ""
            return o.detail or f"{p['guest']} was not moved{to} {when}"
        if o.cfg.kind == "central_free":
            best = max(o.peak, 0.0)
            return f"at most {best:.1f} GB was free on {p['member']} (at {_ts(o.peak_t)} s) {when}"
        if o.cfg.kind == "member_empty":
            return f"{o.detail} {when}" if o.detail else f"not empty {when}"
        if o.cfg.kind == "guest_state":
            g = self.sim.guests[p["guest"]]
            now = next((s for s in GUEST_STATES[:3] if self._guest_is(g.userid, s)), None) \
                or ("logged on" if g.logged_on else "logged off")
            where = f" on {g.member}" if g.member else ""
            want = p["state"].replace("_", " ") + (f" on {p['member']}" if "member" in p else "")
            return f"{g.userid} was {now.replace('_', ' ')}{where} {when}, not {want}"
        if o.cfg.kind == "command_used":
            return f"{p['command'].upper()} was not issued {when}"
        return f"not met {when}"

    # -- results ----------------------------------------------------------------------------------
    def score(self) -> dict[str, Any]:
        """Points earned, the maximum, hints' cost and whether the lesson is passed."""
        hints = self.lesson.hints if self.lesson else ()
        earned = sum(o.cfg.points for o in self.objectives if o.status == "met")
        cost = sum(hints[i].cost for _t, i in self.hints_used)
        total = sum(o.cfg.points for o in self.objectives)
        score = max(0.0, earned - cost)
        need = self.lesson.pass_score if self.lesson else total
        return {"score": score, "max_score": total, "hint_cost": cost, "pass_score": need,
                "passed": self.ended and score >= need - 1e-9}

    def snapshot(self) -> LessonSnapshot:
        """The objectives and score, immutable, for a viewer in another thread."""
        s = self.score()
        return LessonSnapshot(
            tuple(ObjectiveSnapshot(o.cfg.id, o.cfg.kind, o.cfg.text, o.cfg.points, o.status,
                                    o.detail, o.t) for o in self.objectives),
            s["score"], s["max_score"], s["pass_score"], s["hint_cost"], len(self.hints_used),
            len(self.lesson.hints) if self.lesson else 0, self.ended, self.ended_s, self.end_s,
            self.end_reason, bool(s["passed"]))

    def lost_points(self) -> list[dict[str, Any]]:
        """Every point lost, with its reason."""
        out = []
        for o in self.objectives:
            if o.status != "met":
                why = o.detail or ("not decided yet" if o.status == "pending" else "")
                out.append({"points": o.cfg.points, "reason": f"{o.cfg.id}: {o.cfg.text}: {why}"})
        hints = self.lesson.hints if self.lesson else ()
        for t, i in self.hints_used:
            out.append({"points": hints[i].cost, "reason": f"hint {i + 1} used at {_ts(t)} s"})
        return out

    def debrief(self) -> dict[str, Any]:
        """The end-of-lesson account: score, objectives, the events that decided them."""
        les = self.lesson
        decisive = sorted({(t, s) for o in self.objectives for t, s in o.evidence})
        return {
            "lesson": None if les is None else {"id": les.id, "title": les.title,
                                                 "goal": les.goal},
            **self.score(),
            "ended": self.ended, "ended_s": self.ended_s, "end_reason": self.end_reason,
            "objectives": [o.to_dict() for o in self.objectives],
            "hints_used": [{"hint": i + 1, "t_s": round(t, 3),
                            "cost": les.hints[i].cost if les else 0} for t, i in self.hints_used],
            "lost": self.lost_points(),
            "decisive_events": [{"t_s": round(t, 3), "text": s} for t, s in decisive],
            "text": les.debrief if les else "",
        }


def format_debrief(d: dict[str, Any]) -> str:
    """The debrief as text for a person."""
    out = []
    if d.get("lesson"):
        out.append(f"Lesson {d['lesson']['id']}: {d['lesson']['title']}")
    verdict = "passed" if d["passed"] else ("not passed" if d["ended"] else "in progress")
    out.append(f"Score {d['score']:g} of {d['max_score']:g} (pass at {d['pass_score']:g}): "
               f"{verdict}" + (f"; ended at {d['ended_s']:g} s ({d['end_reason']})"
                               if d["ended"] else ""))
    out.append("")
    for o in d["objectives"]:
        mark = {"met": "[x]", "failed": "[ ]", "pending": "[?]"}[o["status"]]
        out.append(f"{mark} {o['text']} ({o['earned']:g}/{o['points']:g}): {o['detail']}")
    if d["lost"]:
        out.append("")
        out.append("Points lost:")
        out += [f"  -{x['points']:g}  {x['reason']}" for x in d["lost"]]
    if d["decisive_events"]:
        out.append("")
        out.append("What decided it:")
        out += [f"  {e['t_s']:>8.1f} s  {e['text']}" for e in d["decisive_events"]]
    if d.get("text"):
        out.append("")
        out.append(d["text"].strip())
    return "\n".join(out)
