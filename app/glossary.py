"""Plain-language explanations of the terms the window shows, used for its tooltips."""

from __future__ import annotations

from ssisim.engine import THROTTLE_REASONS

TERMS: dict[str, str] = {
    "member": "A z/VM system of the SSI cluster, in its own LPAR. Guests run on one member at a "
              "time and can be relocated to another.",
    "central": "Central storage: the member's real memory, in 4 KiB frames. Shown: frames "
               "holding guest pages, of the frames available to guests.",
    "xstor": "XSTOR (expanded storage): a fast, page-addressable second tier of memory (z/VM "
             "6.2 era). Pages stolen from central storage go here first, and move on to DASD "
             "as they age. Members of z/VM 6.3 and later usually have none.",
    "paging": "Auxiliary storage: paging slots on DASD (or NVMe) volumes, 4 KiB each. Shown: "
              "slots in use, of all slots. Planners keep this below 50 % full.",
    "cpu": "CPU load of the member in the last step: what its guests used plus CP's own work "
           "(paging, relocation), as a share of its logical processors.",
    "dispatch": "Running: the guest has work and is on the dispatch list, so it gets the CPU "
                "and its pages are in use.",
    "dormant": "Dormant: the guest has had no work for a while. Only a dormant guest's pages "
               "count as truly idle; CP steals them first when frames run short.",
    "eligible": "Eligible: the guest has work but waits on the eligible list, because the "
                "working sets already on the dispatch list fill storage (SRM STORBUF).",
    "stopped": "Stopped (CP STOP): the virtual CPUs are halted at once and memory stays; "
               "network interrupts still make CP schedule the guest now and then. BEGIN "
               "continues it.",
    "suspended": "Suspended (Linux suspend to swap): Linux wrote its memory image to its swap "
                 "disk and halted; the guest stays dormant until it is resumed.",
    "suspending": "Suspending (Linux suspend to swap): the services freeze, then Linux writes "
                  "its memory image to its swap disk; the guest serves nothing meanwhile.",
    "resuming": "Resuming: after LINUX RESUME the kernel boots, reads its image back from swap "
                "and restarts the services; after CP BEGIN the stopped guest catches up. It "
                "serves again once it has answered its first request.",
    "relocating": "Relocating: Live Guest Relocation is copying the guest's memory to another "
                  "member while the guest keeps running.",
    "quiesced": "Quiesced: stopped for the last two passes of a relocation. The time it stays "
                "stopped is the quiesce time.",
    "logged off": "Logged off: the guest has no virtual machine. Log it on from its menu.",
    "incoming": "The destination's copy of a guest being relocated: its pages take the "
                "destination's frames as they arrive.",
    "quiesce": "Quiesce time: how long the guest is stopped, for the penultimate and final "
               "passes. MAXQUIESCE cancels the relocation if it would last longer (default "
               "10 s).",
    "pass": "A memory-move pass: pass 1 sends every instantiated page; each later pass sends "
            "the pages changed during the previous one. The last two (penultimate and final) "
            "run with the guest stopped. A relocation takes 3 to 18 passes.",
    "pages_left": "Pages still to send in the current pass.",
    "link": "The ISFC logical link between the two members (FICON CTC channel paths). Shown: "
            "pages per second it carried for this relocation, and what it could carry.",
    "throttle": "A throttle: the relocation slowed itself because a resource ran short. Each "
                "bar is one throttle, from its start to its end; hover for its meaning.",
    "relocation_s": "Relocation time: from the command to the guest running on the "
                    "destination.",
    "page_in": "Page faults served from XSTOR or DASD, per second.",
    "to_xstor": "Pages stolen from central storage to XSTOR, per second.",
    "to_dasd": "Pages written to DASD paging slots (steals and XSTOR migrations), per second.",
    "throughput": "Work the guest's workload completed per second, in its own unit.",
    "lpm": "PowerVM Live Partition Mobility (for comparison): mover service partitions copy "
           "the partition's memory over their links in pre-copy passes; the partition is "
           "suspended for the last changed pages and the switch (its downtime).",
    "vmotion": "VMware Storage vMotion (for comparison): the guest's virtual disk is copied to "
               "another datastore while it runs (snapshot, dirty block tracking or IO "
               "mirroring); the guest is stopped for the last copy and the switch.",
    "suspend": "Linux suspend (hibernation): the services freeze, Linux writes the pages it "
               "uses to its swap disk and halts; the guest stays dormant until resumed.",
    "resume": "Linux resume: the kernel boots, reads its image back from swap and restarts the "
              "services; the guest serves again after the first request.",
    "downtime": "Each line is a guest on the move or being paused: its phase, a bar for the "
                "share of the current pass or phase done, and how long the guest has been "
                "stopped (quiesce for LGR, downtime for LPM and Storage vMotion, not serving "
                "for a pause).",
}

#: Throttle reasons by ``side:reason``, as the engine names them.
THROTTLES: dict[str, str] = {f"{side}:{reason}": text
                             for (side, reason), text in THROTTLE_REASONS.items()}


def throttle_text(key: str) -> str:
    """What a throttle ``side:reason`` means."""
    return THROTTLES.get(key, key)
