"""Time series the plots draw, kept on the main thread in growable NumPy arrays (no Qt here).

The rows are the engine's own samples (``SampleSet``, from the worker's sample feed), column
for column: the window computes no sample of its own. Plots are handed views of these arrays,
so a redraw costs one ``setData`` per curve and no copying. A very long session is thinned
(every other row dropped) instead of growing without bound.
"""

from __future__ import annotations

import numpy as np

from ssisim.engine import GuestSample, MemberSample, SampleSet

from .frames import relocation_key

#: The columns kept of a member: the numbers of an engine ``MemberSample`` (pages, pages per
#: second, percent), named as its fields.
MEMBER_COLUMNS: tuple[str, ...] = MemberSample._fields[2:]
#: The columns kept of a guest: the numbers of an engine ``GuestSample``.
GUEST_COLUMNS: tuple[str, ...] = GuestSample._fields[4:]
_THROUGHPUT = GUEST_COLUMNS.index("throughput")

#: Rows kept before the history is thinned to half its resolution.
MAX_ROWS = 200_000
#: At most this many numbers in the guests' columns (8 bytes each: 128 MB). A thousand guests
#: make rows of 5,000 numbers: their history is thinned after 3,200 rows rather than 200,000
#: (8 GB). Its room is taken at once, and the system maps the pages as rows are written: grown
#: by copying, as a small history is, 40 MB and more at a time, it stopped the window for
#: 100 ms and more.
MAX_GUEST_CELLS = 16_000_000


class Columns:
    """A growable 2-D float array: rows appended at the end, read as a view."""

    def __init__(self, width: int, capacity: int = 1024) -> None:
        self._data = np.zeros((capacity, width))
        self.n = 0

    def append(self, rows: np.ndarray) -> None:
        """Append ``rows`` (shape ``(k, width)``)."""
        k = len(rows)
        if self.n + k > len(self._data):
            grown = np.zeros((max(2 * len(self._data), self.n + k), self._data.shape[1]))
            grown[: self.n] = self._data[: self.n]
            self._data = grown
        self._data[self.n : self.n + k] = rows
        self.n += k

    def view(self) -> np.ndarray:
        """The rows so far (a view: do not keep it across appends)."""
        return self._data[: self.n]

    def thin(self) -> None:
        """Keep every other row."""
        kept = self._data[: self.n : 2].copy()
        self._data[: len(kept)] = kept
        self.n = len(kept)


class RelocationSeries:
    """Link throughput of one relocation over time: t, pages/s sent, pages/s capacity, left."""

    def __init__(self) -> None:
        self.cols = Columns(4, 256)

    @property
    def t(self) -> np.ndarray:
        """Simulated seconds."""
        return self.cols.view()[:, 0]

    @property
    def pages_per_s(self) -> np.ndarray:
        """Pages sent per second."""
        return self.cols.view()[:, 1]

    @property
    def capacity(self) -> np.ndarray:
        """Pages per second the link could carry for this relocation."""
        return self.cols.view()[:, 2]


class History:
    """Everything the plots need, for the members and guests of one simulation.

    Parameters
    ----------
    members, guests : sequence of str
        Names in snapshot order (the order of the members and guests of every ``SampleSet``).
    """

    def __init__(self, members: list[str], guests: list[str]) -> None:
        self.members = list(members)
        self.guests = list(guests)
        width = len(self.guests) * len(GUEST_COLUMNS)
        #: Rows kept before the history is thinned (fewer for many guests: ``MAX_GUEST_CELLS``).
        self.max_rows = max(256, min(MAX_ROWS, MAX_GUEST_CELLS // max(1, width)))
        room = self.max_rows + 64 if self.max_rows < MAX_ROWS else 1024
        self._t = Columns(1, room)
        self._m = Columns(len(self.members) * len(MEMBER_COLUMNS), room)
        self._g = Columns(width, room)
        self.relocations: dict[str, RelocationSeries] = {}
        self._stride = 1  # keep one sample in this many (grows when thinned)
        self._skip = 0
        self.version = 0  # changes whenever rows are added, for views that redraw on change

    def __len__(self) -> int:
        return self._t.n

    def extend(self, samples: tuple[SampleSet, ...] | list[SampleSet]) -> None:
        """Append the engine's samples of a frame.

        A guest's throughput while Linux suspends or resumes (``SampleSet.stand_in``) is drawn
        as 0: its workload serves nothing then; the engine's number is its stand-in work.
        """
        if not samples:
            return
        keep = []
        for s in samples:
            for r in s.links:  # link throughput is never thinned: relocations are short
                series = self.relocations.setdefault(relocation_key(r), RelocationSeries())
                series.cols.append(np.array([[s.t_s, r.pages_per_s, r.link_pages_per_s,
                                              r.pages_left]]))
            self._skip += 1
            if self._skip >= self._stride:
                self._skip = 0
                keep.append(s)
        if keep:
            nm, ng = len(self.members), len(self.guests)
            self._t.append(np.array([[s.t_s] for s in keep]))
            self._m.append(np.array([[v for m in s.members for v in m[2:]] if nm else []
                                     for s in keep], dtype=float).reshape(len(keep), -1))
            g = np.array([[v for g in s.guests for v in g[4:]] if ng else [] for s in keep],
                         dtype=float).reshape(len(keep), -1)
            for row, s in enumerate(keep):
                for uid in s.stand_in:
                    g[row, self.guests.index(uid) * len(GUEST_COLUMNS) + _THROUGHPUT] = 0.0
            self._g.append(g)
            if self._t.n > self.max_rows:
                for c in (self._t, self._m, self._g):
                    c.thin()
                self._stride *= 2
        self.version += 1

    @property
    def t(self) -> np.ndarray:
        """Simulated seconds of each row."""
        return self._t.view()[:, 0]

    def member(self, name: str, column: str) -> np.ndarray:
        """One column (``MEMBER_COLUMNS``: a ``MemberSample`` field) of one member over time."""
        i = self.members.index(name)
        j = MEMBER_COLUMNS.index(column)
        return self._m.view()[:, i * len(MEMBER_COLUMNS) + j]

    def guest(self, userid: str, column: str) -> np.ndarray:
        """One column (``GUEST_COLUMNS``: a ``GuestSample`` field) of one guest over time."""
        i = self.guests.index(userid)
        j = GUEST_COLUMNS.index(column)
        return self._g.view()[:, i * len(GUEST_COLUMNS) + j]
