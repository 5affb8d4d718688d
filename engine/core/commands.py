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
- ``HELP [command]``: the commands, or one command's syntax
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any, Protocol

from ..basics.cp import CPError, abbrev, shown
from ..basics.units import PAGES_PER_MB, format_size
from ..basics.workloads import Workload
from ..cp import grammar as G
from ..cp.grammar import SYNTAX_HELP, VERBS, Command, parse_command, workload_problem
from ..lessons.objectives import LessonTracker
from ..migrations.lpm import LPMOptions, firmware_of
from ..migrations.relocation import RelocationOptions, link_pages_per_s, storage_check
from ..migrations.storage_vmotion import VMotionOptions
from ..views.cluster import Cluster
from ..world.state import DISPATCH, DORMANT, ELIGIBLE, Guest, Member
from ..world.world import CPResponse

Applier = Callable[[Any, str, str], list[str]]


class Console(Cluster, Protocol):
    """What the operator's console works on: the cluster, and its lesson if it has one."""

    lesson: LessonTracker | None


class CommandProcessor:
    """Applies typed commands (``cp.grammar``) to a ``Simulation`` and answers in CP's words."""

    def __init__(self, sim: Console) -> None:
        self.sim = sim
        # the operator works on the first member of the scenario
        self.console_member = next(iter(sim.members), "")
        self.appliers: dict[type[Command], Applier] = {
            G.At: self._at, G.Send: self._send,
            G.QueryAllocPage: self._query, G.QueryNames: self._query, G.QuerySSI: self._query,
            G.QueryIslink: self._query, G.QueryStorage: self._query, G.QueryXstore: self._query,
            G.QueryWorkload: self._query, G.QueryUser: self._query_user,
            G.IndicateLoad: self._indicate, G.IndicateUser: self._indicate,
            G.Xautolog: self._logon, G.Logon: self._logon, G.Logoff: self._logoff,
            G.Force: self._force, G.SetReserved: self._set_reserved, G.SetShare: self._set_share,
            G.WorkloadStart: self._workload, G.WorkloadStop: self._workload,
            G.WorkloadSet: self._workload,
            G.VmrelocateMove: self._vmrelocate, G.VmrelocateTest: self._vmrelocate,
            G.VmrelocateStatus: self._reloc_status_cmd, G.VmrelocateCancel: self._reloc_cancel,
            G.Stop: self._stop, G.Begin: self._begin, G.Linux: self._linux,
            G.Vmotion: self._vmotion, G.VmotionStatus: self._vmotion_status,
            G.VmotionCancel: self._vmotion_cancel,
            G.Lpm: self._lpm, G.LpmStatus: self._lpm_status, G.LpmCancel: self._lpm_cancel,
            G.Hint: self._hint, G.Lesson: self._lesson, G.Help: self._help,
        }

    # -- entry point -----------------------------------------------------------------------------
    def execute(self, command: str | Command, issuer: str = "OPERATOR",
                member: str | None = None) -> CPResponse:
        """Parse (when text) and apply a command; CP's refusal comes back as the response."""
        try:
            if isinstance(command, str):
                if not command.split():
                    return CPResponse([], 0)
                command = parse_command(command, issuer)
            lines = self.apply(command, issuer, member or self.console_member)
            return CPResponse(lines, 0, command)
        except CPError as e:
            return CPResponse([e.line], e.rc, command if isinstance(command, Command) else None)

    def apply(self, cmd: Command, issuer: str, member: str) -> list[str]:
        """Apply a typed command as ``issuer`` on ``member``; raises ``CPError`` when refused."""
        return self.appliers[type(cmd)](cmd, issuer, member)

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
            raise CPError(f"HCP{verb[:3]}2900E", f"{shown(name.upper())} is not a member of "
                          f"the SSI cluster; members: {names}")
        return m

    def _operator_only(self, issuer: str, verb: str) -> None:
        if issuer != "OPERATOR":
            raise CPError(f"HCP{verb[:3]}002E", f"{verb} is not authorized for {issuer}")

    # -- AT member CMD ---------------------------------------------------------------------------
    def _at(self, cmd: G.At, issuer: str, member: str) -> list[str]:
        m = self.member(cmd.member, "AT")
        return self.apply(cmd.command, issuer, m.name)

    # -- QUERY ----------------------------------------------------------------------------------
    def _query(self, cmd: Command, issuer: str, member: str) -> list[str]:
        m = self.sim.members[member]
        if isinstance(cmd, G.QueryAllocPage):
            return self._q_alloc_page(m)
        if isinstance(cmd, G.QueryNames):
            return self._q_names(m)
        if isinstance(cmd, G.QuerySSI):
            lines = ["SSI Name: SSISIM", "SSI Mode: Stable", "Cross-System Timeouts: Enabled",
                     "SSI Persistent Data Record (PDR) device: VMCOM1 on 0200",
                     "SLOT SYSTEMID STATE    PDR HEARTBEAT        RECEIVED HEARTBEAT"]
            for i, name in enumerate(sorted(self.sim.members), 1):
                state = "Joined" if self.sim.members[name].up else "Down"
                lines.append(f"   {i} {name:<8} {state:<8}")
            return lines
        if isinstance(cmd, G.QueryIslink):
            return self._q_islink(m)
        if isinstance(cmd, G.QueryStorage):
            return [f"STORAGE = {format_size(m.cfg.central_pages)} CONFIGURED = "
                    f"{format_size(m.cfg.central_pages)} INC = 256M STANDBY = 0  RESERVED = 0"]
        if isinstance(cmd, G.QueryXstore):
            if m.cfg.xstor_pages == 0:
                return ["HCPQXS2213I No expanded storage is configured"]
            return [f"XSTORE= {format_size(m.cfg.xstor_pages)} online= "
                    f"{format_size(m.cfg.xstor_pages)}",
                    f"XSTORE= {format_size(m.cfg.xstor_pages)} userid= SYSTEM usage= "
                    f"{100 * m.xstor_used // max(1, m.cfg.xstor_pages)}% retained= 0M pending= 0M"]
        assert isinstance(cmd, G.QueryWorkload)
        g = self.guest(cmd.userid, "QUERY")
        return [f"{g.userid}: {g.workload.describe()}  ({g.workload.unit} "
                f"{g.units_step:.1f})"]

    def _query_user(self, cmd: G.QueryUser, issuer: str, member: str) -> list[str]:
        what = cmd.userid
        if what not in self.sim.guests:
            if len(what) > 8:
                raise CPError("HCPCQU003E", f"Invalid option - {shown(what)}")
            near = difflib.get_close_matches(what, _QUERY_WORDS, n=1, cutoff=0.75)
            if near:
                raise CPError("HCPCQU053E", f"{shown(what)} not in CP directory; did you "
                              f"mean QUERY {near[0]}?")
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
    def _indicate(self, cmd: Command, issuer: str, member: str) -> list[str]:
        if isinstance(cmd, G.IndicateUser):
            return self._ind_user(self.logged_on_guest(cmd.userid, "IND"))
        return self._ind_load(self.sim.members[member])

    def _ind_load(self, m: Member) -> list[str]:
        guests = self.sim.guests_on(m.name)
        disp = sum(1 for g in guests if g.state == DISPATCH)
        elig = sum(1 for g in guests if g.state == ELIGIBLE)
        dorm = sum(1 for g in guests if g.state == DORMANT)
        rates = [s for s in self.sim.samples_member if s.member == m.name]
        pin = (rates[-1].page_in_s + rates[-1].page_out_s) if rates else 0.0
        xs = (rates[-1].xstor_in_s + rates[-1].xstor_out_s) if rates else 0.0
        mig = rates[-1].migrate_s if rates else 0.0
        stor = 100 * m.used_frames // max(1, m.frames)
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

    # -- LOGON / XAUTOLOG / LOGOFF / FORCE -------------------------------------------------------
    def _logon(self, cmd: G.Xautolog | G.Logon, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, cmd.VERB)
        g = self.guest(cmd.userid, "XAU")
        target = g.home if g.home in self.sim.members else member
        if cmd.at is not None:
            target = self.member(cmd.at, "XAU").name
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
        self.sim.log_on(g, target)
        users = self._users(target)
        return ["Command accepted", f"AUTO LOGON  ***   {g.userid:<8} USERS = {users}"]

    def _logoff(self, cmd: G.Logoff, issuer: str, member: str) -> list[str]:
        g = self.logged_on_guest(cmd.userid if cmd.userid is not None else issuer, "LOG")
        where = g.member
        self.sim.log_off(g)
        return [f"USER DSC   LOGOFF AS  {g.userid:<8} USERS = {self._users(where)}"]

    def _force(self, cmd: G.Force, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "FORCE")
        g = self.logged_on_guest(cmd.userid, "FOR")
        where = g.member
        self.sim.log_off(g)
        return [f"USER DSC   LOGOFF AS  {g.userid:<8} USERS = {self._users(where)}  FORCED BY "
                f"{issuer}"]

    def _users(self, member: str | None) -> int:
        return sum(1 for g in self.sim.guests.values() if g.member == member)

    # -- SET -------------------------------------------------------------------------------------
    def _set_reserved(self, cmd: G.SetReserved, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "SET")
        g = self.logged_on_guest(cmd.userid, "SET")
        pages = cmd.pages
        g.set_reserved = pages
        return [f"{g.userid} RESERVED PAGES SET TO {pages}"
                + ("" if pages <= g.npages else " (more than the guest's storage)")]

    def _set_share(self, cmd: G.SetShare, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "SET")
        g = self.logged_on_guest(cmd.userid, "SET")
        absolute = cmd.scale == "ABSOLUTE"
        g.share = cmd.value
        g.share_absolute = absolute
        return [f"USER {g.userid}: SHARE {cmd.scale} {cmd.value:g}{'%' if absolute else ''}"]

    # -- SEND CP --------------------------------------------------------------------------------
    def _send(self, cmd: G.Send, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "SEND")
        g = self.logged_on_guest(cmd.userid, "SND")
        assert g.member is not None
        return self.apply(cmd.command, g.userid, g.member)

    # -- WORKLOAD (simulator) ---------------------------------------------------------------------
    def _workload(self, cmd: G.WorkloadStart | G.WorkloadStop | G.WorkloadSet, issuer: str,
                  member: str) -> list[str]:
        g = self.guest(cmd.userid if cmd.userid is not None else issuer, "WKL")
        if isinstance(cmd, G.WorkloadStart):
            return self._start(g, cmd.type.lower(), dict(cmd.params))
        if isinstance(cmd, G.WorkloadStop):
            return self._start(g, "none", {})
        if g.workload.kind == "none":
            raise CPError("HCPWKL003E", f"{g.userid} runs no workload; start one with "
                          f"WORKLOAD {g.userid} START type")
        params = dict(g.workload.params)
        params.update(dict(cmd.params))
        return self._start(g, g.workload.kind, params, keep_cursors=True)

    def _start(self, g: Guest, kind: str, params: dict[str, float],
               keep_cursors: bool = False) -> list[str]:
        workload_problem(kind, params)
        w = Workload(kind, params, g.cfg.storage_pages)
        g.set_workload(w, keep_cursors)
        self.sim.emit("WORKLOAD", g.member, g.userid, f"{g.userid}: workload {w.describe()}")
        return [f"WORKLOAD {g.userid}: {w.describe()}"]


    # -- VMRELOCATE -------------------------------------------------------------------------------
    def _reloc_status_cmd(self, cmd: G.VmrelocateStatus, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "VMRELOCATE")
        want = self.guest(cmd.userid, "RLH").userid if cmd.userid is not None else None
        return self._reloc_status(want)

    def _cancel_move(self, verb: str, code: str, engine: Any, userid: str, issuer: str,
                     none: str, done: str,
                     too_late: Callable[[Any], str | None] | None = None) -> list[str]:
        """VMRELOCATE, VMOTION and LPM CANCEL: the operator stops a guest's migration now.
        ``none`` and ``done`` are the messages, with ``{g}`` (the guest) and ``{mv}``;
        ``too_late(mv)``: why the migration can no longer be cancelled (``HCP{code}1947E``)."""
        self._operator_only(issuer, verb)
        g = self.guest(userid, code)
        mv = engine.of(g.userid)
        if mv is None:
            raise CPError(f"HCP{code}1945E", none.format(g=g.userid))
        why = too_late(mv) if too_late is not None else None
        if why:
            raise CPError(f"HCP{code}1947E", why)
        engine.cancel(mv, issuer)
        return [done.format(g=g.userid, mv=mv)]

    def _reloc_cancel(self, cmd: G.VmrelocateCancel, issuer: str, member: str) -> list[str]:
        return self._cancel_move(
            "VMRELOCATE", "RLH", self.sim.reloc, cmd.userid, issuer,
            "No relocation of {g} is in progress",
            "Relocation of {g} from {mv.source} to {mv.dest} is cancelled; {g} continues to "
            "run on {mv.source}")

    def _vmrelocate(self, cmd: G.VmrelocateMove | G.VmrelocateTest, issuer: str,
                    member: str) -> list[str]:
        self._operator_only(issuer, "VMRELOCATE")
        test = isinstance(cmd, G.VmrelocateTest)
        dest_name = cmd.dest
        opts = RelocationOptions(test=test, sync=cmd.sync, immediate=cmd.immediate,
                                 maxquiesce_s=cmd.maxquiesce_s, maxtotal_s=cmd.maxtotal_s,
                                 force_storage=cmd.force_storage)
        g = self.guest(cmd.userid, "RLH")
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
        problem = storage_check(g, dest, opts.force_storage,
                                self.sim.reloc.arriving_pages(dest.name))
        if problem:
            raise CPError("HCPRLH1940E", f"{g.userid} {verb} {dest.name} because {problem}")
        if test:
            return [f"User {g.userid} is eligible for relocation to {dest.name}"]
        r = self.sim.reloc.start(g, dest.name, opts, issuer, link)
        return [f"Relocation of {g.userid} from {r.source} to {dest.name} started"
                + ("" if opts.sync else " (ASYNC)")]

    # -- STOP / BEGIN / LINUX ----------------------------------------------------------------------
    def _stop(self, cmd: G.Stop, issuer: str, member: str) -> list[str]:
        if issuer == "OPERATOR":
            raise CPError("HCPSTP002E", "STOP stops your own virtual machine; for a guest use "
                          "SEND CP userid STOP")
        g = self.logged_on_guest(issuer, "STP")
        if "stop" in g.stopped_by:
            return [f"{g.userid}: virtual CPUs are already stopped"]
        if g.relocating:
            raise CPError("HCPSTP1940E", f"{g.userid} is being relocated; STOP is not possible now")
        g.hold("stop")
        self.sim.emit("STOPPED", g.member, g.userid, f"{g.userid}: CP STOP, all virtual CPUs "
                      "stopped; memory and devices stay")
        return ["CPU 00  STOPPED"]

    def _begin(self, cmd: G.Begin, issuer: str, member: str) -> list[str]:
        if issuer == "OPERATOR":
            raise CPError("HCPBEG002E", "BEGIN continues your own virtual machine; for a guest use "
                          "SEND CP userid BEGIN")
        g = self.logged_on_guest(issuer, "BEG")
        if "stop" not in g.stopped_by:
            raise CPError("HCPBEG1543E", f"{g.userid} is not stopped; BEGIN does nothing")
        g.release("stop")
        first = self.sim.pause.first_request_s(g)
        self.sim.emit("BEGIN", g.member, g.userid, f"{g.userid}: CP BEGIN; it answers requests "
                      f"again after {first:.1f} s", {"serving_s": round(first, 6)})
        return []

    def _linux(self, cmd: G.Linux, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "LINUX")
        g = self.guest(cmd.userid, "LNX")
        if cmd.action == "SUSPEND":
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
            kept, swapped = self.sim.pause.image_split(g)
            self.sim.pause.suspend(g)
            how = "" if not swapped else (f": {swapped / PAGES_PER_MB:.0f} MB swapped out, then "
                                          f"a {kept / PAGES_PER_MB:.0f} MB image")
            return [f"{g.userid}: hibernation started ({image / PAGES_PER_MB:.0f} MB to write"
                    f"{how})"]
        if not g.logged_on:
            raise CPError("HCPLNX045E", f"{g.userid} not logged on")
        if g.linux != "suspended":
            raise CPError("HCPLNX003E", f"{g.userid} is not suspended (Linux is {g.linux}); "
                          "nothing to resume")
        self.sim.pause.resume(g)
        return [f"{g.userid}: resume started"]

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

    def _vmotion_status(self, cmd: G.VmotionStatus, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "VMOTION")
        act = self.sim.svm.active
        if not act:
            return ["HCPVMO1946I No Storage vMotion in progress"]
        return [f"{m.guest.userid:<8} {m.source:<8} -> {m.dest:<8} {m.options:<22} "
                f"{m.state:<9} pass {len(m.passes)}  {m.units_moved} blocks copied"
                for m in act]

    def _vmotion_cancel(self, cmd: G.VmotionCancel, issuer: str, member: str) -> list[str]:
        return self._cancel_move(
            "VMOTION", "VMO", self.sim.svm, cmd.userid, issuer,
            "No Storage vMotion of {g} is in progress",
            "Storage vMotion of {g} to {mv.dest} is cancelled; its disk stays on {mv.source}")

    def _vmotion(self, cmd: G.Vmotion, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "VMOTION")
        svm = self.sim.svm
        target = cmd.datastore
        opts = VMotionOptions(method=cmd.method, heat=cmd.heat)
        g = self.guest(cmd.userid, "VMO")
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

    def _lpm_status(self, cmd: G.LpmStatus, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "LPM")
        act = self.sim.lpm.active
        if not act:
            return ["HCPLPM1946I No partition migration in progress"]
        return [f"{m.guest.userid:<8} {m.source:<8} -> {m.dest:<8} {m.state:<9} "
                f"pass {len(m.passes)}  {m.units_moved} pages sent" for m in act]

    def _lpm_cancel(self, cmd: G.LpmCancel, issuer: str, member: str) -> list[str]:
        return self._cancel_move(
            "LPM", "LPM", self.sim.lpm, cmd.userid, issuer,
            "No partition migration of {g} is in progress",
            "Partition migration of {g} to {mv.dest} is cancelled; it keeps running on "
            "{mv.source}",
            lambda mv: f"{mv.guest.userid} already runs on {mv.dest}: its last changed pages "
                       f"are on their way, and the migration can no longer be cancelled"
            if mv.state == "post-copy" else None)

    def _lpm(self, cmd: G.Lpm, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "LPM")
        lpm = self.sim.lpm
        dest_name = cmd.dest
        opts = LPMOptions(threads=cmd.threads if isinstance(cmd.threads, int) else None,
                          auto=cmd.threads == "AUTO", compress=cmd.compress)
        g = self.guest(cmd.userid, "LPM")
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
            if opts.threads and opts.threads > self.sim.lpm.model.max_threads_older:
                raise CPError("HCPLPM1941E", f"Older firmware runs at most "
                              f"{self.sim.lpm.model.max_threads_older} threads per MSP, not "
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
        links = [lk for lk in self.sim.scenario.links if m.name in lk.members]
        if not links:
            return [f"HCPQIS2702I {m.name} has no ISFC links"]
        out = []
        for lk in sorted(links, key=lambda x: x.members):
            other = next(n for n in lk.members if n != m.name)
            chp = ", ".join(f"{c.gbps} Gbit/s x {c.ctcs} CTC" for c in lk.chpids) or "none"
            mb_s = link_pages_per_s(lk, self.sim.reloc.model) * 4096 / 1e6
            out.append(f"Node {other:<8} capacity {lk.capacity_factor:>3}  CHPIDs "
                       f"{len(lk.chpids)}: {chp}  (relocation about {mb_s:,.0f} MB/s)")
        return out

    # -- HELP ------------------------------------------------------------------------------------
    def _help(self, cmd: G.Help, issuer: str, member: str) -> list[str]:
        if cmd.topic is None:
            lines = ["Commands (minimum abbreviation in capitals); HELP command gives its syntax:"]
            for verb, minimum in VERBS:
                lines.append(f"  {verb[:minimum] + verb[minimum:].lower():<11} "
                             f"{SYNTAX_HELP[verb][0]}")
            return lines
        for verb, minimum in VERBS:
            if abbrev(cmd.topic, verb, minimum):
                what, usage = SYNTAX_HELP[verb]
                return [f"{verb}: {what}", *(f"  {u}" for u in usage)]
        raise CPError("HCPHLP003E", f"No help for {shown(cmd.topic)}; HELP lists the commands")

    # -- lessons -----------------------------------------------------------------------------------
    def _tracker(self, verb: str) -> Any:
        tr = self.sim.lesson
        if tr is None:
            raise CPError(f"HCP{verb[:3]}2001E", "This scenario has no lesson or objectives")
        return tr

    def _hint(self, cmd: G.Hint, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "HINT")
        tr = self._tracker("HINT")
        if tr.ended:
            raise CPError("HCPHIN2002E", "The lesson has ended; no more hints")
        return tr.hint()

    def _lesson(self, cmd: G.Lesson, issuer: str, member: str) -> list[str]:
        self._operator_only(issuer, "LESSON")
        tr = self._tracker("LESSON")
        if cmd.action == "END":
            if tr.ended:
                raise CPError("HCPLES2002E", f"The lesson already ended at {tr.ended_s:g} s")
            tr.end("ended by the student")
            return [f"Lesson ended at {self.sim.t:g} s"] + tr.status_lines()[1:]
        if cmd.action == "BRIEFING":
            les = tr.lesson
            if les is None:
                return ["No briefing: this scenario has objectives but no lesson"]
            return [les.title, "", *les.briefing.strip().splitlines(), "", f"Goal: {les.goal}"]
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


_QUERY_WORDS = ["ALLOC", "NAMES", "SSI", "ISLINK", "STORAGE", "XSTORE", "WORKLOAD"]
