"""A generated shop: a cluster of many Linux guests of the kinds a z/VM shop runs.

``shop_text(guests, members)`` writes a scenario file (text) of ``members`` members, each with
512G of central storage and 16 CPUs for every 250 guests it holds (or part of 250), and
``guests`` guests of 2G to 16G spread over them: web
servers, application servers, databases and idle Linux, their sizes, working sets and offered
load drawn from fixed ranges with a seeded generator, so the same arguments always give the same
file. The bundled ``planning/shop-1000`` is ``shop_text(1000, 4)``; ``ssisim bench`` generates
the 4,000-guest shop the same way.

The cluster is sized so that it runs without paging and with the members' CPUs about half busy,
as a shop runs in its day: what is left to simulate is the scheduler, the CPU sharing and the
workloads' references, guest by guest.
"""

from __future__ import annotations

import numpy as np

#: workload kinds of the shop: (share of guests, user ID prefix, working set as a share of the
#: guest's storage, offered requests per second, pages referenced per request)
_KINDS = (
    ("webserver", 0.25, "WB", 0.25, 20.0, 60),
    ("appserver", 0.30, "AP", 0.40, 5.0, 300),
    ("database", 0.15, "DB", 0.50, 10.0, 150),
    ("idle", 0.30, "ID", 0.0, 0.0, 0),
)
#: guest storage sizes in GB and how often each occurs
_SIZES_GB = (2, 4, 8, 16)
_SIZE_WEIGHTS = (0.35, 0.35, 0.2, 0.1)


def shop_text(guests: int = 1000, members: int = 4, seed: int = 19,
              duration_s: float = 600.0, step_s: float = 1.0, quiet_step_s: float = 10.0) -> str:
    """The scenario file of a generated shop (see the module's description); its quiet members
    are stepped ``quiet_step_s`` at a time (0: every step)."""
    if not (1 <= guests < 100_000 and 1 <= members <= 99):
        raise ValueError("a generated shop has 1 to 99 members and 1 to 99,999 guests")
    rng = np.random.default_rng(seed)
    names = [f"MEMB{i + 1}" for i in range(members)]
    out = [
        f"# A generated shop: {members} members of 512G and 16 CPUs, {guests} Linux guests of",
        "# 2G to 16G (web and application servers, databases, idle Linux), about half the CPUs",
        "# busy and no paging. Written by engine/scenarios/shop.py (shop_text); regenerate",
        "# rather than edit.",
        'format = "ssisim-scenario"',
        "version = 1",
        f'name = "Shop of {guests} guests"',
        f'description = "{members} members of 512G and 16 CPUs, {guests} Linux guests of 2G '
        f'to 16G: web and application servers, databases, idle Linux."',
        "",
        "[run]",
        f"seed = {seed}",
        f"duration_s = {duration_s:g}",
        f"step_s = {step_s:g}",
        "sample_s = 60",
        f"quiet_step_s = {quiet_step_s:g}  # a member that pages nothing: steps this long",
    ]
    # a member of 512G and 16 CPUs holds 250 guests without paging, half busy: a larger shop
    # has larger members, as a real one would
    scale = max(1, -(-guests // (250 * members)))
    for i, name in enumerate(names):
        out += ["", "[[member]]", f'name = "{name}"', f"cpus = {min(256, 16 * scale)}",
                f'central = "{512 * scale}G"']
        for v in range(4):
            out += ["  [[member.volume]]", f'  volid = "M{i + 1}P{v + 1:03d}"',
                    '  size = "256G"', '  kind = "eckd"']
    for a in range(members):
        for b in range(a + 1, members):
            out += ["", "[[link]]", f'members = ["{names[a]}", "{names[b]}"]',
                    "chpids = [{gbps = 8, ctcs = 4}, {gbps = 8, ctcs = 4}]"]
    shares = np.array([k[1] for k in _KINDS])
    kinds = rng.choice(len(_KINDS), size=guests, p=shares / shares.sum())
    sizes = rng.choice(_SIZES_GB, size=guests, p=_SIZE_WEIGHTS)
    loads = rng.uniform(0.5, 1.5, size=guests)
    idle_wss = rng.choice((64, 128, 256), size=guests)
    counts: dict[str, int] = {}
    width = 4 if guests < 10_000 else 5  # user IDs of at most 8 characters: LWB0001
    for j in range(guests):
        kind, _, prefix, wss_share, rate, ppr = _KINDS[int(kinds[j])]
        counts[prefix] = counts.get(prefix, 0) + 1
        size = int(sizes[j])
        vcpus = 1 if size <= 4 else 2
        if kind == "idle":
            wl = f'{{ type = "idle", wss_mb = {int(idle_wss[j])} }}'
        else:
            wss = int(size * 1024 * wss_share)
            wl = (f'{{ type = "{kind}", wss_mb = {wss}, requests_per_s = '
                  f'{rate * loads[j]:.1f}, pages_per_request = {ppr} }}')
        out += ["", "[[guest]]", f'userid = "L{prefix}{counts[prefix]:0{width}d}"',
                f'member = "{names[j % members]}"', f'storage = "{size}G"', f"vcpus = {vcpus}",
                f"workload = {wl}"]
    return "\n".join(out) + "\n"
