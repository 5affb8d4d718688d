"""The window and the command line use only the engine's public API, and the window never the
command line: the rules of docs/architecture.md, checked on the source."""

from __future__ import annotations

import ast
from pathlib import Path

import ssisim.engine as engine

ROOT = Path(__file__).parent.parent.parent


def imports(folder: str) -> list[tuple[str, str, list[str]]]:
    """(file, module, names) of every import in a folder's Python files."""
    out = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                out.append((str(path.relative_to(ROOT / folder)), node.module,
                            [a.name for a in node.names]))
            elif isinstance(node, ast.Import):
                out += [(str(path.relative_to(ROOT / folder)), a.name, []) for a in node.names]
    return out


def test_the_app_and_the_cli_import_only_public_engine_names():
    bad = []
    for folder in ("app", "ssisim"):
        for file, module, names in imports(folder):
            if module.startswith("ssisim.engine.") or module.startswith("engine"):
                bad.append(f"{folder}/{file}: {module}")
            if module == "ssisim.engine":
                bad += [f"{folder}/{file}: {n}" for n in names
                        if n not in engine.__all__ and n != "*"]
    assert not bad, bad


def test_the_window_never_imports_the_command_line():
    bad = [f"app/{f}: {m}" for f, m, _ in imports("app") if m.startswith("ssisim.cli")]
    assert not bad, bad


def test_every_public_name_is_documented():
    undocumented = [n for n in engine.__all__ if callable(getattr(engine, n))
                    and not (getattr(engine, n).__doc__ or "").strip()]
    assert not undocumented, undocumented
