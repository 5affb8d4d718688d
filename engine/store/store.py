"""The run store: finished runs and sweeps in SQLite, each committed whole or not at all.

Lives in the user data directory (platformdirs) unless a path is given. WAL journal, foreign
keys on, schema migrations inside ``BEGIN IMMEDIATE ... PRAGMA user_version = N; COMMIT``, the
version read again under that lock, so that several processes may create the same new database
at once (each waits up to ``BUSY_TIMEOUT_S`` for the others).
"""

from __future__ import annotations

import json
import sqlite3
import time
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import platformdirs

from ..core.sim import Simulation
from ..views.samples import GuestSample, MemberSample

SCHEMA_VERSION = 3

_MIGRATIONS: dict[int, str] = {
    1: """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        scenario_name TEXT NOT NULL,
        scenario_path TEXT NOT NULL,
        scenario_hash TEXT NOT NULL,
        seed INTEGER NOT NULL,
        program_version TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        sim_end_s REAL NOT NULL,
        summary_json TEXT NOT NULL
    );
    CREATE TABLE member_samples (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        t_s REAL NOT NULL, member TEXT NOT NULL,
        central_used INTEGER, free_frames INTEGER, xstor_used INTEGER, slots_used INTEGER,
        page_in_s REAL, page_out_s REAL, xstor_in_s REAL, dasd_in_s REAL,
        xstor_out_s REAL, dasd_out_s REAL, migrate_s REAL, cpu_pct REAL
    );
    CREATE INDEX member_samples_run ON member_samples(run_id, member, t_s);
    CREATE TABLE guest_samples (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        t_s REAL NOT NULL, userid TEXT NOT NULL, member TEXT, state TEXT,
        central INTEGER, xstor INTEGER, dasd INTEGER, throughput REAL
    );
    CREATE INDEX guest_samples_run ON guest_samples(run_id, userid, t_s);
    CREATE TABLE events (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL, t_s REAL NOT NULL, kind TEXT NOT NULL,
        member TEXT, userid TEXT, message TEXT NOT NULL, data_json TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    );
    """,
    # how often a stopped guest was dispatched for an interrupt (CP STOP)
    2: """
    ALTER TABLE guest_samples ADD COLUMN scheduled INTEGER NOT NULL DEFAULT 0;
    """,
    # sweeps (ssisim sweep) and their points: each point's measures and its run's summary
    # (zlib-compressed JSON), not its samples; run_id links a point whose full run is stored
    3: """
    CREATE TABLE sweeps (
        id INTEGER PRIMARY KEY,
        scenario_name TEXT NOT NULL,
        scenario_path TEXT NOT NULL,
        scenario_hash TEXT NOT NULL,
        scenario_text TEXT NOT NULL,
        varies_json TEXT NOT NULL,
        seeds INTEGER NOT NULL,
        measures_json TEXT NOT NULL,
        until_s REAL,
        program_version TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        points INTEGER NOT NULL
    );
    CREATE TABLE sweep_points (
        sweep_id INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        values_json TEXT NOT NULL,
        seed INTEGER NOT NULL,
        measures_json TEXT NOT NULL,
        summary_z BLOB,
        run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
        PRIMARY KEY (sweep_id, seq)
    );
    """,
}

#: The stored columns are the fields of the engine's sample records, in order.
MEMBER_COLUMNS: tuple[str, ...] = MemberSample._fields
GUEST_COLUMNS: tuple[str, ...] = GuestSample._fields


#: How long a connection waits for another process that holds the database (seconds).
BUSY_TIMEOUT_S = 30.0


def _is_busy(e: sqlite3.OperationalError) -> bool:
    """True when SQLite refused because another connection holds a lock."""
    text = str(e).lower()
    return "locked" in text or "busy" in text


class StoreError(RuntimeError):
    """The run database cannot be opened or is of a newer version."""


def default_db_path() -> Path:
    """The run database in the user's data directory."""
    return Path(platformdirs.user_data_dir("ssisim", appauthor=False)) / "runs.sqlite"


class RunStore:
    """Stored runs and sweeps: save a finished simulation or sweep, list them, read one back."""

    #: The columns of a member sample and of a guest sample, in their stored order (the keys
    #: of the rows ``member_samples`` and ``guest_samples`` return).
    MEMBER_COLUMNS = MEMBER_COLUMNS
    GUEST_COLUMNS = GUEST_COLUMNS

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_db_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"cannot open the run database {self.path}: {e}") from None
        try:
            # another ssisim may be creating or writing the same database: wait for it
            self.db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            self._set_wal()
            self.db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.DatabaseError as e:
            self.db.close()
            raise StoreError(f"{self.path} is not a usable run database: {e}") from None
        except BaseException:
            self.db.close()
            raise

    def close(self) -> None:
        """Close the database."""
        self.db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _set_wal(self) -> None:
        """Switch to WAL; retried while another connection holds the lock (a new database
        opened by two processes at once: the switch does not always wait on the busy handler)."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self.db.execute("PRAGMA journal_mode=WAL").fetchone()
                return
            except sqlite3.OperationalError as e:
                if not _is_busy(e) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def _user_version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def _check_version(self, have: int) -> None:
        if have > SCHEMA_VERSION:
            raise StoreError(f"{self.path} was written by a newer ssisim (schema {have}); "
                             f"this one reads up to {SCHEMA_VERSION}")

    def _migrate(self) -> None:
        """Bring the schema to ``SCHEMA_VERSION`` in one write transaction.

        The version is read again once ``BEGIN IMMEDIATE`` holds the write lock: another
        process opening the same new database at the same moment may have migrated it while
        this one waited, and its migrations must not run twice.
        """
        have = self._user_version()
        self._check_version(have)
        if have == SCHEMA_VERSION:
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            have = self._user_version()
            self._check_version(have)
            for v in range(have + 1, SCHEMA_VERSION + 1):
                for stmt in _MIGRATIONS[v].split(";"):
                    if stmt.strip():
                        self.db.execute(stmt)
                self.db.execute(f"PRAGMA user_version = {v}")
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise

    def save(self, sim: Simulation, summary: dict[str, Any], started_at: str,
             finished_at: str, version: str) -> int:
        """Store a finished run in one transaction and return its id."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            cur = self.db.execute(
                "INSERT INTO runs (scenario_name, scenario_path, scenario_hash, seed, "
                "program_version, started_at, finished_at, sim_end_s, summary_json) "
                "VALUES (?,?,?,?,?,?,?,?,?)",
                (sim.scenario.name, sim.scenario.path, sim.scenario.source_hash, sim.seed,
                 version, started_at, finished_at, sim.t, json.dumps(summary, sort_keys=True)))
            run_id = int(cur.lastrowid or 0)
            self.db.executemany(
                f"INSERT INTO member_samples (run_id, {', '.join(MEMBER_COLUMNS)}) VALUES "
                f"({', '.join('?' * (len(MEMBER_COLUMNS) + 1))})",
                ((run_id, *row) for row in sim.samples_member))
            self.db.executemany(
                f"INSERT INTO guest_samples (run_id, {', '.join(GUEST_COLUMNS)}) VALUES "
                f"({', '.join('?' * (len(GUEST_COLUMNS) + 1))})",
                ((run_id, *row) for row in sim.samples_guest))
            self.db.executemany(
                "INSERT INTO events (run_id, seq, t_s, kind, member, userid, message, data_json) "
                "VALUES (?,?,?,?,?,?,?,?)",
                ((run_id, e.seq, e.t_s, e.kind, e.member, e.userid, e.message,
                  json.dumps(e.data, sort_keys=True)) for e in sim.events))
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        return run_id

    def save_sweep(self, *, scenario_name: str, scenario_path: str, scenario_hash: str,
                   scenario_text: str, varies: Sequence[tuple[str, Sequence[Any]]],
                   seeds: int, measures: Sequence[str], until_s: float | None,
                   points: Sequence[dict[str, Any]], started_at: str, finished_at: str,
                   version: str) -> int:
        """Store a finished sweep and its points in one transaction and return its id.

        Parameters
        ----------
        varies : sequence of (path, values)
            The varied fields in ``--vary`` order, each with all its values.
        until_s : float or None
            Where each point's run stopped (None: at its ``duration_s``).
        points : sequence of dict
            In the sweep's order, each with ``values`` (``[(path, value), ...]``), ``seed``,
            ``measures`` (name to value or None) and optionally ``summary`` (the point's run
            summary) and ``run_id`` (a run stored with it).
        """
        self.db.execute("BEGIN IMMEDIATE")
        try:
            cur = self.db.execute(
                "INSERT INTO sweeps (scenario_name, scenario_path, scenario_hash, scenario_text, "
                "varies_json, seeds, measures_json, until_s, program_version, started_at, "
                "finished_at, points) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (scenario_name, scenario_path, scenario_hash, scenario_text,
                 json.dumps([[p, list(vs)] for p, vs in varies]), seeds,
                 json.dumps(list(measures)), until_s, version, started_at, finished_at,
                 len(points)))
            sweep_id = int(cur.lastrowid or 0)
            self.db.executemany(
                "INSERT INTO sweep_points (sweep_id, seq, values_json, seed, measures_json, "
                "summary_z, run_id) VALUES (?,?,?,?,?,?,?)",
                ((sweep_id, i, json.dumps([[p, v] for p, v in pt["values"]]), int(pt["seed"]),
                  json.dumps(pt["measures"], sort_keys=True),
                  None if pt.get("summary") is None else zlib.compress(
                      json.dumps(pt["summary"], sort_keys=True).encode(), 6),
                  pt.get("run_id")) for i, pt in enumerate(points)))
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        return sweep_id

    def sweeps(self) -> list[dict[str, Any]]:
        """All stored sweeps, newest first (without their points)."""
        cur = self.db.execute(
            "SELECT id, scenario_name, scenario_path, varies_json, seeds, measures_json, "
            "until_s, program_version, started_at, finished_at, points FROM sweeps "
            "ORDER BY id DESC")
        cols = [d[0] for d in cur.description]
        return [self._sweep_row(dict(zip(cols, row))) for row in cur.fetchall()]

    def sweep(self, sweep_id: int) -> dict[str, Any] | None:
        """One stored sweep (its scenario text, varied fields, measures), or None."""
        cur = self.db.execute("SELECT * FROM sweeps WHERE id = ?", (sweep_id,))
        row = cur.fetchone()
        if row is None:
            return None
        return self._sweep_row(dict(zip([d[0] for d in cur.description], row)))

    @staticmethod
    def _sweep_row(rec: dict[str, Any]) -> dict[str, Any]:
        rec["varies"] = [(p, list(vs)) for p, vs in json.loads(rec.pop("varies_json"))]
        rec["measures"] = list(json.loads(rec.pop("measures_json")))
        return rec

    def sweep_points(self, sweep_id: int) -> list[dict[str, Any]]:
        """A stored sweep's points in their order: ``seq``, ``values`` (``((path, value),
        ...)``), ``seed``, ``measures`` and ``run_id`` (their summaries: ``sweep_summary``)."""
        cur = self.db.execute(
            "SELECT seq, values_json, seed, measures_json, run_id FROM sweep_points "
            "WHERE sweep_id = ? ORDER BY seq", (sweep_id,))
        return [{"seq": seq, "values": tuple((p, v) for p, v in json.loads(values)),
                 "seed": seed, "measures": json.loads(measures), "run_id": run_id}
                for seq, values, seed, measures, run_id in cur.fetchall()]

    def sweep_summary(self, sweep_id: int, seq: int) -> dict[str, Any] | None:
        """The run summary of one point of a stored sweep (None when it was not kept)."""
        row = self.db.execute("SELECT summary_z FROM sweep_points WHERE sweep_id = ? AND "
                              "seq = ?", (sweep_id, seq)).fetchone()
        if row is None or row[0] is None:
            return None
        out = json.loads(zlib.decompress(row[0]).decode())
        assert isinstance(out, dict)
        return out

    def runs(self) -> list[dict[str, Any]]:
        """All stored runs, newest first (without their data)."""
        cur = self.db.execute(
            "SELECT id, scenario_name, scenario_path, seed, program_version, started_at, "
            "finished_at, sim_end_s FROM runs ORDER BY id DESC")
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row)) for row in cur.fetchall()]

    def run(self, run_id: int) -> dict[str, Any] | None:
        """One stored run with its summary, or None."""
        cur = self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,))
        row = cur.fetchone()
        if row is None:
            return None
        rec = dict(zip([d[0] for d in cur.description], row))
        rec["summary"] = json.loads(rec.pop("summary_json"))
        return rec

    def member_series(self, run_id: int) -> list[dict[str, Any]]:
        """Stored member samples of a run, in time order."""
        return self._rows("member_samples", MEMBER_COLUMNS, run_id, "member, t_s")

    def guest_series(self, run_id: int) -> list[dict[str, Any]]:
        """Stored guest samples of a run, in time order."""
        return self._rows("guest_samples", GUEST_COLUMNS, run_id, "userid, t_s")

    def events(self, run_id: int) -> list[dict[str, Any]]:
        """Stored events of a run, in order."""
        cols = ("seq", "t_s", "kind", "member", "userid", "message", "data_json")
        return self._rows("events", cols, run_id, "seq")

    def _rows(self, table: str, cols: Iterable[str], run_id: int,
              order: str) -> list[dict[str, Any]]:
        cols = tuple(cols)
        cur = self.db.execute(f"SELECT {', '.join(cols)} FROM {table} WHERE run_id = ? "
                              f"ORDER BY {order}", (run_id,))
        return [dict(zip(cols, r)) for r in cur.fetchall()]
