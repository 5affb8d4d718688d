"""Saved and recorded sessions read back with the same names and commands, whatever they hold.

Reproducer D09: the app's File > Save session (``session_text``) and Record session
(``record_session``) wrote strings with ``json.dumps``, which turns an emoji into the surrogate
pair ``\\ud83d\\ude00``; TOML refuses those, so a session with ``Q N 😀`` or a student named
"Zoë 🎓" could not be loaded again, and the student's work was lost.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ssisim.cli import resolve_lesson
from ssisim.engine import (
    ScenarioConfig,
    Simulation,
    load_scenario,
    load_session,
    record_session,
    session_text,
)
from ssisim.engine.scenarios.session import toml_string

_LESSON: list[ScenarioConfig] = []


def lesson() -> ScenarioConfig:
    """The first lesson, loaded once."""
    if not _LESSON:
        _LESSON.append(load_scenario(resolve_lesson("first-relocation")))
    return _LESSON[0]


def typed(command: str, at_s: float = 3.0) -> Simulation:
    """The first lesson after a person typed ``command`` at ``at_s`` (a real CP command)."""
    sim = Simulation(lesson())
    sim.run_until(at_s)
    sim.execute(command)
    return sim


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the files of this module's tests (each example rewrites its file)."""
    return tmp_path_factory.mktemp("sessions")


def write(folder: Path, text: str, name: str) -> Path:
    """``text`` as the UTF-8 file ``folder/name`` (as the app saves it)."""
    p = folder / name
    p.write_text(text, encoding="utf-8")
    return p


HOSTILE = ["Zoë 🎓", "😀", '"', "\\", "\\u0041", 'a"b\\c', "\x00\x1b[2J\x07", "\x7f\x85\u2028",
           "\t\n\r\x0c\x08", "'''", '"""', "# not a comment", "ß\u202eevil", "\U0010ffff", ""]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(student=st.text(), words=st.text())
@example(student="Zoë 🎓", words="😀")
@example(student="\\ud83d\\ude00", words='"; format = "x')
def test_a_saved_session_reads_back_with_the_same_student_and_commands(
        folder: Path, student: str, words: str) -> None:
    command = f"Q N {words}"
    sim = typed(command)
    path = write(folder, session_text(sim, student), "s.session.toml")
    back = load_session(path)
    assert back.student == student
    assert [c.command for c in back.commands] == [command]
    assert [c.at_s for c in back.commands] == [3.0]
    assert back.lesson == "first-relocation"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.text())
@example(words="😀 Zoë 🎓")
@example(words='"\n[[timeline]]\nat_s = 0\ncommand = "LOGOFF LNX01')
def test_a_recorded_session_is_a_scenario_that_keeps_what_was_typed(folder: Path,
                                                                    words: str) -> None:
    """Whatever was typed, the recording loads, as the session it is and as its scenario; a
    command CP could not read is kept in the session and noted in the scenario."""
    command = f"Q N {words}"
    sim = typed(command)
    text = record_session(sim)
    path = write(folder, text, "recorded.toml")
    back = load_session(path)
    assert [(c.at_s, c.command) for c in back.commands] == [(3.0, command)]
    assert back.scenario_text == lesson().source_text
    sc = load_scenario(path)
    entries = [(t.at_s, t.command) for t in sc.timeline]
    for t in lesson().timeline:  # the lesson's own timeline; the rest was typed
        entries.remove((t.at_s, t.command))
    if entries:  # CP could read it: replayed at the time it was typed
        assert entries == [(3.0, command)]
    else:  # not a command at all: noted, as a TOML string that reads back the same
        quoted = toml_string(command)
        assert any(ln.startswith("# ") and ln.endswith(quoted)
                   for ln in sc.source_text.splitlines())
        assert tomllib.loads(f"v = {quoted}")["v"] == command


#: Every character ``str.split`` splits on: commands are words with any of these between them.
SPACES = "".join(c for c in map(chr, range(0x110000)) if c.isspace())
VALID = ["QUERY NAMES", "q alloc page", "vmrelocate test user lnx01 to memb2",
         "VMRELOCATE MOVE USER LNX01 TO MEMB2"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), words=st.sampled_from(VALID))
@example(data=None, words="Q\x85N")
def test_a_recorded_command_is_replayed_with_exactly_the_text_typed(
        folder: Path, data: st.DataObject | None, words: str) -> None:
    if data is None:
        command = words
    else:
        gaps = st.text(alphabet=SPACES, min_size=1, max_size=3)
        parts = words.split()
        command = data.draw(st.text(alphabet=SPACES, max_size=2)) + parts[0]
        for w in parts[1:]:
            command += data.draw(gaps) + w
        command += data.draw(st.text(alphabet=SPACES, max_size=2))
    sc = load_scenario(write(folder, record_session(typed(command)), "recorded.toml"))
    entries = [(t.at_s, t.command) for t in sc.timeline]
    for t in lesson().timeline:
        entries.remove((t.at_s, t.command))
    assert entries == [(3.0, command)]


@pytest.mark.parametrize("text", HOSTILE)
def test_toml_string_is_a_toml_basic_string_of_the_same_text(text: str) -> None:
    assert tomllib.loads(f"v = {toml_string(text)}")["v"] == text


def test_emoji_and_accents_stay_readable_in_the_file() -> None:
    """A teacher who opens the file sees the name, not escapes (the file is UTF-8)."""
    text = session_text(typed("Q N 😀"), "Zoë 🎓")
    assert 'student = "Zoë 🎓"' in text
    assert 'command = "Q N 😀"' in text
    assert "\\ud83d" not in text


def test_a_lone_surrogate_cannot_be_kept_and_does_not_spoil_the_file(folder: Path) -> None:
    """Half a surrogate pair is no character: it becomes U+FFFD, the rest is saved."""
    path = write(folder, session_text(typed("Q N x"), "Zoë \ud83d"), "lone.session.toml")
    assert load_session(path).student == "Zoë \ufffd"
