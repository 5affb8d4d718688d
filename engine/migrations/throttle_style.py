"""How each throttle reason is named and coloured wherever it is shown.

The window's throttle timeline and the report's charts both draw from this one table, so a
reason has the same name and colour on screen and on paper.
"""

from __future__ import annotations

from .relocation import THROTTLE_REASONS

#: ``side:reason`` -> (short name, colour), in the order rows are shown: the source's reasons
#: (reds and oranges), the destination's (blues, purple, green), the link's (grey). Mid-tone
#: fills that read on a light and on a dark background alike.
THROTTLE_STYLE: dict[str, tuple[str, str]] = {
    "source:stage_frames": ("src stage frames", "#e8743b"),
    "source:paging_queue": ("src paging queue", "#c0392b"),
    "source:link_queue": ("src link queue", "#f1c40f"),
    "source:dest_backlog": ("src dest backlog", "#d35400"),
    "destination:frames": ("dest frames", "#2f7fe0"),
    "destination:paging_queue": ("dest paging queue", "#8e44ad"),
    "destination:steal": ("dest steal", "#16a085"),
    "destination:socket": ("dest socket", "#5dade2"),
    "link:ordering": ("link ordering", "#95a5a6"),
}

# a reason added to the engine gets a name and a neutral colour until it is given its own
_SHORT_SIDE = {"source": "src", "destination": "dest"}
for (_side, _reason) in THROTTLE_REASONS:
    THROTTLE_STYLE.setdefault(
        f"{_side}:{_reason}",
        (f"{_SHORT_SIDE.get(_side, _side)} {_reason.replace('_', ' ')}", "#888888"))
