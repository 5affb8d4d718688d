"""Every guest on the move or being paused, as lines a panel can show. No Qt here.

One ``MoveLine`` per relocation (LGR), partition migration (LPM), Storage vMotion, Linux
suspend or resume and CP STOP of a snapshot: what it is, how far along (the share of its
current pass or phase), and how long the guest has been stopped.
"""

from __future__ import annotations

from dataclasses import dataclass

from ssisim.engine import (
    MigrationSnapshot,
    PauseSnapshot,
    RelocationSnapshot,
    Snapshot,
    format_size,
)

from .frames import relocation_key

#: What each kind of line is called on its badge.
KIND_LABELS = {"LGR": "LGR", "LPM": "LPM", "VMOTION": "vMotion", "suspend": "suspend",
               "resume": "resume", "stop": "CP STOP"}

_PASS_WORDS = {"first": "first", "intermediate": "intermediate", "penultimate": "penultimate",
               "final": "final", "iteration": "iteration", "consolidation": "consolidation"}


@dataclass(frozen=True)
class MoveLine:
    """One move or pause as the panel shows it."""

    key: str  # stays the same for the whole life of the move
    kind: str  # LGR, LPM, VMOTION, suspend, resume, stop
    userid: str
    where: str  # "MEMB1 -> MEMB2", "on Z10LPAR"
    start_s: float
    active: bool
    stopped: bool  # the guest is stopped now (its downtime is counting)
    colour_state: str  # a key of theme.STATE_COLOURS for the bar
    status: str  # "pass 2 (intermediate)", "writing the image to swap (3 of 3)", ...
    progress: float | None  # share of the current pass or phase done; None: no bar
    progress_text: str
    detail: str


def _s(seconds: float) -> str:
    return f"{seconds:,.1f} s" if seconds >= 10 else f"{seconds:.2f} s"


def _units(n: int, unit_bytes: int) -> str:
    """Pages or blocks as a size: ``1.4G``."""
    return format_size(n * unit_bytes // 4096)


def _colour(active: bool, stopped: bool) -> str:
    """A move's colour: blue while the guest runs, red while it is stopped, muted once over."""
    if not active:
        return "dormant"
    return "quiesced" if stopped else "relocating"


def relocation_line(r: RelocationSnapshot, now: float) -> MoveLine:
    """A Live Guest Relocation."""
    active = r.state in ("moving", "quiesced")
    end = r.end_s if r.end_s is not None else now
    progress: float | None = 1.0
    text = f"{r.pages_moved:,} pages moved"
    if active and r.passes:
        p = r.passes[-1]
        size = p.pages + r.pages_left
        progress = p.pages / size if size else 1.0
        status = f"pass {p.number} ({p.kind})"
        text = f"{p.pages:,} of {size:,} pages"
    elif active:
        status, progress, text = "setting up", 0.0, "checks before the first pass"
    else:
        status = {"done": "relocated", "cancelled": "cancelled"}.get(r.state, r.state)
        if r.state == "cancelled" and r.result:
            status += f" ({r.result})"
        text = f"{len(r.passes)} passes, {r.pages_moved:,} pages"
    if r.state == "quiesced":
        status = "quiesced: " + status
    detail = (f"quiesce {_s(r.quiesce_s)}  \u00b7  elapsed {_s(end - r.start_s)}  \u00b7  "
              f"VMRELOCATE {r.options}")
    return MoveLine("LGR " + relocation_key(r), "LGR", r.userid,
                    f"{r.source} \u2192 {r.destination}", r.start_s, active,
                    r.state == "quiesced", _colour(active, r.state == "quiesced"), status,
                    progress, text, detail)


def migration_line(m: MigrationSnapshot, now: float) -> MoveLine:
    """A PowerVM partition migration or a VMware Storage vMotion."""
    end = m.end_s if m.end_s is not None else now
    progress: float | None = 1.0
    if m.state == "setup":
        spent = now - m.start_s
        total = spent + m.setup_left_s
        progress = spent / total if total > 0 else 0.0
        status = ("setting up (validation, MSP connections)" if m.kind == "LPM"
                  else "setting up (destination disk)")
        text = f"{m.setup_left_s:,.0f} s to the first pass"
    elif m.active and m.passes:
        p = m.passes[-1]
        size = max(m.pass_units, p.units)
        running = not p.end_s
        progress = p.units / size if size and running else 1.0
        status = f"pass {p.number} ({_PASS_WORDS.get(p.kind, p.kind)})"
        if m.state == "quiesced":
            status = ("suspended: " if m.kind == "LPM" else "stopped: ") + \
                (status if running else "switching over")
        elif m.state == "post-copy":
            status = f"running on {m.destination}: {status}, the last changed pages follow"
        text = (f"{p.units:,} of {size:,} {m.unit} ({_units(size, m.unit_bytes)})"
                if running else "switching to the destination")
    else:
        status = m.result or m.state
        text = f"{len(m.passes)} passes, {_units(m.units_moved, m.unit_bytes)} copied"
    what = "partition migration" if m.kind == "LPM" else "Storage vMotion"
    down = "downtime" if m.kind == "LPM" else "guest stopped"
    detail = (f"{down} {_s(m.downtime_s)}  \u00b7  elapsed {_s(end - m.start_s)}  \u00b7  "
              f"{what}, {m.options}")
    if m.message and not m.active:
        detail += f"\n{m.message}"
    return MoveLine(f"{m.kind} {m.userid}@{m.start_s:g}", m.kind, m.userid,
                    f"{m.source} \u2192 {m.destination}", m.start_s, m.active,
                    m.state == "quiesced", _colour(m.active, m.state == "quiesced"), status,
                    progress, text, detail)


#: Phases of pausing and letting go: what each is called, and its place among the phases.
_PHASES = {
    ("suspend", "prepare"): "freezing the services (1 of 3)",
    ("suspend", "reclaim"): "swapping out what the image cannot hold (2 of 3)",
    ("suspend", "write"): "writing the image to swap (3 of 3)",
    ("suspend", "halted"): "halted: the image is on the swap disk",
    ("resume", "boot"): "booting the kernel (1 of 3)",
    ("resume", "read"): "reading the image back (2 of 3)",
    ("resume", "restart"): "restarting the services (3 of 3)",
    ("resume", "first request"): "answering the first request",
    ("resume", "serving"): "serving again",
    ("stop", "stopped"): "stopped until BEGIN",
    ("stop", "waking"): "BEGIN: waiting for the first answer",
    ("stop", "serving"): "serving again",
}


#: The same phases in a word or two, for a guest's tile.
_PHASES_SHORT = {
    ("suspend", "prepare"): "freezing",
    ("suspend", "reclaim"): "swapping out",
    ("suspend", "write"): "writing image",
    ("resume", "boot"): "booting",
    ("resume", "read"): "reading image",
    ("resume", "restart"): "restarting",
    ("resume", "first request"): "first request",
    ("stop", "stopped"): "CP STOP",
    ("stop", "waking"): "after BEGIN",
}


def pause_phase(p: PauseSnapshot, short: bool = False) -> str:
    """What a suspend, resume or CP STOP is doing now: ``writing the image to swap (3 of 3)``,
    or with ``short`` a word or two for a tile (``writing image``)."""
    table = _PHASES_SHORT if short else _PHASES
    return table.get((p.action, p.phase), p.phase)


def pause_line(p: PauseSnapshot, now: float) -> MoveLine:
    """A Linux suspend or resume, or a CP STOP and the BEGIN that ends it."""
    end = p.end_s if p.end_s is not None else now
    status = pause_phase(p)
    progress: float | None = p.progress if p.active else 1.0
    if p.phase in ("write", "read"):
        text = f"{format_size(p.image_done_pages)} of {format_size(p.image_pages)} image"
    elif p.action == "stop" and p.phase == "stopped":
        progress = None
        text = f"stopped {_s(now - p.start_s)}; scheduled {p.scheduled:,} times for interrupts"
    elif p.active:
        text = f"{p.progress:.0%} of this phase"
    elif p.action == "suspend" and p.phase == "halted":
        text = f"{format_size(p.image_pages)} image written"
    else:
        text = "done" if p.phase != "logged off" else "ended: the guest logged off"
    if p.action == "stop":
        detail = f"not serving {_s(end - p.start_s)}"
        if p.begin_s is not None:
            detail += f" (BEGIN at {p.begin_s:,.1f} s)"
        detail += f"  \u00b7  SEND CP {p.userid} STOP"
        colour = "stopped"
    else:
        doing = {"suspend": "suspending", "resume": "resuming"}.get(p.action, p.action)
        took = f"{doing} for" if p.active else f"{p.action} took"
        detail = (f"{took} {_s(end - p.start_s)}  \u00b7  LINUX {p.userid} "
                  f"{p.action.upper()}")
        colour = "suspended"
    return MoveLine(f"{p.action} {p.userid}@{p.start_s:g}", p.action, p.userid,
                    f"on {p.member}" if p.member else "", p.start_s, p.active,
                    p.active and (p.action == "stop" and p.phase == "stopped"), colour, status,
                    progress, text, detail)


def move_lines(snap: Snapshot) -> list[MoveLine]:
    """Every move and pause of ``snap``: those under way first (oldest first), then the ended
    ones (latest first)."""
    now = snap.t_s
    lines = [relocation_line(r, now) for r in snap.relocations]
    lines += [migration_line(m, now) for m in snap.migrations]
    lines += [pause_line(p, now) for p in snap.pauses]
    active = sorted((x for x in lines if x.active), key=lambda x: (x.start_s, x.key))
    ended = sorted((x for x in lines if not x.active), key=lambda x: (-x.start_s, x.key))
    return active + ended


__all__ = ["KIND_LABELS", "MoveLine", "migration_line", "move_lines", "pause_line",
           "pause_phase", "relocation_line"]
