"""CP commands as values: one declarative grammar per verb, typed frozen commands, canonical text.

``parse_command(text)`` reads command text into a frozen command object (``VmrelocateMove``,
``SetReserved``, ...) or raises ``CPError`` with CP's message; ``str(cmd)`` prints the command
back as canonical CP text, so ``parse_command(str(cmd)) == cmd``. Each command class declares its
syntax in ``FORM``: keywords with their minimum abbreviations, operands with their kinds and
ranges, and options in any order. What a command *means* (does the guest exist, is it logged
on, does the destination have room) is decided when it is applied, not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from ..basics.cp import CPError, abbrev, number_text, parse_number, shown
from ..basics.units import MAX_PAGES, MAX_SIZE_TEXT, SizeError, pages_or_size
from ..basics.workloads import WORKLOAD_TYPES, WorkloadError, resolve_params

OPERATOR = "OPERATOR"


# -- operand kinds -------------------------------------------------------------------------------
class Kind:
    """What one operand may be: reads a token into a value and prints the value back.

    ``what`` names it in "operand missing" messages, ``label`` in "invalid operand" ones.
    """

    what = "operand"
    label = "OPERAND"

    def read(self, token: str, verb_id: str, name: str) -> Any:
        """The value of ``token``, or a ``CPError`` in the verb's message family."""
        raise NotImplementedError

    def show(self, value: Any) -> str:
        """The value as canonical CP text."""
        return str(value)


class Name(Kind):
    """A user ID, member or datastore name: 1 to 8 characters, kept in upper case."""

    def __init__(self, what: str) -> None:
        self.what = what

    def read(self, token: str, verb_id: str, name: str) -> str:
        if len(token) > 8:
            raise CPError(f"HCP{verb_id}003E", f"Invalid option - {shown(token.upper())}")
        return token.upper()


class Number(Kind):
    """A finite number from ``lo`` to ``hi``; ``nolimit`` also accepts NOLIMIT (None)."""

    def __init__(self, what: str, lo: float, hi: float, *, integer: bool = False,
                 nolimit: bool = False, auto: bool = False, percent: bool = False) -> None:
        self.what = self.label = what
        self.lo, self.hi = lo, hi
        self.integer, self.nolimit, self.auto, self.percent = integer, nolimit, auto, percent

    def read(self, token: str, verb_id: str, name: str) -> float | str | None:
        if self.nolimit and abbrev(token, "NOLIMIT", 5):
            return None
        if self.auto and abbrev(token, "AUTO", 4):
            return "AUTO"
        raw = token[:-1] if self.percent and token.endswith("%") else token
        v = parse_number(raw, name, verb_id, lo=self.lo, hi=self.hi)
        if self.integer:
            if v != int(v):
                raise CPError(f"HCP{verb_id}009E", f"An invalid operand was supplied for {name} - "
                              f"{shown(token)} ({number_text(self.lo)} to "
                              f"{number_text(self.hi)})")
            return int(v)
        return v

    def show(self, value: Any) -> str:
        if value is None:
            return "NOLIMIT"
        if isinstance(value, str):
            return value
        return _num(value)


class Pages(Kind):
    """A page count (digits), a CP size (``512M``) or OFF (0): SET RESERVED's amount."""

    what = "page count"
    label = "RESERVED"

    def read(self, token: str, verb_id: str, name: str) -> int:
        if token.upper() == "OFF":
            return 0
        try:
            pages = pages_or_size(token)
            if pages > MAX_PAGES:
                raise SizeError(token)
        except SizeError:
            raise CPError(f"HCP{verb_id}009E", f"An invalid operand was supplied for {name} - "
                          f"{shown(token)} (a page count, a size up to {MAX_SIZE_TEXT}, "
                          "or OFF)") from None
        return pages

    def show(self, value: Any) -> str:
        return str(value) if value else "OFF"


class Choice(Kind):
    """One word of a fixed list (each with its minimum abbreviation); the value is the word."""

    def __init__(self, what: str, words: tuple[tuple[str, int], ...], msgid: str = "003E",
                 listed: bool = False) -> None:
        self.what, self.words, self.msgid, self.listed = what, words, msgid, listed

    def read(self, token: str, verb_id: str, name: str) -> str:
        for word, minimum in self.words:
            if abbrev(token, word, minimum):
                return word
        extra = f"; {self.what}s: {', '.join(w for w, _ in self.words)}" if self.listed else ""
        raise CPError(f"HCP{verb_id}{self.msgid}", f"Invalid option - {shown(token.upper())}"
                      f"{extra}")


class Word(Kind):
    """Any word, kept as written (upper case when ``upper``)."""

    def __init__(self, what: str, upper: bool = False) -> None:
        self.what, self.upper = what, upper

    def read(self, token: str, verb_id: str, name: str) -> str:
        return token.upper() if self.upper else token


def _num(v: float) -> str:
    """A number as canonical text that reads back exactly: ``10``, ``0.25``, ``1e+300``."""
    f = float(v)
    return str(int(f)) if f.is_integer() and abs(f) < 2**53 else repr(f)


# -- syntax elements ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Kw:
    """A keyword; ``optional`` ones (noise words such as USER and TO) may be left out."""

    word: str
    minimum: int
    optional: bool = False


@dataclass(frozen=True)
class Arg:
    """A positional operand stored in ``name``; ``guest_omits``: a guest issuing the command
    leaves it out (it means the guest itself); ``optional``: may be missing at the end."""

    name: str
    kind: Kind
    guest_omits: bool = False
    optional: bool = False


@dataclass(frozen=True)
class Opt:
    """An option in any order after the operands: a flag (``kind`` None) or a keyword with a
    value. Options of one ``group`` exclude each other (SYNC and ASYNC)."""

    word: str
    minimum: int
    name: str
    kind: Kind | None = None
    value: Any = True
    group: str = ""
    then: tuple[str, int] | None = None  # a second word that must follow (FORCE STORAGE)


@dataclass(frozen=True)
class Rest:
    """The rest of the line is a command of its own (AT member CMD ..., SEND CP userid ...)."""

    name: str
    what: str = "command"


@dataclass(frozen=True)
class Pairs:
    """The rest of the line is PARAMETER value pairs (WORKLOAD), values as finite numbers."""

    name: str


Element = Kw | Arg | Opt | Rest | Pairs


# -- commands -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Command:
    """A parsed CP or simulator command. ``str(cmd)`` is its canonical text."""

    VERB: ClassVar[str] = ""
    MSG: ClassVar[str] = ""  # the three letters of its CP messages (HCPRLH..., HCPSET...)
    FORM: ClassVar[tuple[Element, ...]] = ()

    def check(self) -> None:
        """Rules between operands that the FORM alone cannot say; raises ``CPError``."""

    def __str__(self) -> str:
        words = [self.VERB]
        for el in self.FORM:
            if isinstance(el, Kw):
                if not el.optional or _next_has_value(self, el):
                    words.append(el.word)
            elif isinstance(el, Arg):
                v = getattr(self, el.name)
                if v is not None:
                    words.append(el.kind.show(v))
            elif isinstance(el, Opt):
                v = getattr(self, el.name)
                if _option_shown(self, el, v):
                    words.append(el.word if el.then is None else f"{el.word} {el.then[0]}")
                    if el.kind is not None:
                        words.append(el.kind.show(v))
            elif isinstance(el, Rest):
                words.append(str(getattr(self, el.name)))
            elif isinstance(el, Pairs):
                for k, v in getattr(self, el.name):
                    words += [k.upper(), _num(v)]
        return " ".join(words)


def _next_has_value(cmd: Command, kw: Kw) -> bool:
    """An optional keyword is printed only before an operand that is there."""
    after = cmd.FORM[cmd.FORM.index(kw) + 1:]
    if not after:
        return False
    return getattr(cmd, after[0].name) is not None if isinstance(after[0], Arg) else True


def _option_shown(cmd: Command, el: Opt, value: Any) -> bool:
    if el.name == "maxquiesce_s" and getattr(cmd, "immediate", False):
        return True  # IMMEDIATE alone would mean MAXQUIESCE NOLIMIT
    default = next(f.default for f in fields(cmd) if f.name == el.name)
    if el.kind is None:
        return bool(value == el.value and value != default)
    return bool(value != default)


# AT and SEND -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class At(Command):
    """``AT member CMD command``: run a command on another member."""

    VERB = "AT"
    MSG = "ATC"
    member: str = ""
    command: Command = field(default_factory=lambda: Hint())
    FORM = (Arg("member", Name("member")), Kw("CMD", 3), Rest("command"))


@dataclass(frozen=True)
class Send(Command):
    """``SEND CP userid command``: a command the guest issues itself."""

    VERB = "SEND"
    MSG = "SND"
    userid: str = ""
    command: Command = field(default_factory=lambda: Hint())
    FORM = (Kw("CP", 2), Arg("userid", Name("userid")), Rest("command"))


# QUERY and INDICATE -----------------------------------------------------------------------------
@dataclass(frozen=True)
class QueryAllocPage(Command):
    """``QUERY ALLOC PAGE``: the member's paging space."""

    VERB = "QUERY"
    MSG = "QUE"
    FORM = (Kw("ALLOC", 5), Kw("PAGE", 4))


@dataclass(frozen=True)
class QueryNames(Command):
    """``QUERY NAMES``: the users logged on to the member."""

    VERB = "QUERY"
    MSG = "QUE"
    FORM = (Kw("NAMES", 1),)


@dataclass(frozen=True)
class QuerySSI(Command):
    """``QUERY SSI``: the cluster's members and their state."""

    VERB = "QUERY"
    MSG = "QUE"
    FORM = (Kw("SSI", 3),)


@dataclass(frozen=True)
class QueryIslink(Command):
    """``QUERY ISLINK``: the member's ISFC links."""

    VERB = "QUERY"
    MSG = "QUE"
    FORM = (Kw("ISLINK", 6),)


@dataclass(frozen=True)
class QueryStorage(Command):
    """``QUERY STORAGE``: the member's central storage."""

    VERB = "QUERY"
    MSG = "QUE"
    FORM = (Kw("STORAGE", 4),)


@dataclass(frozen=True)
class QueryXstore(Command):
    """``QUERY XSTORE``: the member's expanded storage."""

    VERB = "QUERY"
    MSG = "QUE"
    FORM = (Kw("XSTORE", 5),)


@dataclass(frozen=True)
class QueryWorkload(Command):
    """``QUERY WORKLOAD userid`` (simulator): what the guest runs."""

    VERB = "QUERY"
    MSG = "QUE"
    userid: str = ""
    FORM = (Kw("WORKLOAD", 4), Arg("userid", Name("userid")))


@dataclass(frozen=True)
class QueryUser(Command):
    """``QUERY userid``: where a user is logged on."""

    VERB = "QUERY"
    MSG = "CQU"
    userid: str = ""
    # any word: what is not a user ID is answered when applied (with a guess at the query meant)
    FORM = (Arg("userid", Word("userid", upper=True)),)


@dataclass(frozen=True)
class IndicateLoad(Command):
    """``INDICATE [LOAD]``: the member's load."""

    VERB = "INDICATE"
    MSG = "IND"
    FORM = (Kw("LOAD", 4, optional=True),)


@dataclass(frozen=True)
class IndicateUser(Command):
    """``INDICATE USER userid``: one user's resources."""

    VERB = "INDICATE"
    MSG = "IND"
    userid: str = ""
    FORM = (Kw("USER", 4), Arg("userid", Name("userid")))


# LOGON, XAUTOLOG, LOGOFF, FORCE ------------------------------------------------------------------
@dataclass(frozen=True)
class Xautolog(Command):
    """``XAUTOLOG userid [AT member]``: log a guest on."""

    VERB = "XAUTOLOG"
    MSG = "XAU"
    userid: str = ""
    at: str | None = None
    FORM = (Arg("userid", Name("userid")), Opt("AT", 2, "at", Name("member")))


@dataclass(frozen=True)
class Logon(Command):
    """``LOGON userid [AT member]``: log a guest on."""

    VERB = "LOGON"
    MSG = "XAU"
    userid: str = ""
    at: str | None = None
    FORM = (Arg("userid", Name("userid")), Opt("AT", 2, "at", Name("member")))


@dataclass(frozen=True)
class Logoff(Command):
    """``LOGOFF userid`` (the operator) or ``LOGOFF`` (a guest logs itself off)."""

    VERB = "LOGOFF"
    MSG = "LOG"
    userid: str | None = None
    FORM = (Arg("userid", Name("userid"), guest_omits=True),)


@dataclass(frozen=True)
class Force(Command):
    """``FORCE userid``: log a guest off."""

    VERB = "FORCE"
    MSG = "FOR"
    userid: str = ""
    FORM = (Arg("userid", Name("userid")),)


# SET --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SetReserved(Command):
    """``SET RESERVED [USER] userid pages|size|OFF``: pages the demand scan leaves alone."""

    VERB = "SET"
    MSG = "SET"
    userid: str = ""
    pages: int = 0
    FORM = (Kw("RESERVED", 3), Kw("USER", 4, optional=True), Arg("userid", Name("userid")),
            Arg("pages", Pages()))


@dataclass(frozen=True)
class SetShare(Command):
    """``SET SHARE userid [RELATIVE] n | ABSOLUTE n%``."""

    VERB = "SET"
    MSG = "SET"
    userid: str = ""
    scale: str = "RELATIVE"
    value: float = 100.0
    FORM = (Kw("SHARE", 2), Arg("userid", Name("userid")),
            Arg("scale", Choice("share", (("ABSOLUTE", 3), ("RELATIVE", 3))), optional=True),
            Arg("value", Number("SHARE", 1, 10000, percent=True)))

    def check(self) -> None:
        if self.scale == "ABSOLUTE" and self.value > 100:
            raise CPError("HCPSET009E", f"An invalid operand was supplied for SHARE - "
                          f"{self.value:g}% (1 to 100)")

    def __str__(self) -> str:
        pct = "%" if self.scale == "ABSOLUTE" else ""
        return f"SET SHARE {self.userid} {self.scale} {_num(self.value)}{pct}"


# WORKLOAD (simulator) ---------------------------------------------------------------------------
@dataclass(frozen=True)
class WorkloadStart(Command):
    """``WORKLOAD userid START type [PARAM value]...``."""

    VERB = "WORKLOAD"
    MSG = "WKL"
    userid: str | None = None
    type: str = "none"
    params: tuple[tuple[str, float], ...] = ()
    FORM = (Arg("userid", Name("userid"), guest_omits=True), Kw("START", 4),
            Arg("type", Word("workload type", upper=True)), Pairs("params"))

    def check(self) -> None:
        workload_problem(self.type, dict(self.params))


@dataclass(frozen=True)
class WorkloadStop(Command):
    """``WORKLOAD userid STOP``: the guest runs nothing (it goes dormant)."""

    VERB = "WORKLOAD"
    MSG = "WKL"
    userid: str | None = None
    FORM = (Arg("userid", Name("userid"), guest_omits=True), Kw("STOP", 4))


@dataclass(frozen=True)
class WorkloadSet(Command):
    """``WORKLOAD userid SET PARAM value...``: change parameters of the running workload."""

    VERB = "WORKLOAD"
    MSG = "WKL"
    userid: str | None = None
    params: tuple[tuple[str, float], ...] = ()
    FORM = (Arg("userid", Name("userid"), guest_omits=True), Kw("SET", 3), Pairs("params"))

    def check(self) -> None:
        if not self.params:
            raise CPError("HCPWKL026E", "Operand missing or invalid (parameter)")
        # the running workload's type is known only when applied; a value no type accepts is
        # wrong whatever the guest runs
        for name, value in self.params:
            specs = [t["params"][name] for t in WORKLOAD_TYPES.values() if name in t["params"]]
            if not specs:
                raise CPError("HCPWKL003E", f"No workload has a parameter {shown(name)}")
            if not any(p.lo <= value <= p.hi for p in specs):
                lo, hi = min(p.lo for p in specs), max(p.hi for p in specs)
                raise CPError("HCPWKL003E", f"parameter {name}={value:g} is out of range "
                              f"{lo:g} to {hi:g}")


def workload_problem(kind: str, params: dict[str, float]) -> None:
    """CP's error when ``kind`` is not a workload type or a parameter is not one of it."""
    try:
        resolve_params(kind, params)
    except WorkloadError as e:
        valid = ", ".join(k.upper() for k in WORKLOAD_TYPES)
        msg = str(e) if "unknown workload type" not in str(e) else (
            f"Unknown workload type {shown(kind.upper())}; valid: {valid}")
        raise CPError("HCPWKL003E", msg.replace("'", "")) from None


# VMRELOCATE -------------------------------------------------------------------------------------
_SECONDS = 99_999_999
_RELOC_OPTIONS = (
    Opt("SYNC", 4, "sync", value=True, group="SYNC"),
    Opt("ASYNC", 5, "sync", value=False, group="SYNC"),
    Opt("IMMEDIATE", 5, "immediate"),
    Opt("MAXQUIESCE", 4, "maxquiesce_s", Number("MAXQUIESCE", 1, _SECONDS, nolimit=True)),
    Opt("MAXTOTAL", 4, "maxtotal_s", Number("MAXTOTAL", 1, _SECONDS, nolimit=True)),
    Opt("FORCE", 5, "force_storage", then=("STORAGE", 4)),
)
DEFAULT_MAXQUIESCE_S = 10.0


@dataclass(frozen=True)
class _Relocate(Command):
    VERB = "VMRELOCATE"
    MSG = "RLH"
    userid: str = ""
    dest: str = ""
    sync: bool = True
    immediate: bool = False
    maxquiesce_s: float | None = DEFAULT_MAXQUIESCE_S  # None: NOLIMIT
    maxtotal_s: float | None = None
    force_storage: bool = False

    def check(self) -> None:
        if (self.maxquiesce_s is not None and self.maxtotal_s is not None
                and self.maxtotal_s < self.maxquiesce_s):
            raise CPError("HCPRLH1941E", f"MAXTOTAL {self.maxtotal_s:g} is less than MAXQUIESCE "
                          f"{self.maxquiesce_s:g}")


@dataclass(frozen=True)
class VmrelocateMove(_Relocate):
    """``VMRELOCATE MOVE [USER] userid [TO] member [options]``: relocate a running guest."""

    FORM = (Kw("MOVE", 4), Kw("USER", 4, optional=True), Arg("userid", Name("userid")),
            Kw("TO", 2, optional=True), Arg("dest", Name("destination member")),
            *_RELOC_OPTIONS)


@dataclass(frozen=True)
class VmrelocateTest(_Relocate):
    """``VMRELOCATE TEST [USER] userid [TO] member [FORCE STORAGE]``: check, move nothing."""

    FORM = (Kw("TEST", 4), Kw("USER", 4, optional=True), Arg("userid", Name("userid")),
            Kw("TO", 2, optional=True), Arg("dest", Name("destination member")),
            *_RELOC_OPTIONS)


@dataclass(frozen=True)
class VmrelocateStatus(Command):
    """``VMRELOCATE STATUS [[USER] userid]``: relocations in progress."""

    VERB = "VMRELOCATE"
    MSG = "RLH"
    userid: str | None = None
    FORM = (Kw("STATUS", 4), Kw("USER", 4, optional=True),
            Arg("userid", Name("userid"), optional=True))


@dataclass(frozen=True)
class VmrelocateCancel(Command):
    """``VMRELOCATE CANCEL [USER] userid``."""

    VERB = "VMRELOCATE"
    MSG = "RLH"
    userid: str = ""
    FORM = (Kw("CANCEL", 6), Kw("USER", 4, optional=True), Arg("userid", Name("userid")))


# STOP, BEGIN, LINUX ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Stop(Command):
    """``STOP [CPU ALL]`` (issued by a guest): its virtual CPUs stop."""

    VERB = "STOP"
    MSG = "STP"
    FORM = (Opt("CPU", 3, "all_cpus", then=("ALL", 3)),)
    all_cpus: bool = False


@dataclass(frozen=True)
class Begin(Command):
    """``BEGIN`` (issued by a guest): its virtual CPUs continue."""

    VERB = "BEGIN"
    MSG = "BEG"


@dataclass(frozen=True)
class Linux(Command):
    """``LINUX userid SUSPEND|RESUME`` (simulator): Linux hibernates to swap, or resumes."""

    VERB = "LINUX"
    MSG = "LNX"
    userid: str = ""
    action: str = "SUSPEND"
    FORM = (Arg("userid", Name("userid")),
            Arg("action", Choice("action", (("SUSPEND", 4), ("HIBERNATE", 4), ("RESUME", 4)))))

    def __post_init__(self) -> None:
        if self.action == "HIBERNATE":
            object.__setattr__(self, "action", "SUSPEND")


# VMOTION and LPM (simulator) ----------------------------------------------------------------------
@dataclass(frozen=True)
class Vmotion(Command):
    """``VMOTION userid [TO] datastore [METHOD m] [HEAT]``: Storage vMotion of a guest's disk."""

    VERB = "VMOTION"
    MSG = "VMO"
    userid: str = ""
    datastore: str = ""
    method: str = "MIRROR"
    heat: bool = False
    FORM = (Arg("userid", Name("userid")), Kw("TO", 2, optional=True),
            Arg("datastore", Name("datastore")),
            Opt("METHOD", 4, "method", Choice("method", (("MIRROR", 6), ("DBT", 3),
                                                          ("INCDBT", 6), ("SNAPSHOT", 8)),
                                              listed=True)),
            Opt("HEAT", 4, "heat"))

    def check(self) -> None:
        if self.heat and self.method not in ("DBT", "INCDBT"):
            raise CPError("HCPVMO1941E", f"HEAT applies to METHOD DBT or INCDBT, not "
                          f"{self.method}")


@dataclass(frozen=True)
class VmotionStatus(Command):
    """``VMOTION STATUS``."""

    VERB = "VMOTION"
    MSG = "VMO"
    FORM = (Kw("STATUS", 4),)


@dataclass(frozen=True)
class VmotionCancel(Command):
    """``VMOTION CANCEL userid``."""

    VERB = "VMOTION"
    MSG = "VMO"
    userid: str = ""
    FORM = (Kw("CANCEL", 6), Arg("userid", Name("userid")))


# newer firmware's most copy threads per MSP (engine/migrations/lpm.py LPMModel)
LPM_MAX_THREADS = 8


@dataclass(frozen=True)
class Lpm(Command):
    """``LPM userid [TO] member [THREADS n|AUTO] [COMPRESS]``: PowerVM Live Partition Mobility."""

    VERB = "LPM"
    MSG = "LPM"
    userid: str = ""
    dest: str = ""
    threads: int | str | None = None  # None: the firmware's default; "AUTO"
    compress: bool = False
    FORM = (Arg("userid", Name("userid")), Kw("TO", 2, optional=True),
            Arg("dest", Name("destination member")),
            Opt("THREADS", 6, "threads", Number("THREADS", 1, LPM_MAX_THREADS, integer=True,
                                                auto=True)),
            Opt("COMPRESS", 4, "compress"))


@dataclass(frozen=True)
class LpmStatus(Command):
    """``LPM STATUS``."""

    VERB = "LPM"
    MSG = "LPM"
    FORM = (Kw("STATUS", 4),)


@dataclass(frozen=True)
class LpmCancel(Command):
    """``LPM CANCEL userid``."""

    VERB = "LPM"
    MSG = "LPM"
    userid: str = ""
    FORM = (Kw("CANCEL", 6), Arg("userid", Name("userid")))


# lessons and HELP --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Hint(Command):
    """``HINT``: the lesson's next hint, at a cost."""

    VERB = "HINT"
    MSG = "HIN"


@dataclass(frozen=True)
class Lesson(Command):
    """``LESSON [STATUS|BRIEFING|END]``."""

    VERB = "LESSON"
    MSG = "LES"
    action: str = "STATUS"
    FORM = (Arg("action", Choice("action", (("END", 3), ("BRIEFING", 5), ("STATUS", 4))),
                optional=True),)

    def __str__(self) -> str:
        return "LESSON" if self.action == "STATUS" else f"LESSON {self.action}"


@dataclass(frozen=True)
class Help(Command):
    """``HELP [command]``: the command list, or one command's syntax."""

    VERB = "HELP"
    MSG = "HEL"
    topic: str | None = None
    FORM = (Arg("topic", Word("command", upper=True), optional=True),)


# -- the verbs and their forms, in the order abbreviations are tried -----------------------------
VERB_FORMS: tuple[tuple[str, int, tuple[type[Command], ...]], ...] = (
    ("AT", 2, (At,)),
    ("QUERY", 1, (QueryAllocPage, QueryNames, QuerySSI, QueryIslink, QueryStorage, QueryXstore,
                  QueryWorkload, QueryUser)),
    ("INDICATE", 3, (IndicateUser, IndicateLoad)),
    ("XAUTOLOG", 5, (Xautolog,)),
    ("LOGOFF", 3, (Logoff,)),
    ("LOGON", 1, (Logon,)),
    ("FORCE", 5, (Force,)),
    ("SET", 3, (SetReserved, SetShare)),
    ("SEND", 4, (Send,)),
    ("WORKLOAD", 4, (WorkloadStart, WorkloadStop, WorkloadSet)),
    ("VMRELOCATE", 5, (VmrelocateStatus, VmrelocateCancel, VmrelocateTest, VmrelocateMove)),
    ("STOP", 4, (Stop,)),
    ("BEGIN", 1, (Begin,)),
    ("LINUX", 5, (Linux,)),
    ("VMOTION", 7, (VmotionStatus, VmotionCancel, Vmotion)),
    ("LPM", 3, (LpmStatus, LpmCancel, Lpm)),
    ("HINT", 4, (Hint,)),
    ("LESSON", 6, (Lesson,)),
    ("HELP", 4, (Help,)),
)
VERBS: list[tuple[str, int]] = [(v, n) for v, n, _ in VERB_FORMS]

# HELP's answers: what each command does and its syntax (minimum abbreviation in capitals).
SYNTAX_HELP: dict[str, tuple[str, tuple[str, ...]]] = {
    "AT": ("run a command on another member", ("AT member CMD command",)),
    "QUERY": ("ask CP about the system or a user", (
        "Query ALLOC PAGE", "Query Names", "Query SSI", "Query ISLINK", "Query STORage",
        "Query XSTORe", "Query userid", "Query WORKload userid")),
    "INDICATE": ("system load or one user's resources", ("INDicate [LOAD]",
                                                          "INDicate USER userid")),
    "XAUTOLOG": ("log a guest on", ("XAUTOlog userid [AT member]",)),
    "LOGOFF": ("log a guest off (issued by the guest)", ("SEND CP userid LOGoff",)),
    "LOGON": ("log a guest on", ("Logon userid [AT member]",)),
    "FORCE": ("log a guest off", ("FORCE userid",)),
    "SET": ("reserve a guest's pages, or set its share", (
        "SET RESERVED [USER] userid nnn|nnnM|nnnG|OFF",
        "SET SHARE userid [RELative] n | ABSolute n%")),
    "SEND": ("issue a command as a guest", ("SEND CP userid command",)),
    "WORKLOAD": ("what a guest runs (simulator command)", (
        "WORKload userid STARt type [PARAM value]...", "WORKload userid STOP",
        "WORKload userid SET PARAM value...")),
    "VMRELOCATE": ("Live Guest Relocation", (
        "VMRELocate TEST|MOVE [USER] userid [TO] member [SYNC|ASYNC] [IMMEDiate]",
        "           [MAXQuiesce secs|NOLIMIT] [MAXTotal secs|NOLIMIT] [FORCE STORage]",
        "VMRELocate STATus [[USER] userid]", "VMRELocate CANCEL [USER] userid")),
    "STOP": ("stop a guest's virtual CPUs", ("SEND CP userid STOP [CPU ALL]",)),
    "BEGIN": ("let a stopped guest continue", ("SEND CP userid Begin",)),
    "LINUX": ("Linux suspend to swap or resume (simulator command)", (
        "LINUX userid SUSPend|RESUme",)),
    "VMOTION": ("VMware Storage vMotion of a guest's disk (simulator command)", (
        "VMOTION userid [TO] datastore [METHOD MIRROR|DBT|INCDBT|SNAPSHOT] [HEAT]",
        "VMOTION CANCEL userid", "VMOTION STATus")),
    "LPM": ("PowerVM Live Partition Mobility (simulator command)", (
        "LPM userid [TO] member [THREADS n|AUTO] [COMPress]", "LPM CANCEL userid",
        "LPM STATus")),
    "HINT": ("the lesson's next hint, at a cost", ("HINT",)),
    "LESSON": ("the lesson's status, briefing or end", ("LESSON [STATus|BRIEFing|END]",)),
    "HELP": ("this list, or one command's syntax", ("HELP [command]",)),
}

COMMAND_TYPES: tuple[type[Command], ...] = tuple(c for _, _, cs in VERB_FORMS for c in cs)


def known_verb(word: str) -> bool:
    """True when ``word`` abbreviates a command this simulator accepts."""
    return any(abbrev(word, w, n) for w, n in VERBS)


# -- the parser -----------------------------------------------------------------------------------
class _Words:
    def __init__(self, words: list[str], verb: str) -> None:
        self.words, self.pos, self.verb = words, 0, verb

    def peek(self) -> str | None:
        return self.words[self.pos] if self.pos < len(self.words) else None

    def take(self, what: str) -> str:
        w = self.peek()
        if w is None:
            raise CPError(f"HCP{self.verb[:3]}026E", f"Operand missing or invalid ({what})")
        self.pos += 1
        return w

    def accept(self, word: str, minimum: int) -> bool:
        w = self.peek()
        if w is not None and abbrev(w, word, minimum):
            self.pos += 1
            return True
        return False

    def invalid(self, w: str | None = None) -> CPError:
        w = w if w is not None else (self.peek() or "")
        if not w:
            return CPError(f"HCP{self.verb[:3]}026E", "Operand missing or invalid")
        return CPError(f"HCP{self.verb[:3]}003E", f"Invalid option - {shown(w.upper())}")


def parse_command(text: str, issuer: str = OPERATOR) -> Command:
    """Read command text into a typed command.

    Parameters
    ----------
    text : str
        The command as typed (CP is case-insensitive; abbreviations as CP allows them).
    issuer : str
        ``"OPERATOR"``, or the user ID of the guest issuing it (``SEND CP``): a guest leaves out
        its own user ID where CP lets it.

    Raises
    ------
    CPError
        With CP's message when the text is not a valid command.
    """
    words = text.split()
    if not words:
        raise CPError("HCPCMD001E", "No command given")
    return _parse_words(words, issuer)


def _parse_words(words: list[str], issuer: str) -> Command:
    verb = words[0]
    for word, minimum, forms in VERB_FORMS:
        if abbrev(verb, word, minimum):
            return _parse_forms(_Words(words[1:], word), forms, issuer)
    raise CPError("HCPCMD001E", f"Unknown CP command: {shown(verb.upper())}")


def _leading(cls: type[Command], issuer: str) -> Kw | None:
    """The keyword that selects this form, if it has one (after an operand a guest omits)."""
    for el in cls.FORM:
        if isinstance(el, Arg) and el.guest_omits:
            if issuer == OPERATOR:
                return None
            continue
        return el if isinstance(el, Kw) and not el.optional else None
    return None


def _parse_forms(w: _Words, forms: tuple[type[Command], ...], issuer: str) -> Command:
    operator_userid: str | None = None
    first = forms[0].FORM[0] if forms[0].FORM else None
    if issuer == OPERATOR and isinstance(first, Arg) and first.guest_omits:
        # WORKLOAD userid ..., LOGOFF userid: the operator names the guest first
        operator_userid = first.kind.read(w.take(first.kind.what), forms[0].MSG, first.name)
    chosen: type[Command] | None = None
    for cls in forms:
        kw = _leading(cls, issuer if operator_userid is None else "GUEST")
        nxt = w.peek()
        if kw is None:
            chosen = cls
            break
        if nxt is not None and abbrev(nxt, kw.word, kw.minimum):
            chosen = cls
            break
    if chosen is None:
        raise w.invalid()
    values: dict[str, Any] = {}
    seen: dict[str, str] = {}
    options = [el for el in chosen.FORM if isinstance(el, Opt)]
    for el in chosen.FORM:
        if isinstance(el, Kw):
            if not w.accept(el.word, el.minimum) and not el.optional:
                raise w.invalid()
        elif isinstance(el, Arg):
            if el.guest_omits:
                values[el.name] = operator_userid
                continue
            if el.optional and w.peek() is None:
                continue
            if el.optional and isinstance(el.kind, Choice):
                tok = w.peek()
                assert tok is not None
                if not any(abbrev(tok, word, n) for word, n in el.kind.words):
                    continue
            values[el.name] = el.kind.read(w.take(el.kind.what), chosen.MSG, el.kind.label)
        elif isinstance(el, Rest):
            rest = w.words[w.pos:]
            w.pos = len(w.words)
            if not rest:
                raise CPError(f"HCP{chosen.MSG}026E", f"Operand missing or invalid ({el.what})")
            inner_issuer = values.get("userid", issuer) if chosen is Send else issuer
            values[el.name] = _parse_words(rest, inner_issuer)
        elif isinstance(el, Pairs):
            values[el.name] = _pairs(w, chosen.MSG)
    while options and w.peek() is not None:
        tok = w.take("option")
        opt = next((o for o in options if abbrev(tok, o.word, o.minimum)), None)
        if opt is None:
            raise w.invalid(tok)
        if opt.then is not None and not w.accept(*opt.then):
            raise CPError(f"HCP{chosen.MSG}1941E", f"Only {opt.word} {opt.then[0]} is supported "
                          "here")
        key = opt.group or opt.word
        if key in seen:
            if opt.group:
                others = " and ".join(o.word for o in options if o.group == opt.group)
                raise CPError(f"HCP{chosen.MSG}1941E", f"Options {others} conflict")
            name = opt.word if opt.then is None else f"{opt.word} {opt.then[0]}"
            raise CPError(f"HCP{chosen.MSG}1941E", f"Option {name} is specified more than once")
        seen[key] = opt.word
        values[opt.name] = opt.value if opt.kind is None else \
            opt.kind.read(w.take(f"{opt.word} {opt.kind.what}"), chosen.MSG, opt.word)
    if w.peek() is not None:
        raise w.invalid()
    cmd = chosen(**values)
    if isinstance(cmd, _Relocate):
        cmd = _relocation_rules(cmd, seen)
    cmd.check()
    return cmd


def _pairs(w: _Words, msg: str) -> tuple[tuple[str, float], ...]:
    rest = w.words[w.pos:]
    w.pos = len(w.words)
    if len(rest) % 2:
        raise CPError(f"HCP{msg}026E", f"Operand missing or invalid (value for "
                      f"{shown(rest[-1].upper())})")
    out: dict[str, float] = {}
    for key, value in zip(rest[::2], rest[1::2]):
        out[key.lower()] = parse_number(value, shown(key.upper()), msg)
    return tuple(out.items())


def _relocation_rules(cmd: _Relocate, seen: dict[str, str]) -> _Relocate:
    if isinstance(cmd, VmrelocateTest):
        bad = sorted(set(seen) - {"FORCE"})
        if bad:
            name = "SYNC" if bad[0] == "SYNC" else bad[0]
            raise CPError("HCPRLH1941E", f"Option {name} conflicts with TEST")
    if cmd.immediate and "MAXQUIESCE" not in seen and cmd.maxquiesce_s is not None:
        # IMMEDIATE implies MAXQUIESCE NOLIMIT
        cmd = type(cmd)(**{**_values(cmd), "maxquiesce_s": None})
    return cmd


def _values(cmd: Command) -> dict[str, Any]:
    return {f.name: getattr(cmd, f.name) for f in fields(cmd)}
