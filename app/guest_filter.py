"""Which guests the cluster view and the guest table show: the filter box's choice. No Qt here.

A guest matches when every word typed is found in its user ID, its workload type, its state
(as the legend names it) or its member, and when it has the workload type and the state chosen
in the boxes beside (if any). Non-matching guests are dimmed, or hidden when asked.
"""

from __future__ import annotations

from dataclasses import dataclass

from .theme import STATE_LABELS

#: How guests are arranged inside each member (the member stays the drop target).
GROUPINGS = {"size": "largest first", "workload": "by workload", "state": "by state"}


def workload_type(workload: str) -> str:
    """The workload's type, as the scenario writes it (``DATABASE``); ``""`` for none."""
    return workload.split(None, 1)[0].upper() if workload else ""


@dataclass(frozen=True)
class GuestFilter:
    """The filter box: words, a workload type and a state; and whether to hide the others.

    ``state`` is a display state (``dispatch``, ``quiesced``, ...; see ``model.display_state``),
    ``workload`` a workload type (``IDLE``); ``""`` means any.
    """

    text: str = ""
    workload: str = ""
    state: str = ""
    hide: bool = False

    @property
    def active(self) -> bool:
        """True when some guest may not match."""
        return bool(self.text.strip() or self.workload or self.state)

    def words(self) -> tuple[str, ...]:
        """The words typed, upper case (user IDs, workload types and members are)."""
        return tuple(self.text.upper().split())

    def matches(self, userid: str, workload: str, state: str, member: str | None) -> bool:
        """True when a guest with these attributes passes the filter.

        ``workload`` is the guest's workload text (its type is the first word), ``state`` its
        display state.
        """
        kind = workload_type(workload)
        if self.workload and kind != self.workload:
            return False
        if self.state and state != self.state:
            return False
        words = self.words()
        if not words:
            return True
        label = STATE_LABELS.get(state, state).upper()
        fields = (userid.upper(), kind, label, state.upper(), (member or "").upper())
        return all(any(w in f for f in fields) for w in words)


class FilterMatches:
    """A filter's answer per guest, worked out again only when the guest's state, member or
    workload changed: a frame of a thousand guests costs a comparison each."""

    def __init__(self, flt: GuestFilter | None = None) -> None:
        self.filter = flt or GuestFilter()
        self._known: dict[str, tuple[tuple[str, str, str | None], bool]] = {}

    def set_filter(self, flt: GuestFilter) -> None:
        """Match against ``flt`` from now on."""
        if flt != self.filter:
            self.filter = flt
            self._known.clear()

    def matches(self, userid: str, workload: str, state: str, member: str | None) -> bool:
        """``GuestFilter.matches``, remembered."""
        if not self.filter.active:
            return True
        key = (workload, state, member)
        known = self._known.get(userid)
        if known is None or known[0] != key:
            known = (key, self.filter.matches(userid, workload, state, member))
            self._known[userid] = known
        return known[1]


__all__ = ["GROUPINGS", "FilterMatches", "GuestFilter", "workload_type"]
