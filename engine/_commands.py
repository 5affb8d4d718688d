"""CP and simulator commands applied to a simulation, with answers in CP's style.

Commands (minimum abbreviation in capitals of the usage line):

- ``AT member CMD command``: run a command on another member of the cluster
- ``Query ALLOC PAGE`` / ``Query Names`` / ``Query SSI`` / ``Query STORage`` / ``Query XSTORe``
- ``Query userid`` / ``Query WORKload userid``
- ``INDicate [LOAD]`` / ``INDicate USER userid``
- ``XAUTOlog userid [AT member]`` / ``Logon userid [AT member]``
- ``LOGoff userid`` (the guest logs itself off) / ``FORCE userid``
- ``SET RESERVED [USER] userid nnn|nnnM|nnnG|OFF`` / ``SET SHARE userid [RELative] n | ABSolute n%``
- ``SEND CP userid command``: a command issued by the guest itself
- ``WORKload userid STARt type [PARAM value]...`` / ``WORKload userid STOP`` /
  ``WORKload userid SET PARAM value...`` (simulator commands)
- ``STOP [CPU ALL]`` / ``Begin`` (issued by the guest, or for it with ``SEND CP userid``)
- ``LINUX userid SUSPEND|RESUME`` (simulator command: the guest runs hibernation or resumes)
- ``VMRELocate TEST|MOVE [USER] userid [TO] member [SYNC|ASYNC] [IMMEDiate]
  [MAXQuiesce secs|NOLIMIT] [MAXTotal secs|NOLIMIT] [FORCE STORage]``,
  ``VMRELocate STATus [[USER] userid]``, ``VMRELocate CANCEL [USER] userid``
- ``VMOTION userid [TO] datastore [METHOD MIRROR|DBT|INCDBT|SNAPSHOT] [HEAT]``,
  ``VMOTION CANCEL userid``, ``VMOTION STATus`` (simulator command: VMware Storage vMotion)
- ``LPM userid [TO] member [THREADS n|AUTO] [COMPRESS]``, ``LPM CANCEL userid``,
  ``LPM STATus`` (simulator command: PowerVM Live Partition Mobility)
- ``HINT`` (the lesson's next hint, at a cost), ``LESSON [STATUS|BRIEFING|END]`` (simulator
  commands of lessons and objectives)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._cp import CPError, Tokens, abbrev, parse_number, shown
from ._state import DISPATCH, DORMANT, ELIGIBLE, Guest, Member
from ._units import MAX_PAGES, MAX_SIZE_TEXT, SizeError, format_size, size_to_pages
from ._workloads import WORKLOAD_TYPES, Workload, WorkloadError

if TYPE_CHECKING:
    from ._sim import CPResponse, Simulation

Handler = Callable[[Tokens, str, str], list[str]]


class CommandProcessor:
    """Parses command text and applies it to a ``Simulation``."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        # the operator works on the first member of the scenario
        self.console_member = next(iter(sim.members), "")
        handlers: dict[str, Handler] = {
            "AT": self._at, "QUERY": self._query, "INDICATE": self._indicate,
            "XAUTOLOG": self._logon, "LOGOFF": self._logoff, "LOGON": self._logon,
            "FORCE": self._force, "SET": self._set, "SEND": self._send,
            "WORKLOAD": self._workload, "VMRELOCATE": self._vmrelocate,
            "STOP": self._stop, "BEGIN": self._begin, "LINUX": self._linux,
            "VMOTION": self._vmotion, "LPM": self._lpm, "HINT": self._hint,
            "LESSON": self._lesson,
        }
        # order matters where abbreviations overlap (LOG is LOGOFF)
        self.verbs: list[tuple[str, int, Handler]] = [(w, n, handlers[w]) for w, n in VERBS]

    # -- entry point -----------------------------------------------------------------------------
    def execute(self, text: str, issuer: str = "OPERATOR", member: str | None = None) -> CPResponse:
        """Parse and apply ``text``; CP's refusal comes back as the response, never raised."""
        from ._sim import CPResponse

        try:
            lines = self._dispatch(Tokens.of(text), issuer, member or self.console_member)
            return CPResponse(lines, 0)
        except CPError as e:
            return CPResponse([e.line], e.rc)

    def _dispatch(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        verb = tok.peek()
        if verb is None:
            return []
        tok.pos += 1
        for word, minimum, handler in self.verbs:
            if abbrev(verb, word, minimum):
                tok.verb = word
                return handler(tok, issuer, member)
        raise CPError("HCPCMD001E", f"Unknown CP command: {shown(verb.upper())}")

    # -- helpers ---------------------------------------------------------------------------------
    def guest(self, userid: str, verb: str) -> Guest:
        """The guest with this user ID, or CP's 'not in directory' error."""
        g = self.sim.guests.get(userid.upper())
        if g is None:
            raise CPError(f"HCP{verb[:3]}053E", f"{shown(userid.upper())} not in CP directory")
        return g

    def logged_on_guest(self, userid: str, verb: str) -> Guest:
        """A guest that is logged on, or CP's 'not logged on' error."""
        g = self.guest(userid, verb)
        if not g.logged_on:
            raise CPError(f"HCP{verb[:3]}045E", f"{g.userid} not logged on")
        return g

    def member(self, name: str, verb: str) -> Member:
        """A member of the cluster, or CP's error listing the members."""
        m = self.sim.members.get(name.upper())
        if m is None:
            names = " ".join(sorted(self.sim.members))
            raise CPError(f"HCP{verb[:3]}2900E", f"{shown(name.upper())} is not a member of the SSI "
                          f"cluster; members: {names}")
        return m

    def _operator_only(self, issuer: str, verb: str) -> None:
        if issuer != "OPERATOR":
            raise CPError(f"HCP{verb[:3]}002E", f"{verb} is not authorized for {issuer}")

    # -- AT member CMD ---------------------------------------------------------------------------
    def _at(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        m = self.member(tok.take("member"), "AT")
        if not tok.accept("CMD", 3):
            raise tok.invalid()
        inner = Tokens(tok.rest())
        if not inner.words:
            raise CPError("HCPATC026E", "Operand missing or invalid (command)")
        return self._dispatch(inner, issuer, m.name)

    # -- QUERY ----------------------------------------------------------------------------------
    def _query(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        m = self.sim.members[member]
        what = tok.take("what to query")
        if abbrev(what, "ALLOC", 5):
            if not tok.accept("PAGE", 4):
                raise tok.invalid()
            tok.end()
            return self._q_alloc_page(m)
        if abbrev(what, "NAMES", 1):
            tok.end()
            return self._q_names(m)
        if abbrev(what, "SSI", 3):
            tok.end()
            lines = ["SSI Name: SSISIM", "SSI Mode: Stable", "Cross-System Timeouts: Enabled",
                     "SSI Persistent Data Record (PDR) device: VMCOM1 on 0200",
                     "SLOT SYSTEMID STATE    PDR HEARTBEAT        RECEIVED HEARTBEAT"]
            for i, name in enumerate(sorted(self.sim.members), 1):
                state = "Joined" if self.sim.members[name].up else "Down"
                lines.append(f"   {i} {name:<8} {state:<8}")
            return lines
        if abbrev(what, "ISLINK", 6):
            tok.end()
            return self._q_islink(m)
        if abbrev(what, "STORAGE", 4):
            tok.end()
            return [f"STORAGE = {format_size(m.cfg.central_pages)} CONFIGURED = "
                    f"{format_size(m.cfg.central_pages)} INC = 256M STANDBY = 0  RESERVED = 0"]
        if abbrev(what, "XSTORE", 5):
            tok.end()
            if m.cfg.xstor_pages == 0:
                return ["HCPQXS2213I No expanded storage is configured"]
            return [f"XSTORE= {format_size(m.cfg.xstor_pages)} online= "
                    f"{format_size(m.cfg.xstor_pages)}",
                    f"XSTORE= {format_size(m.cfg.xstor_pages)} userid= SYSTEM usage= "
                    f"{100 * m.xstor_used // max(1, m.cfg.xstor_pages)}% retained= 0M pending= 0M"]
        if abbrev(what, "WORKLOAD", 4):
            g = self.guest(tok.take("userid"), "QUERY")
            tok.end()
            return [f"{g.userid}: {g.workload.describe()}  ({g.workload.unit} "
                    f"{g.units_step:.1f})"]
        # Q userid
        tok.end()
        g = self.guest(what, "QUERY")
        if not g.logged_on:
            raise CPError("HCPCQU045E", f"{g.userid} not logged on")
        where = "" if g.member == member else f" AT {g.member}"
        return [f"{g.userid:<8} - DSC{where}"]

    def _q_alloc_page(self, m: Member) -> list[str]:
        if not m.cfg.volumes:
            return ["HCPQAL1513I No paging space is defined"]
        lines = [
            "                EXTENT     EXTENT     TOTAL     PAGES      HIGH    %",
            "VOLID  RDEV      START        END     PAGES    IN USE      PAGE USED",
            "------ ---- ---------- ---------- --------- --------- --------- ----",
        ]
        total = m.cfg.slots
        for volid, rdev, slots, used in m.volume_use():
            cyl = max(1, slots // 180)  # a 3390 cylinder holds 180 pages
            pct = 100 * used // max(1, slots)
            high = min(slots, max(used, round(m.peak["slots"] * slots / max(1, total))))
            lines.append(f"{volid:<6} {rdev:>4} {1:>10} {cyl:>10} {slots:>9} {used:>9} "
                         f"{high:>9} {pct:>3}%")
        pct = 100 * m.slots_used // max(1, total)
        lines.append(f"{'':34} --------- ---------           ----")
        lines.append(f"SUMMARY{'':27} {total:>9} {m.slots_used:>9}           {pct:>3}%")
        lines.append(f"USABLE{'':28} {total:>9} {m.slots_used:>9}           {pct:>3}%")
        return lines

    def _q_names(self, m: Member) -> list[str]:
        here = [g.userid for g in self.sim.guests_on(m.name)]
        # guests logging off in the cleanup state show in lowercase until their storage is reset
        leaving = [c.userid.lower() for c in self.sim.pause.cleaning(m.name)
                   if not c.inline and self.sim.pause.cleanup_of(c.userid) is None]
        here = here + leaving
        if not here:
            return ["HCPCQU042I No users are logged on"]
        entries = [f"{u:<8} - DSC" for u in here]
        lines = [" , ".join(entries[i:i + 4]) for i in range(0, len(entries), 4)]
        lines.append("VSM     - TCPIP")
        return lines

    # -- INDICATE -------------------------------------------------------------------------------
    def _indicate(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        m = self.sim.members[member]
        if tok.peek() is None or tok.accept("LOAD", 4):
            tok.end()
            return self._ind_load(m)
        if tok.accept("USER", 4):
            g = self.logged_on_guest(tok.take("userid"), "IND")
            tok.end()
            return self._ind_user(g)
        raise tok.invalid()

    def _ind_load(self, m: Member) -> list[str]:
        guests = self.sim.guests_on(m.name)
        disp = sum(1 for g in guests if g.state == DISPATCH)
        elig = sum(1 for g in guests if g.state == ELIGIBLE)
        dorm = sum(1 for g in guests if g.state == DORMANT)
        snap = self.sim.samples_member
        rates = [s for s in snap if s[1] == m.name]
        pin = (rates[-1][6] + rates[-1][7]) if rates else 0.0
        xs = (rates[-1][8] + rates[-1][10]) if rates else 0.0
        mig = rates[-1][12] if rates else 0.0
        stor = 100 * m.resident // max(1, m.frames)
        cpu = round(m.cpu_util * 100)
        lines = [
            f"AVGPROC-{cpu:03d}% {m.cfg.cpus:02d}",
            f"XSTORE-{xs:06.0f}/SEC MIGRATE-{mig:04.0f}/SEC",
            "MPDC 000%",
            f"STORAGE-{stor:03d}% PAGING-{pin:04.0f}/SEC STEAL-000%",
            f"Q0-00000(00000)                           DORMANT-{dorm:05d}",
            f"Q1-{disp:05d}(00000)           E1-{elig:05d}(00000)",
            "Q2-00000(00000) EXPAN-001 E2-00000(00000)",
            "Q3-00000(00000) EXPAN-001 E3-00000(00000)",
        ]
        for i in range(m.cfg.cpus):
            lines.append(f"PROC {i:04d}-{cpu:03d}% CP")
        lines.append("LIMITED-00000")
        return lines

    def _ind_user(self, g: Guest) -> list[str]:
        c = g.counters
        cpu = g.cpu_s_total
        return [
            f"USERID={g.userid:<8} MACH=ESA STOR={format_size(g.cfg.storage_pages)} VIRT=V "
            f"XSTORE=NONE",
            "IPLSYS=DEV 0200 DEVNUM=00012",
            f"PAGES: RES={g.n_cen:08d} WS={g.workload.working_set_pages():08d} "
            f"LOCKEDREAL=00000000 RESVD={g.set_reserved:08d}",
            f"       INSTAN={g.instantiated:08d}",
            f"NPREF=00000000 PREF=00000000 READS={c.dasd_in:08d} WRITES={c.dasd_out:08d}",
            f"XSTORE={g.n_xst:06d} READS={c.xstor_in:06d} WRITES={c.xstor_out:06d} "
            f"MIGRATES={c.migrated:06d}",
            f"CPU 00: CTIME={int(self.sim.t) // 3600:02d}:{int(self.sim.t) % 3600 // 60:02d} "
            f"VTIME={int(cpu) // 60:03d}:{int(cpu) % 60:02d} TTIME={int(cpu) // 60:03d}:"
            f"{int(cpu) % 60:02d} IO=000000",
            f"STATE={g.state.upper()} MEMBER={g.member}",
        ]

    # -- LOGON / XAUTOLOG / LOGOFF / FORCE ------------------------------------------------------------
    def _logon(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, tok.verb)
        g = self.guest(tok.take("userid"), "XAU")
        target = g.home if g.home in self.sim.members else member
        if tok.accept("AT", 2):
            target = self.member(tok.take("member"), "XAU").name
        tok.end()
        if g.logged_on:
            raise CPError("HCPXAU054E", f"{g.userid} is already logged on at {g.member}")
        c = self.sim.pause.cleanup_of(g.userid)
        if c is not None:
            raise CPError("HCPXAU2912E", f"{g.userid} is still being logged off on {c.member}: "
                          f"its storage is being reset, {c.detach_until - self.sim.t:.0f} s to "
                          "go" + (" (this member keeps the user ID until cleanup ends)"
                                  if c.inline else ""))
        if not self.sim.members[target].up:
            raise CPError("HCPXAU2901E", f"{target} is not up")
        self.sim._log_on(g, target)
        users = self._users(target)
        return ["Command accepted", f"AUTO LOGON  ***   {g.userid:<8} USERS = {users}"]

    def _logoff(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        if issuer == "OPERATOR":
            g = self.logged_on_guest(tok.take("userid"), "LOG")
        else:
            g = self.logged_on_guest(issuer, "LOG")
        tok.end()
        where = g.member
        self.sim._log_off(g)
        return [f"USER DSC   LOGOFF AS  {g.userid:<8} USERS = {self._users(where)}"]

    def _force(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "FORCE")
        g = self.logged_on_guest(tok.take("userid"), "FOR")
        tok.end()
        where = g.member
        self.sim._log_off(g)
        return [f"USER DSC   LOGOFF AS  {g.userid:<8} USERS = {self._users(where)}  FORCED BY "
                f"{issuer}"]

    def _users(self, member: str | None) -> int:
        return sum(1 for g in self.sim.guests.values() if g.member == member)

    # -- SET -------------------------------------------------------------------------------------
    def _set(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "SET")
        if tok.accept("RESERVED", 3):
            tok.accept("USER", 4)
            g = self.logged_on_guest(tok.take("userid"), "SET")
            amount = tok.take("page count")
            tok.end()
            if amount.upper() == "OFF":
                pages = 0
            else:
                try:
                    # a bare number is a page count; isdigit() alone also takes "²"
                    pages = (int(amount) if amount.isascii() and amount.isdigit()
                             else size_to_pages(amount))
                    if pages > MAX_PAGES:
                        raise SizeError(amount)
                except SizeError:
                    raise CPError("HCPSET009E", "An invalid operand was supplied for RESERVED - "
                                  f"{shown(amount)} (a page count, a size up to "
                                  f"{MAX_SIZE_TEXT}, or OFF)") from None
            g.set_reserved = pages
            return [f"{g.userid} RESERVED PAGES SET TO {pages}"
                    + ("" if pages <= g.npages else " (more than the guest's storage)")]
        if tok.accept("SHARE", 2):
            g = self.logged_on_guest(tok.take("userid"), "SET")
            absolute = False
            if tok.accept("ABSOLUTE", 3):
                absolute = True
            else:
                tok.accept("RELATIVE", 3)
            raw = tok.take("share")
            tok.end()
            value = parse_number(raw.rstrip("%"), "SHARE", "SET", lo=1)
            if absolute and value > 100:
                raise CPError("HCPSET009E", f"An invalid operand was supplied for SHARE - {raw}")
            if not absolute and value > 10000:
                raise CPError("HCPSET009E", f"An invalid operand was supplied for SHARE - {raw}")
            g.share = value
            g.share_absolute = absolute
            kind = "ABSOLUTE" if absolute else "RELATIVE"
            return [f"USER {g.userid}: SHARE {kind} {value:g}{'%' if absolute else ''}"]
        raise tok.invalid()

    # -- SEND CP --------------------------------------------------------------------------------
    def _send(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "SEND")
        if not tok.accept("CP", 2):
            raise tok.invalid()
        g = self.logged_on_guest(tok.take("userid"), "SND")
        inner = Tokens(tok.rest())
        if not inner.words:
            raise CPError("HCPSND026E", "Operand missing or invalid (command)")
        assert g.member is not None
        return self._dispatch(inner, g.userid, g.member)

    # -- WORKLOAD (simulator) ---------------------------------------------------------------------
    def _workload(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        g = self.guest(tok.take("userid") if issuer == "OPERATOR" else issuer, "WKL")
        if tok.accept("START", 4):
            kind = tok.take("workload type").lower()
            params = self._pairs(tok.rest(), kind)
            return self._start(g, kind, params)
        if tok.accept("STOP", 4):
            tok.end()
            return self._start(g, "none", {})
        if tok.accept("SET", 3):
            if g.workload.kind == "none":
                raise CPError("HCPWKL003E", f"{g.userid} runs no workload; start one with "
                              f"WORKLOAD {g.userid} START type")
            params = dict(g.workload.params)
            given = self._pairs(tok.rest(), g.workload.kind)
            if not given:
                raise CPError("HCPWKL026E", "Operand missing or invalid (parameter)")
            params.update(given)
            return self._start(g, g.workload.kind, params, keep_cursors=True)
        raise tok.invalid()

    def _pairs(self, words: list[str], kind: str) -> dict[str, float]:
        if len(words) % 2:
            raise CPError("HCPWKL026E", f"Operand missing or invalid (value for "
                          f"{words[-1].upper()})")
        out: dict[str, float] = {}
        for key, value in zip(words[::2], words[1::2]):
            out[key.lower()] = parse_number(value, key.upper(), "WKL")
        return out

    def _start(self, g: Guest, kind: str, params: dict[str, float],
               keep_cursors: bool = False) -> list[str]:
        try:
            w = Workload(kind, params, g.cfg.storage_pages)
        except WorkloadError as e:
            valid = ", ".join(k.upper() for k in WORKLOAD_TYPES)
            msg = str(e) if "unknown workload type" not in str(e) else (
                f"Unknown workload type {kind.upper()}; valid: {valid}")
            raise CPError("HCPWKL003E", msg.replace("'", "")) from None
        g.set_workload(w, keep_cursors)
        self.sim.emit("WORKLOAD", g.member, g.userid, f"{g.userid}: workload {w.describe()}")
        return [f"WORKLOAD {g.userid}: {w.describe()}"]


    # -- VMRELOCATE -------------------------------------------------------------------------------
    def _vmrelocate(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        from ._relocation import RelocationOptions, storage_check

        self._operator_only(issuer, "VMRELOCATE")
        if tok.accept("STATUS", 4):
            want = None
            if tok.peek() is not None:
                tok.accept("USER", 4)
                want = self.guest(tok.take("userid"), "RLH").userid
            tok.end()
            return self._reloc_status(want)
        if tok.accept("CANCEL", 6):
            tok.accept("USER", 4)
            g = self.guest(tok.take("userid"), "RLH")
            tok.end()
            r = self.sim.reloc.of(g.userid)
            if r is None:
                raise CPError("HCPRLH1945E", f"No relocation of {g.userid} is in progress")
            self.sim.reloc._clock = self.sim.t
            self.sim.reloc.cancel(r, f"Relocation of {g.userid} to {r.dest} is cancelled by "
                                  f"{issuer}", "cancelled")
            return [f"Relocation of {g.userid} from {r.source} to {r.dest} is cancelled; "
                    f"{g.userid} continues to run on {r.source}"]
        if tok.accept("TEST", 4):
            test = True
        elif tok.accept("MOVE", 4):
            test = False
        else:
            raise tok.invalid()
        tok.accept("USER", 4)
        userid = tok.take("userid").upper()
        tok.accept("TO", 2)
        dest_name = tok.take("destination member").upper()
        opts = RelocationOptions(test=test)
        seen: set[str] = set()

        def once(name: str) -> None:
            if name in seen:
                raise CPError("HCPRLH1941E", f"Option {name} is specified more than once")
            seen.add(name)

        while tok.peek() is not None:
            w = tok.take()
            if abbrev(w, "SYNC", 4) or abbrev(w, "ASYNC", 5):
                if "SYNC" in seen:
                    raise CPError("HCPRLH1941E", "Options SYNC and ASYNC conflict")
                seen.add("SYNC")
                opts.sync = w.upper() == "SYNC"
            elif abbrev(w, "IMMEDIATE", 5):
                once("IMMEDIATE")
                opts.immediate = True
            elif abbrev(w, "MAXQUIESCE", 4) or abbrev(w, "MAXTOTAL", 4):
                name = "MAXQUIESCE" if w.upper().startswith("MAXQ") else "MAXTOTAL"
                once(name)
                v = tok.take(f"{name} seconds")
                secs = None if abbrev(v, "NOLIMIT", 5) else parse_number(v, name, "RLH", lo=1,
                                                                        hi=99_999_999)
                if name == "MAXQUIESCE":
                    opts.maxquiesce_s = secs
                else:
                    opts.maxtotal_s = secs
            elif abbrev(w, "FORCE", 5):
                if not tok.accept("STORAGE", 4):
                    raise CPError("HCPRLH1941E", "Only FORCE STORAGE is supported here")
                once("FORCE STORAGE")
                opts.force_storage = True
            else:
                raise tok.invalid(w)
        if test and seen - {"FORCE STORAGE"}:
            bad = sorted(seen - {"FORCE STORAGE"})[0]
            raise CPError("HCPRLH1941E", f"Option {bad} conflicts with TEST")
        if opts.immediate and "MAXQUIESCE" not in seen:
            opts.maxquiesce_s = None  # IMMEDIATE implies MAXQUIESCE NOLIMIT
        if opts.maxquiesce_s is not None and opts.maxtotal_s is not None \
                and opts.maxtotal_s < opts.maxquiesce_s:
            raise CPError("HCPRLH1941E", f"MAXTOTAL {opts.maxtotal_s:g} is less than MAXQUIESCE "
                          f"{opts.maxquiesce_s:g}")
        g = self.guest(userid, "RLH")
        verb = "is not eligible for relocation to" if test else "is not relocated to"
        if not g.logged_on:
            raise CPError("HCPRLH1940E", f"{g.userid} {verb} {dest_name} because it is not "
                          f"logged on")
        dest = self.member(dest_name, "RLH")
        assert g.member is not None
        if dest.name == g.member:
            raise CPError("HCPRLH1940E", f"{g.userid} {verb} {dest.name} because it is already "
                          f"running there")
        if not dest.up:
            raise CPError("HCPRLH1940E", f"{g.userid} {verb} {dest.name} because {dest.name} is "
                          f"not up")
        if self.sim.reloc.of(g.userid) is not None:
            raise CPError("HCPRLH1940E", f"{g.userid} {verb} {dest.name} because a relocation of "
                          f"{g.userid} is already in progress")
        if self.sim.lpm.of(g.userid) is not None:
            raise CPError("HCPRLH1940E", f"{g.userid} {verb} {dest.name} because a partition "
                          f"migration of {g.userid} is in progress")
        link = self.sim.reloc.find_link(g.member, dest.name)
        if link is None or not link.chpids:
            raise CPError("HCPRLH1940E", f"{g.userid} {verb} {dest.name} because there is no ISFC "
                          f"link between {g.member} and {dest.name}")
        problem = storage_check(g, dest, opts.force_storage)
        if problem:
            raise CPError("HCPRLH1940E", f"{g.userid} {verb} {dest.name} because {problem}")
        if test:
            return [f"User {g.userid} is eligible for relocation to {dest.name}"]
        r = self.sim.reloc.start(g, dest.name, opts, issuer, link)
        return [f"Relocation of {g.userid} from {r.source} to {dest.name} started"
                + ("" if opts.sync else " (ASYNC)")]

    # -- STOP / BEGIN / LINUX ----------------------------------------------------------------------
    def _stop(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        if issuer == "OPERATOR":
            raise CPError("HCPSTP002E", "STOP stops your own virtual machine; for a guest use "
                          "SEND CP userid STOP")
        if tok.accept("CPU", 3):
            if not tok.accept("ALL", 3):
                raise tok.invalid()
        tok.end()
        g = self.logged_on_guest(issuer, "STP")
        if "stop" in g.stopped_by:
            return [f"{g.userid}: virtual CPUs are already stopped"]
        if g.relocating:
            raise CPError("HCPSTP1940E", f"{g.userid} is being relocated; STOP is not possible now")
        g.stopped_by.add("stop")
        self.sim.emit("STOPPED", g.member, g.userid, f"{g.userid}: CP STOP, all virtual CPUs "
                      "stopped; memory and devices stay")
        return ["CPU 00  STOPPED"]

    def _begin(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        if issuer == "OPERATOR":
            raise CPError("HCPBEG002E", "BEGIN continues your own virtual machine; for a guest use "
                          "SEND CP userid BEGIN")
        tok.end()
        g = self.logged_on_guest(issuer, "BEG")
        if "stop" not in g.stopped_by:
            raise CPError("HCPBEG1543E", f"{g.userid} is not stopped; BEGIN does nothing")
        g.stopped_by.discard("stop")
        first = self.sim.pause.first_request_s(g)
        self.sim.emit("BEGIN", g.member, g.userid, f"{g.userid}: CP BEGIN; it answers requests "
                      f"again after {first:.1f} s", {"serving_s": round(first, 6)})
        return []

    def _linux(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        from ._units import PAGES_PER_MB

        self._operator_only(issuer, "LINUX")
        g = self.guest(tok.take("userid"), "LNX")
        if tok.accept("SUSPEND", 4) or tok.accept("HIBERNATE", 4):
            tok.end()
            if not g.logged_on:
                raise CPError("HCPLNX045E", f"{g.userid} not logged on")
            if g.linux != "running" or "stop" in g.stopped_by or g.relocating:
                why = ("its CPUs are stopped (CP STOP)" if "stop" in g.stopped_by else
                       "it is being relocated" if g.relocating else f"Linux is {g.linux}")
                raise CPError("HCPLNX003E", f"{g.userid} cannot suspend: {why}")
            image = self.sim.pause.image_pages(g)
            if image > g.cfg.swap_pages:
                raise CPError("HCPLNX009E", f"{g.userid} cannot suspend: its image "
                              f"({image / PAGES_PER_MB:.0f} MB) does not fit its swap space "
                              f"({g.cfg.swap_pages / PAGES_PER_MB:.0f} MB)")
            self.sim.pause.suspend(g)
            return [f"{g.userid}: hibernation started ({image / PAGES_PER_MB:.0f} MB to write)"]
        if tok.accept("RESUME", 4):
            tok.end()
            if not g.logged_on:
                raise CPError("HCPLNX045E", f"{g.userid} not logged on")
            if g.linux != "suspended":
                raise CPError("HCPLNX003E", f"{g.userid} is not suspended (Linux is {g.linux}); "
                              "nothing to resume")
            self.sim.pause.resume(g)
            return [f"{g.userid}: resume started"]
        raise tok.invalid()

    # -- VMOTION and LPM (other vendors' migrations, for comparison) ------------------------------
    def _moving(self, g: Guest) -> str | None:
        """What is already moving this guest, if anything."""
        if self.sim.reloc.of(g.userid) is not None:
            return "a relocation"
        if self.sim.svm.of(g.userid) is not None:
            return "a Storage vMotion"
        if self.sim.lpm.of(g.userid) is not None:
            return "a partition migration"
        return None

    def _vmotion(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        from ._storage_vmotion import METHODS, VMotionOptions

        self._operator_only(issuer, "VMOTION")
        svm = self.sim.svm
        if tok.accept("STATUS", 4):
            tok.end()
            act = svm.active
            if not act:
                return ["HCPVMO1946I No Storage vMotion in progress"]
            return [f"{m.guest.userid:<8} {m.source:<8} -> {m.dest:<8} {m.options:<22} "
                    f"{m.state:<9} pass {len(m.passes)}  {m.units_moved} blocks copied"
                    for m in act]
        if tok.accept("CANCEL", 6):
            g = self.guest(tok.take("userid"), "VMO")
            tok.end()
            mv = svm.of(g.userid)
            if mv is None:
                raise CPError("HCPVMO1945E", f"No Storage vMotion of {g.userid} is in progress")
            svm.cancel(mv, issuer)
            return [(f"Storage vMotion of {g.userid} to {mv.dest} is cancelled; its disk stays "
                     f"on {mv.source}")]
        userid = tok.take("userid").upper()
        tok.accept("TO", 2)
        target = tok.take("datastore").upper()
        opts = VMotionOptions()
        seen: set[str] = set()
        while tok.peek() is not None:
            w = tok.take()
            if abbrev(w, "METHOD", 4):
                if "METHOD" in seen:
                    raise CPError("HCPVMO1941E", "Option METHOD is specified more than once")
                seen.add("METHOD")
                m = tok.take("method").upper()
                if m not in METHODS:
                    raise CPError("HCPVMO003E", f"Invalid option - {m}; methods: "
                                  f"{', '.join(METHODS)}")
                opts.method = m
            elif abbrev(w, "HEAT", 4):
                if "HEAT" in seen:
                    raise CPError("HCPVMO1941E", "Option HEAT is specified more than once")
                seen.add("HEAT")
                opts.heat = True
            else:
                raise tok.invalid(w)
        if opts.heat and opts.method not in ("DBT", "INCDBT"):
            raise CPError("HCPVMO1941E", f"HEAT applies to METHOD DBT or INCDBT, not "
                          f"{opts.method}")
        g = self.guest(userid, "VMO")
        if not g.logged_on:
            raise CPError("HCPVMO045E", f"{g.userid} not logged on")
        if g.cfg.disk is None:
            raise CPError("HCPVMO1940E", f"{g.userid} has no virtual disk to move (give it a "
                          "disk in the scenario)")
        ds = svm.datastores.get(target)
        if ds is None:
            names = " ".join(sorted(svm.datastores)) or "(none)"
            raise CPError("HCPVMO2900E", f"{target} is not a datastore; datastores: {names}")
        if svm.where[g.userid] == ds.name:
            raise CPError("HCPVMO1940E", f"The disk of {g.userid} is already on {ds.name}")
        busy = self._moving(g)
        if busy:
            raise CPError("HCPVMO1940E", f"{g.userid} cannot be moved now: {busy} of "
                          f"{g.userid} is in progress")
        # the destination must hold the copy; a snapshot also grows deltas on the source
        used = sum(o.cfg.disk.size_gb for o in self.sim.guests.values() if o.cfg.disk
                   and svm.where.get(o.userid) == ds.name)
        if used + g.cfg.disk.size_gb > ds.size_gb:
            raise CPError("HCPVMO1940E", f"{ds.name} has {ds.size_gb - used:.0f} GB free; the "
                          f"disk of {g.userid} needs {g.cfg.disk.size_gb:g} GB")
        mv = svm.start(g, ds.name, opts)
        return [(f"Storage vMotion of {g.userid}'s disk from {mv.source} to {ds.name} started "
                 f"({opts.describe()})")]

    def _lpm(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        from ._lpm import MODEL as LPM_MODEL
        from ._lpm import LPMOptions, firmware_of

        self._operator_only(issuer, "LPM")
        lpm = self.sim.lpm
        if tok.accept("STATUS", 4):
            tok.end()
            act = lpm.active
            if not act:
                return ["HCPLPM1946I No partition migration in progress"]
            return [f"{m.guest.userid:<8} {m.source:<8} -> {m.dest:<8} {m.state:<9} "
                    f"pass {len(m.passes)}  {m.units_moved} pages sent" for m in act]
        if tok.accept("CANCEL", 6):
            g = self.guest(tok.take("userid"), "LPM")
            tok.end()
            mv = lpm.of(g.userid)
            if mv is None:
                raise CPError("HCPLPM1945E", f"No partition migration of {g.userid} is in "
                              "progress")
            lpm.cancel(mv, issuer)
            return [(f"Partition migration of {g.userid} to {mv.dest} is cancelled; it keeps "
                     f"running on {mv.source}")]
        userid = tok.take("userid").upper()
        tok.accept("TO", 2)
        dest_name = tok.take("destination member").upper()
        opts = LPMOptions()
        seen: set[str] = set()
        while tok.peek() is not None:
            w = tok.take()
            if abbrev(w, "THREADS", 6):
                if "THREADS" in seen:
                    raise CPError("HCPLPM1941E", "Option THREADS is specified more than once")
                seen.add("THREADS")
                v = tok.take("threads per MSP")
                if abbrev(v, "AUTO", 4):
                    opts.auto = True
                else:
                    n = parse_number(v, "THREADS", "LPM", lo=1, hi=LPM_MODEL.max_threads_newer)
                    if n != int(n) or n > LPM_MODEL.max_threads_newer:
                        raise CPError("HCPLPM009E", f"An invalid operand was supplied for "
                                      f"THREADS - {v} (1 to {LPM_MODEL.max_threads_newer} or AUTO)")
                    opts.threads = int(n)
            elif abbrev(w, "COMPRESS", 4):
                if "COMPRESS" in seen:
                    raise CPError("HCPLPM1941E", "Option COMPRESS is specified more than once")
                seen.add("COMPRESS")
                opts.compress = True
            else:
                raise tok.invalid(w)
        g = self.guest(userid, "LPM")
        if not g.logged_on:
            raise CPError("HCPLPM045E", f"{g.userid} not logged on")
        dest = self.member(dest_name, "LPM")
        assert g.member is not None
        src = self.sim.members[g.member]
        if dest.name == g.member:
            raise CPError("HCPLPM1940E", f"{g.userid} is already running on {dest.name}")
        if not dest.up:
            raise CPError("HCPLPM1940E", f"{dest.name} is not up")
        busy = self._moving(g)
        if busy:
            raise CPError("HCPLPM1940E", f"{g.userid} cannot be moved now: {busy} of "
                          f"{g.userid} is in progress")
        fw = firmware_of(src, dest)
        if fw == "older":
            if opts.auto:
                raise CPError("HCPLPM1941E", "THREADS AUTO needs newer firmware on both "
                              f"{src.name} and {dest.name}")
            if opts.threads and opts.threads > LPM_MODEL.max_threads_older:
                raise CPError("HCPLPM1941E", f"Older firmware runs at most "
                              f"{LPM_MODEL.max_threads_older} threads per MSP, not "
                              f"{opts.threads}")
        # the destination reserves the partition's whole memory
        if g.cfg.storage_pages > dest.free_frames or g.n_xst > dest.xstor_free \
                or g.n_slot > dest.slots_free:
            raise CPError("HCPLPM1940E", f"{dest.name} has {format_size(max(0, dest.free_frames))} "
                          f"of memory free; partition {g.userid} needs "
                          f"{format_size(g.cfg.storage_pages)}")
        mv = lpm.start(g, dest.name, opts)
        return [(f"Partition migration of {g.userid} from {mv.source} to {dest.name} started "
                 f"({mv.options})")]

    def _q_islink(self, m: Member) -> list[str]:
        """The ISFC links from this member: CHPIDs, CTCs, capacity factor and relocation rate."""
        from ._relocation import link_pages_per_s

        links = [lk for lk in self.sim.scenario.links if m.name in lk.members]
        if not links:
            return [f"HCPQIS2702I {m.name} has no ISFC links"]
        out = []
        for lk in sorted(links, key=lambda x: x.members):
            other = next(n for n in lk.members if n != m.name)
            chp = ", ".join(f"{c.gbps} Gbit/s x {c.ctcs} CTC" for c in lk.chpids) or "none"
            mb_s = link_pages_per_s(lk) * 4096 / 1e6
            out.append(f"Node {other:<8} capacity {lk.capacity_factor:>3}  CHPIDs {len(lk.chpids)}: {chp}"
                       f"  (relocation about {mb_s:,.0f} MB/s)")
        return out

    # -- lessons -----------------------------------------------------------------------------------
    def _tracker(self, verb: str) -> Any:
        tr = self.sim.lesson
        if tr is None:
            raise CPError(f"HCP{verb[:3]}2001E", "This scenario has no lesson or objectives")
        return tr

    def _hint(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "HINT")
        tok.end()
        tr = self._tracker("HINT")
        if tr.ended:
            raise CPError("HCPHIN2002E", "The lesson has ended; no more hints")
        return tr.hint()

    def _lesson(self, tok: Tokens, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "LESSON")
        tr = self._tracker("LESSON")
        if tok.accept("END", 3):
            tok.end()
            if tr.ended:
                raise CPError("HCPLES2002E", f"The lesson already ended at {tr.ended_s:g} s")
            tr.end("ended by the student")
            return [f"Lesson ended at {self.sim.t:g} s"] + tr.status_lines()[1:]
        if tok.accept("BRIEFING", 5):
            tok.end()
            les = tr.lesson
            if les is None:
                return ["No briefing: this scenario has objectives but no lesson"]
            return [les.title, "", *les.briefing.strip().splitlines(), "", f"Goal: {les.goal}"]
        tok.accept("STATUS", 4)
        tok.end()
        return tr.status_lines()

    def _reloc_status(self, userid: str | None) -> list[str]:
        act = [r for r in self.sim.reloc.active if userid is None or r.guest.userid == userid]
        if not act:
            who = f" for {userid}" if userid else ""
            return [f"HCPRLH1946I No relocations in progress{who}"]
        lines = ["User     From     To       By       Status                   Elapsed  Pass"]
        for r in act:
            el = int(self.sim.t - r.t_start)
            status = "Quiesced" if r.state == "quiesced" else "Moving Memory"
            lines.append(f"{r.guest.userid:<8} {r.source:<8} {r.dest:<8} {r.issuer[:8]:<8} "
                         f"{status:<24} {el // 3600:02d}:{el % 3600 // 60:02d}:{el % 60:02d} "
                         f"{len(r.passes):>4}")
        return lines


def known_verb(word: str) -> bool:
    """True when ``word`` abbreviates a command this simulator accepts (for scenario checks)."""
    return any(abbrev(word, w, n) for w, n in VERBS)


VERBS = [("AT", 2), ("QUERY", 1), ("INDICATE", 3), ("XAUTOLOG", 5), ("LOGOFF", 3), ("LOGON", 1),
         ("FORCE", 5), ("SET", 3), ("SEND", 4), ("WORKLOAD", 4), ("VMRELOCATE", 5),
         ("STOP", 4), ("BEGIN", 1), ("LINUX", 5), ("VMOTION", 7), ("LPM", 3),
         ("HINT", 4), ("LESSON", 6)]
