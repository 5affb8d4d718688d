"""How many cases the fuzz tests try: a few in ``make test``, thousands in the long profile.

``pytest --hypothesis-profile=long tests/scenarios/test_fuzz_scenarios.py
tests/engine/test_fuzz_commands.py`` runs the deep search (docs/reliability.md); the profile is
registered in tests/conftest.py.
"""

from __future__ import annotations

from hypothesis import settings

LONG = "long"


def examples(quick: int) -> int:
    """``quick`` cases normally; the profile's own count when a long profile is loaded."""
    return settings.default.max_examples if is_long() else quick


def is_long() -> bool:
    """True when a long profile (more than 100 cases) is loaded."""
    return settings.default.max_examples > 100
