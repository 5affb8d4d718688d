"""The engine and the CLI never import Qt, pyqtgraph or the app (the GUI is only a view)."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
import ssisim.engine, ssisim.cli
from ssisim.cli import main
rc = main(["check", "demo"])
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph")
             or m.startswith("ssisim.app"))
print(rc, bad)
"""


def test_engine_and_cli_import_no_qt():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "0 []"


def test_engine_sources_do_not_name_qt():
    from pathlib import Path

    import ssisim.engine as engine

    root = Path(engine.__file__).parent
    for f in root.glob("*.py"):
        text = f.read_text()
        for name in ("PySide6", "pyqtgraph", "ssisim.app", "from ..app"):
            assert f"import {name}" not in text and f"from {name}" not in text, f"{f.name}: {name}"
