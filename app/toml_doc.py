"""A scenario file as an editable TOML document that keeps the planner's comments and order.

Every edit is a pure function from document text to document text (``ScenarioDoc`` holds one
text and hands out new ones), so an undo stack only has to keep texts. Edits go through
tomlkit, which keeps comments, blank lines, key order and indentation; what this module adds is
where a new or removed table's neighbouring comments go: a comment written above a table
header stays above the header that follows it, and nothing a planner wrote is dropped when a
table is removed. Qt-free.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import tomlkit
from tomlkit.items import AoT, Comment, Item, Table, Whitespace

from ssisim.engine import WORKLOAD_TYPES, format_size, parse_size_mb, size_to_pages

#: The path of a table in the document: ``("member", 0)``, ``("member", 0, "volume", 1)``,
#: ``("link", 0)``, ``("guest", 3)``.
Path = tuple[Any, ...]

#: Indentation of ``[[member.volume]]`` tables when the member has none to copy it from (the
#: scenario format's own examples indent them by two).
VOLUME_INDENT = 2


class DocError(ValueError):
    """An edit this editor cannot make faithfully (the document is left as it was)."""


# -- values --------------------------------------------------------------------------------------
def toml_literal(value: Any) -> str:
    """``value`` as TOML writes it: ``"16G"``, ``4``, ``0.5``."""
    return tomlkit.item(value).as_string()


def number(value: float) -> int | float:
    """A number for the file: whole numbers as integers (``1536``, not ``1536.0``)."""
    if math.isfinite(value) and float(value).is_integer() and abs(value) < 2**53:
        return int(value)
    return float(value)


def size_text(text: str) -> str:
    """A size as the scenario format writes it (``"16G"``, ``"512M"``) when it means the same
    number of pages; otherwise the text as typed (the loader says what is wrong with it)."""
    typed = text.strip()
    try:
        pages = size_to_pages(typed)
    except ValueError:
        return typed
    if pages <= 0:
        return typed
    canon = format_size(pages)
    try:
        same = size_to_pages(canon) == pages
    except ValueError:
        same = False
    return canon if same else typed


def parse_typed(text: str, kind: str) -> Any:
    """What a form field's text means in the file, by the field's kind.

    ``int`` and ``number`` fields become numbers when they read as one, otherwise they stay
    text so that the loader's message names what was typed; ``size`` fields are written as the
    scenario format writes sizes; empty text is None (the field is removed: its default holds).
    """
    t = text.strip()
    if not t:
        return None
    if kind == "size":
        return size_text(t)
    if kind == "reserved":  # a page count, or a size with a unit
        return int(t) if t.isdigit() else size_text(t)
    if kind in ("int", "number"):
        try:
            return int(t)
        except ValueError:
            pass
        try:
            v = float(t)
        except ValueError:
            return t
        return v if math.isfinite(v) else t
    return t


def shown(value: Any) -> str:
    """A value of the file in a form field (numbers without ``.0``)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{number(value)}" if value.is_integer() else repr(value)
    return str(value)


def size_mb(value: Any) -> float | None:
    """A size field in MB, or None when it is not a size."""
    try:
        return parse_size_mb(value)
    except (ValueError, TypeError):
        return None


# -- comments and blank lines around tables -------------------------------------------------------
def _tail(table: Table) -> Table:
    """The table whose body holds the lines up to the next table header: the table itself, or
    the last of its ``[[...]]`` sub-tables (a member's last volume)."""
    while True:
        real = [item for key, item in table.value.body if key is not None]
        if real and isinstance(real[-1], AoT) and len(real[-1]):
            table = real[-1][-1]
            continue
        return table


def _trivia(table: Table) -> list[Item]:
    """The blank lines and comments at the end of a table's body."""
    body = table.value.body
    n = 0
    while n < len(body) and body[-1 - n][0] is None \
            and isinstance(body[-1 - n][1], (Whitespace, Comment)):
        n += 1
    return [item for _, item in body[len(body) - n:]]


def _pop_trivia(table: Table) -> list[Item]:
    """Take the blank lines and comments off the end of a table's body."""
    out = _trivia(table)
    del table.value.body[len(table.value.body) - len(out):]
    return out


def _push_trivia(table: Table, items: list[Item]) -> None:
    for item in items:
        table.value.append(None, item)


def _lead_ws(items: list[Item]) -> list[Item]:
    out = []
    for item in items:
        if not isinstance(item, Whitespace):
            break
        out.append(item)
    return out


def _set(table: Table, key: str, value: Any) -> None:
    """Set or remove (None) a key, a new key going before the comments at the table's end
    (they are above the next table's header, and belong to it)."""
    if value is None:
        if key in table:
            del table[key]
        return
    if key in table:
        table[key] = value
        return
    trivia = _pop_trivia(table)
    table[key] = value
    _push_trivia(table, trivia)


def _preceding_tail(doc: tomlkit.TOMLDocument, key: str) -> Table | None:
    """The table just before the top-level array ``key`` (where comments above its first
    header live), or None when plain keys or comments come first."""
    body = doc.body
    idx = next((j for j, (k, _) in enumerate(body) if k is not None and k.key == key), None)
    if not idx:
        return None
    k, prev = body[idx - 1]
    if k is None:
        return None
    if isinstance(prev, AoT) and len(prev):
        return _tail(prev[-1])
    if isinstance(prev, Table):
        return _tail(prev)
    return None


def _append(doc: tomlkit.TOMLDocument, parent: Any, key: str, new: Table, nested: bool) -> int:
    """Append ``new`` to the array of tables ``parent[key]`` (created when missing); returns
    its index. The lines after the last table (a blank line, the next section's comment) move
    below the new one; the new one is separated from the last as its siblings are."""
    aot = parent.get(key)
    if aot is not None and not isinstance(aot, AoT):
        raise DocError(f"{key} is not written as [[{key}]] tables; edit it in a text editor")
    if aot is not None and len(aot):
        last = _tail(aot[-1])
        sep = _lead_ws(_trivia(_tail(aot[-2]))) if len(aot) >= 2 else None
        trivia = _pop_trivia(last)
        if sep is None:
            sep = [] if nested else (_lead_ws(trivia) or [tomlkit.ws("\n")])
        _push_trivia(last, [tomlkit.ws(w.as_string()) for w in sep])
        if nested:
            new.indent(len(aot[-1].trivia.indent))
        aot.append(new)
        _push_trivia(new, trivia)
        return len(aot) - 1
    if nested:
        # a first volume: the member's own trailing lines move below it
        trivia = _pop_trivia(parent)
        new.indent(VOLUME_INDENT)
        fresh = tomlkit.aot()
        fresh.append(new)
        parent[key] = fresh
        _push_trivia(new, trivia)
        return 0
    fresh = tomlkit.aot()
    fresh.append(new)
    doc[key] = fresh
    return 0


def _remove(doc: tomlkit.TOMLDocument, parent: Any, key: str, i: int) -> None:
    """Remove table ``i`` of the array ``parent[key]``; the comments after it (above the next
    header) and above it are kept, above the table that now follows."""
    aot = parent.get(key)
    if not isinstance(aot, AoT) or not 0 <= i < len(aot):
        raise DocError(f"there is no {key}[{i}]")
    trivia = _pop_trivia(_tail(aot[i]))
    if i > 0:
        holder: Table | None = _tail(aot[i - 1])
    elif parent is doc:
        holder = _preceding_tail(doc, key)
    else:
        holder = parent if len(aot) == 1 else None
    if len(aot) == 1:
        del parent[key]
    else:
        del aot[i]
    if holder is None:
        return
    h = _pop_trivia(holder)
    lead_h = _lead_ws(h)
    comments_h = h[len(lead_h):]
    lead_t = _lead_ws(trivia)
    rest_t = trivia[len(lead_t):]
    _push_trivia(holder, (lead_h or lead_t) + comments_h + rest_t)


def _inline(pairs: list[tuple[str, Any]], spaced: bool) -> Item:
    """An inline table written as the scenario format writes them."""
    inner = ", ".join(f"{k} = {toml_literal(v)}" for k, v in pairs)
    text = f"{{ {inner} }}" if spaced else f"{{{inner}}}"
    if not pairs:
        text = "{}"
    return tomlkit.parse(f"x = {text}\n")["x"]


# -- the document ------------------------------------------------------------------------------
class ScenarioDoc:
    """The text of one scenario file, read through tomlkit.

    Parameters
    ----------
    text : str
        TOML text (a scenario file as the window loaded it).

    Raises
    ------
    DocError
        When the text is not TOML tomlkit can read.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        try:
            self._data = tomlkit.parse(text).unwrap()
        except Exception as e:  # tomlkit's parse errors have no common public base
            raise DocError(f"not valid TOML: {e}") from None

    # -- reading -----------------------------------------------------------------------------
    def _list(self, key: str) -> list[dict[str, Any]]:
        v = self._data.get(key, [])
        return [t for t in v if isinstance(t, dict)] if isinstance(v, list) else []

    def members(self) -> list[dict[str, Any]]:
        """The ``[[member]]`` tables as plain values."""
        return self._list("member")

    def volumes(self, mi: int) -> list[dict[str, Any]]:
        """The ``[[member.volume]]`` tables of member ``mi``."""
        v = self.members()[mi].get("volume", [])
        return [t for t in v if isinstance(t, dict)] if isinstance(v, list) else []

    def links(self) -> list[dict[str, Any]]:
        """The ``[[link]]`` tables."""
        return self._list("link")

    def guests(self) -> list[dict[str, Any]]:
        """The ``[[guest]]`` tables."""
        return self._list("guest")

    def get(self, path: Path) -> dict[str, Any]:
        """The table at ``path`` as plain values."""
        if path[0] == "member" and len(path) == 4:
            return self.volumes(path[1])[path[3]]
        return self._list(path[0])[path[1]]

    def member_names(self) -> list[str]:
        """The members' names, as written."""
        return [str(m.get("name", "")) for m in self.members()]

    # -- editing -----------------------------------------------------------------------------
    def _edit(self, change: Callable[[tomlkit.TOMLDocument], Any]) -> tuple[str, Any]:
        doc = tomlkit.parse(self.text)
        result = change(doc)
        out = tomlkit.dumps(doc)
        # tomlkit keeps what it can; an edit it would write as something else is refused
        # rather than saved wrong
        try:
            same = tomlkit.parse(out).unwrap() == doc.unwrap()
        except Exception:
            same = False
        if not same:
            raise DocError("this edit cannot be written without changing other parts of the "
                           "file; make it in a text editor")
        return out, result

    @staticmethod
    def _table(doc: tomlkit.TOMLDocument, path: Path) -> Table:
        try:
            t: Any = doc
            for part in path:
                t = t[part]
        except (KeyError, IndexError):
            raise DocError(f"there is no {_name(path)}") from None
        if not isinstance(t, Table):
            raise DocError(f"{_name(path)} is not a [[...]] table; edit it in a text editor")
        return t

    def set_field(self, path: Path, key: str, value: Any) -> str:
        """Text with ``key`` of the table at ``path`` set to ``value`` (None: removed)."""
        return self._edit(lambda doc: _set(self._table(doc, path), key, value))[0]

    def set_fields(self, path: Path, values: dict[str, Any]) -> str:
        """Text with several keys of one table set at once (None: removed)."""

        def change(doc: tomlkit.TOMLDocument) -> None:
            t = self._table(doc, path)
            for k, v in values.items():
                _set(t, k, v)

        return self._edit(change)[0]

    def rename_member(self, mi: int, name: str) -> str:
        """Text with member ``mi`` renamed, and the guests and links that named it too."""
        old = str(self.members()[mi].get("name", "")).upper()

        def change(doc: tomlkit.TOMLDocument) -> None:
            _set(self._table(doc, ("member", mi)), "name", name)
            if not old:
                return
            for gi, g in enumerate(self.guests()):
                if str(g.get("member", "")).upper() == old:
                    _set(self._table(doc, ("guest", gi)), "member", name)
            for li, ln in enumerate(self.links()):
                pair = ln.get("members")
                if isinstance(pair, list) and any(str(m).upper() == old for m in pair):
                    new = [name if str(m).upper() == old else m for m in pair]
                    _set(self._table(doc, ("link", li)), "members", new)
            # a planner's objectives that name the member (``member_empty``, ...)
            for oi, ob in enumerate(self._list("objective")):
                if str(ob.get("member", "")).upper() == old:
                    _set(self._table(doc, ("objective", oi)), "member", name)

        return self._edit(change)[0]

    def set_workload(self, gi: int, kind: str, params: dict[str, float]) -> str:
        """Text with guest ``gi``'s workload table set to ``kind`` and ``params`` (parameters
        at their defaults are left out, as the ``WORKLOAD`` command leaves them out)."""
        spec = WORKLOAD_TYPES.get(kind, {"params": {}})["params"]
        pairs: list[tuple[str, Any]] = [("type", kind)]
        for name, value in params.items():
            p = spec.get(name)
            if p is not None and float(value) == float(p.default):
                continue
            pairs.append((name, number(value)))
        return self.set_field(("guest", gi), "workload", _inline(pairs, spaced=True))

    def set_chpids(self, li: int, chpids: list[dict[str, Any]]) -> str:
        """Text with link ``li``'s CHPIDs replaced (``[{gbps = 8, ctcs = 4}, ...]``)."""
        items = [_inline([(k, v) for k, v in c.items() if v is not None], spaced=False)
                 for c in chpids]
        arr = tomlkit.array()
        for it in items:
            arr.append(it)
        return self.set_field(("link", li), "chpids", arr)

    def add(self, path: Path, values: dict[str, Any]) -> tuple[str, Path]:
        """Text with a table of ``values`` appended to the array at ``path`` (``("guest",)``,
        ``("member", 0, "volume")``), and the new table's path."""
        table = tomlkit.table()
        for k, v in values.items():
            if isinstance(v, dict):
                table[k] = _inline(list(v.items()), spaced=True)
            else:
                table[k] = v

        def change(doc: tomlkit.TOMLDocument) -> int:
            parent: Any = doc if len(path) == 1 else self._table(doc, path[:-1])
            return _append(doc, parent, path[-1], table, nested=len(path) > 1)

        text, index = self._edit(change)
        return text, (*path, index)

    def remove(self, path: Path) -> str:
        """Text without the table at ``path``."""

        def change(doc: tomlkit.TOMLDocument) -> None:
            parent: Any = doc if len(path) == 2 else self._table(doc, path[:-2])
            _remove(doc, parent, path[-2], path[-1])

        return self._edit(change)[0]

    # -- new tables -----------------------------------------------------------------------------
    def new_member(self) -> dict[str, Any]:
        """A member to add: the next free ``MEMBn``, 4 CPUs, 16G central."""
        taken = {n.upper() for n in self.member_names()}
        n = len(taken) + 1
        while f"MEMB{n}" in taken:
            n += 1
        return {"name": f"MEMB{n}", "cpus": 4, "central": "16G"}

    def new_volume(self, mi: int) -> dict[str, Any]:
        """A paging volume to add to member ``mi``, labelled after its last one."""
        vols = self.volumes(mi)
        taken = {str(v.get("volid", "")).upper() for v in vols}
        stem, digits = "PAG", 3
        if vols:
            last = str(vols[-1].get("volid", ""))
            head = last.rstrip("0123456789")
            if head != last and head:
                stem, digits = head, len(last) - len(head)
        n = len(vols) + 1
        while f"{stem}{n:0{digits}d}".upper() in taken:
            n += 1
        return {"volid": f"{stem}{n:0{digits}d}"[:6], "size": "8G", "service_ms": 0.5,
                "queue_depth": 4}

    def new_link(self) -> dict[str, Any]:
        """A link to add: the first two members not yet linked, one 8 Gbit/s CHPID."""
        names = self.member_names()
        linked = {frozenset(str(m).upper() for m in ln.get("members", []))
                  for ln in self.links() if isinstance(ln.get("members"), list)}
        pair = names[:2]
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if frozenset((a.upper(), b.upper())) not in linked:
                    pair = [a, b]
                    break
            else:
                continue
            break
        table = tomlkit.array()
        table.append(_inline([("gbps", 8), ("ctcs", 4)], spaced=False))
        return {"members": pair, "chpids": table}

    def new_guest(self, member: str | None = None) -> dict[str, Any]:
        """A guest to add: the next free ``LNXNEWn``, 2G, idle, on ``member`` (else the
        first member)."""
        taken = {str(g.get("userid", "")).upper() for g in self.guests()}
        n = 1
        while f"LNXNEW{n}" in taken:
            n += 1
        names = self.member_names()
        return {"userid": f"LNXNEW{n}", "member": member or (names[0] if names else "MEMB1"),
                "storage": "2G", "workload": {"type": "idle"}}


def _name(path: Path) -> str:
    return ".".join(f"{path[i]}[{path[i + 1]}]" for i in range(0, len(path) - 1, 2))
