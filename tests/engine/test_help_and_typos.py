"""HELP lists the commands and gives each one's syntax; a mistyped QUERY word is not taken for a
user ID without saying what was probably meant."""

from __future__ import annotations

import pytest
from conftest import guest, member, world

from ssisim.engine import VERBS


@pytest.fixture
def sim():
    return world([member("MEMB1"), member("MEMB2")], [guest("LNX01")])


def test_help_lists_every_command_with_its_abbreviation(sim):
    r = sim.execute("HELP")
    assert r.rc == 0
    listed = [line.split()[0] for line in r.lines[1:]]
    assert [w.upper() for w in listed] == [v for v, _ in VERBS]
    assert "VMRELocate" in listed and "Query" in listed


@pytest.mark.parametrize("asked, words", [
    ("VMREL", "MAXQuiesce secs|NOLIMIT"),
    ("q", "Query ALLOC PAGE"),
    ("LPM", "THREADS n|AUTO"),
    ("HELP", "HELP [command]"),
])
def test_help_gives_one_commands_syntax(sim, asked, words):
    r = sim.execute(f"HELP {asked}")
    assert r.rc == 0 and any(words in line for line in r.lines)


def test_help_for_an_unknown_command_says_so(sim):
    r = sim.execute("HELP FROB")
    assert r.rc != 0 and "No help for FROB" in r.lines[0]


def test_a_mistyped_query_word_suggests_the_query(sim):
    r = sim.execute("QUERY NAMSE")
    assert r.rc != 0
    assert "did you mean QUERY NAMES?" in r.lines[0]


def test_a_user_id_longer_than_eight_characters_is_an_invalid_option(sim):
    r = sim.execute("QUERY LNX01LNX01")
    assert r.rc != 0 and "Invalid option - LNX01LNX01" in r.lines[0]


def test_a_real_user_id_close_to_a_query_word_is_still_queried(sim):
    assert sim.execute("QUERY LNX01").rc == 0
