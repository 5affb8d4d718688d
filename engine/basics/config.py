"""Typed descriptions of the simulated world: members, paging volumes, ISFC links, guests.

These are plain data, filled by the scenario loader (or by code) and read by the simulation.
Storage is held in 4 KiB pages; times in seconds unless a name says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any


@dataclass(frozen=True)
class DeviceKind:
    """What a kind of paging device does when a scenario says nothing more (docs/model.md)."""

    service_ms: float  # one 4 KiB page read or written, nothing queued ahead of it
    queue_depth: int  # I/Os the device serves at once
    what: str
    mb_s: float  # transfer rate of one I/O once it is under way (more pages: longer transfer)


#: Paging device kinds and their typical figures. Each is a defensible default, not a
#: measurement of one machine: a scenario sets ``service_ms`` and ``queue_depth`` for its own
#: devices (docs/model.md, "Paging devices", gives the reasoning and the sensitivity).
DEVICE_KINDS: dict[str, DeviceKind] = {
    # a 3390 volume on a DS8000-class control unit over FICON, page I/O served from the
    # control unit's cache (about half a millisecond); HyperPAV lets CP drive a base device and
    # its aliases at once: 4 concurrent I/Os
    # (a FICON 8 Gbit/s channel moves about 800 MB/s; one volume's I/O gets half of it)
    "eckd": DeviceKind(0.5, 4, "ECKD 3390 volume over FICON (HyperPAV)", 400.0),
    # a SCSI LUN of the same storage server over FCP as an emulated device (EDEV): no CCW
    # translation in the channel but the same back end; more I/Os in flight through the FCP queue
    "fcp": DeviceKind(0.4, 8, "FCP SCSI LUN as an EDEV", 400.0),
    # an NVMe drive as an EDEV: flash read latency of about 0.1 ms and a deep queue
    # (a PCIe 3 x4 drive reads some 2 GB/s)
    "nvme": DeviceKind(0.1, 32, "NVMe drive as an EDEV", 2000.0),
}


@dataclass(frozen=True)
class VolumeConfig:
    """One paging volume (ECKD DASD, FCP or NVMe EDEV) of a member."""

    volid: str
    slots: int
    service_ms: float = 0.5  # time to read or write one page when the volume is not queued
    queue_depth: int = 4  # I/Os the volume serves at once (HyperPAV aliases, NVMe queues)
    rdev: str = "0000"
    kind: str = "eckd"  # a key of DEVICE_KINDS
    #: transfer rate once an I/O is under way, MB/s: a block of pages takes longer than a page
    mb_s: float = 400.0
    #: the physical device the volume is a slice of: volumes naming the same device share its
    #: queue and its bandwidth; "" means a device of its own
    device: str = ""

    @property
    def pages_per_s(self) -> float:
        """Pages the volume's device can move per second at full queue."""
        return self.queue_depth / (self.service_ms / 1000.0)

    @property
    def transfer_ratio(self) -> float:
        """Transfer time of one 4 KiB page as a share of the service time of an I/O."""
        return (4096 / (self.mb_s * 1e6)) / (self.service_ms / 1000.0)

    @property
    def device_key(self) -> str:
        """The device the volume is on: its ``device``, or the volume itself."""
        return self.device or f"volume {self.volid}"


@dataclass(frozen=True)
class MemberConfig:
    """A z/VM system of the SSI cluster (one LPAR)."""

    name: str
    cpus: int = 4
    cpu_speed: float = 1.0  # relative speed of one logical processor
    central_pages: int = 16 * 256 * 1024
    xstor_pages: int = 0
    volumes: tuple[VolumeConfig, ...] = ()
    cp_pages: int = -1  # frames CP keeps for itself; -1: 1 % of central storage
    storbuf_pct: float = 300.0  # SRM STORBUF: dispatch-list working sets may total this % of DPA
    logoff_cleanup: str = "background"  # "background" (cleanup state) or "inline" (older release)
    # PowerVM Live Partition Mobility, when the member stands for a Power server
    # (see migrations/lpm.py):
    msps: int = 2  # mover service partitions on this server
    msp_gbps: float = 10.0  # each MSP's own network link, Gbit/s
    firmware: str = "newer"  # "newer": threads chosen automatically, up to 8; "older": up to 4

    @cached_property
    def slots(self) -> int:
        """Total DASD paging slots."""
        return sum(v.slots for v in self.volumes)

    @cached_property
    def devices(self) -> dict[str, VolumeConfig]:
        """The member's physical paging devices, each with one of its volumes (whose service
        time and queue are the device's): volumes on one device count once."""
        out: dict[str, VolumeConfig] = {}
        for v in self.volumes:
            out.setdefault(v.device_key, v)
        return out

    @property
    def cp_frames(self) -> int:
        """Frames of central storage not available to guests."""
        return self.cp_pages if self.cp_pages >= 0 else self.central_pages // 100


@dataclass(frozen=True)
class ChpidConfig:
    """One FICON CTC channel path of an ISFC logical link."""

    gbps: int
    ctcs: int = 4


#: CTC devices one ISFC logical link between two members can use, over all its CHPIDs (IBM,
#: "ISFC logical link configuration", Linux on IBM Z and LinuxONE: "configured by selecting up
#: to sixteen FCTC connections")
MAX_LINK_CTCS = 16


@dataclass(frozen=True)
class LinkConfig:
    """The ISFC logical link between two members."""

    members: tuple[str, str]
    chpids: tuple[ChpidConfig, ...] = ()

    @property
    def capacity_factor(self) -> int:
        """Sum of the CHPID speeds in Gbit/s (1x2 + 2x4 + 1x8 = 18)."""
        return sum(c.gbps for c in self.chpids)


@dataclass(frozen=True)
class DatastoreConfig:
    """A volume holding virtual disks (a VMFS datastore on a RAID group or LUN).

    ``mb_s`` is what the volume streams with the data mover's large IOs; ``iops`` how many small
    random IOs it serves per second; ``latency_ms`` the service time of one large IO when the
    volume is not busy (it caps what 16 outstanding IOs can move).
    """

    name: str
    mb_s: float = 400.0
    iops: float = 1200.0
    latency_ms: float = 8.0
    size_gb: float = 4096.0


@dataclass(frozen=True)
class DiskConfig:
    """A guest's virtual disk at block level and the I/O its workload does to it.

    ``pattern`` "random": writes spread evenly (OLTP-like); "mail": ``hot_share`` of the writes
    go to the hot ``hot_fraction`` of the blocks (logs, metadata), the rest spread evenly.
    """

    size_gb: float
    datastore: str
    read_iops: float = 0.0
    write_iops: float = 0.0
    pattern: str = "random"
    hot_fraction: float = 0.001
    hot_share: float = 0.45


@dataclass
class WorkloadSpec:
    """A workload type and its parameters (see ``engine._workloads`` for each type's fields)."""

    kind: str = "none"
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class GuestConfig:
    """A guest (virtual machine) as defined in the shared user directory."""

    userid: str
    member: str
    storage_pages: int
    standby_pages: int = 0
    reserved_storage_pages: int = 0  # RESERVED storage in the directory (not SET RESERVED)
    vcpus: int = 1
    share: float = 100.0
    share_absolute: bool = False
    set_reserved_pages: int = 0  # CP SET RESERVED: pages protected from stealing
    vdisk_pages: tuple[int, ...] = ()
    workload: WorkloadSpec = field(default_factory=WorkloadSpec)
    logged_on: bool = True
    swap_pages: int = 0  # the guest's own swap disk (for Linux suspend)
    swap_mb_s: float = 100.0
    disk: DiskConfig | None = None  # a virtual disk at block level (Storage vMotion)

    @property
    def max_pages(self) -> int:
        """Maximum storage: current plus standby plus reserved."""
        return self.storage_pages + self.standby_pages + self.reserved_storage_pages

    @property
    def vdisk_total_pages(self) -> int:
        """Pages of all private VDISKs."""
        return sum(self.vdisk_pages)


@dataclass(frozen=True)
class TimelineEntry:
    """A CP or simulator command issued at a simulated time."""

    at_s: float
    command: str
    line: int = 0  # line in the scenario file, for messages
    #: "back_and_forth": a VMRELOCATE MOVE issued again, back to where the guest came from,
    #: each time the previous relocation ends (continuous relocation); "" once
    repeat: str = ""
    #: no repeat starts after this time (None: until the run ends)
    until_s: float | None = None


@dataclass(frozen=True)
class ObjectiveConfig:
    """An objective as the scenario gives it."""

    id: str
    kind: str
    text: str
    points: float
    params: dict[str, Any]
    line: int = 0


@dataclass(frozen=True)
class HintConfig:
    """A hint: its text and what it costs."""

    text: str
    cost: float = 5.0


@dataclass(frozen=True)
class LessonConfig:
    """The ``[lesson]`` table: what the student is told and how the lesson is scored."""

    id: str
    title: str
    goal: str
    briefing: str
    debrief: str
    pass_score: float
    hints: tuple[HintConfig, ...] = ()
    level: str = ""
    #: seconds the lesson runs on after its last task is decided, so what the student's last
    #: action causes (paging, a stopped guest) still counts
    settle_s: float = 30.0
    #: commands the student may not type in the lesson (the timeline may use them)
    forbid: tuple[str, ...] = ("WORKLOAD",)


@dataclass
class ScenarioConfig:
    """A whole scenario: cluster, guests, timeline, run settings."""

    name: str
    members: list[MemberConfig]
    guests: list[GuestConfig]
    links: list[LinkConfig] = field(default_factory=list)
    datastores: list[DatastoreConfig] = field(default_factory=list)
    timeline: list[TimelineEntry] = field(default_factory=list)
    objectives: list[ObjectiveConfig] = field(default_factory=list)
    lesson: LessonConfig | None = None  # a lesson: briefing, hints, scoring (see _objectives)
    description: str = ""
    seed: int = 1
    duration_s: float = 600.0
    step_s: float = 1.0
    sample_s: float = 10.0
    #: A quiet member (nothing paged, room for every working set, nothing moving, pausing or
    #: starting) is stepped this many seconds at a time, a whole multiple of ``step_s``; 0 (the
    #: default) steps every member every ``step_s``. See docs/model.md, "Clock".
    quiet_step_s: float = 0.0
    path: str = ""
    source_hash: str = ""
    source_text: str = ""  # the file as read, so a session can be recorded on top of it
    #: ``[model.SECTION]`` values that replace the model's parameters for this scenario
    model: dict[str, dict[str, float]] = field(default_factory=dict)
