"""install.sh and uninstall.sh as a user meets them: syntax, answers to mistakes, leaving alone
what is not theirs. Installing a real bundle is checked by `make bundle-check`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from installer_paths import INSTALLER

SCRIPTS = ["install.sh", "uninstall.sh", "build-bundle.sh", "check-bundle.sh"]


def run(home: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run a command as a user with only HOME, PATH and LANG set."""
    env = {"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    return subprocess.run([str(a) for a in args], env=env, capture_output=True, text=True,
                          check=False,
                          timeout=60)


@pytest.mark.parametrize("script", SCRIPTS)
def test_scripts_parse(script: str) -> None:
    path = INSTALLER / script
    first = path.read_text().splitlines()[0]
    shells = ["bash"] if "bash" in first else ["sh", "bash"]
    # dash is Debian's /bin/sh: the POSIX scripts must parse with it too
    if "bash" not in first and shutil.which("dash"):
        shells.append("dash")
    for shell in shells:
        r = subprocess.run([shell, "-n", str(path)], capture_output=True, text=True, check=False)
        assert r.returncode == 0, f"{shell} -n {script}: {r.stderr}"
    assert "set -eu" in path.read_text()


@pytest.mark.parametrize("script", ["install.sh", "uninstall.sh"])
def test_scripts_are_executable(script: str) -> None:
    assert (INSTALLER / script).stat().st_mode & 0o111, f"chmod +x installer/{script}"


def test_install_names_a_missing_archive(home: Path, tmp_path: Path) -> None:
    r = run(home, INSTALLER / "install.sh", tmp_path / "ssisim-0.1.0-linux-x86_64.tar.gz")
    assert r.returncode == 1
    assert "ssisim-0.1.0-linux-x86_64.tar.gz: no such file or folder" in r.stderr
    assert not (home / ".local").exists()


def test_install_rejects_a_folder_without_a_bundle(home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "downloads"
    folder.mkdir()
    r = run(home, INSTALLER / "install.sh", folder)
    assert r.returncode == 1
    assert "is not an ssisim bundle folder" in r.stderr
    assert not (home / ".local").exists()


def test_install_rejects_a_file_that_is_not_an_archive(home: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not an archive\n")
    r = run(home, INSTALLER / "install.sh", notes)
    assert r.returncode == 1
    assert "not a .tar.gz archive" in r.stderr


def test_install_says_when_an_archive_is_damaged(home: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "ssisim-0.1.0-linux-x86_64.tar.gz"
    damaged.write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 64)
    r = run(home, INSTALLER / "install.sh", damaged)
    assert r.returncode == 1
    assert "cannot unpack the archive" in r.stderr


def test_install_rejects_an_archive_without_a_bundle(home: Path, tmp_path: Path) -> None:
    content = tmp_path / "content" / "something-else"
    content.mkdir(parents=True)
    (content / "README").write_text("hello\n")
    archive = tmp_path / "other.tar.gz"
    subprocess.run(["tar", "-czf", str(archive), "-C", str(tmp_path / "content"),
                    "something-else"], check=True)
    r = run(home, INSTALLER / "install.sh", archive)
    assert r.returncode == 1
    assert "the archive holds no ssisim bundle" in r.stderr


def test_install_rejects_unknown_options(home: Path) -> None:
    r = run(home, INSTALLER / "install.sh", "--prefix=/opt")
    assert r.returncode == 1
    assert "unknown option: --prefix=/opt" in r.stderr
    assert "usage: install.sh" in r.stdout + r.stderr


def test_uninstall_with_nothing_installed(home: Path) -> None:
    r = run(home, INSTALLER / "uninstall.sh")
    assert r.returncode == 0, r.stderr
    assert "nothing to remove" in r.stdout


def test_uninstall_keeps_what_install_did_not_write(home: Path) -> None:
    """A launcher from `pip install --user` and a folder that is no bundle stay where they are."""
    launcher = home / ".local" / "bin" / "ssisim"
    launcher.parent.mkdir(parents=True)
    launcher.write_text("#!/usr/bin/python3\nfrom ssisim.cli import main\nmain()\n")
    lib = home / ".local" / "lib" / "ssisim"
    lib.mkdir(parents=True)
    (lib / "notes.txt").write_text("mine\n")
    r = run(home, INSTALLER / "uninstall.sh", "--purge")
    assert r.returncode == 0, r.stderr
    assert launcher.exists() and (lib / "notes.txt").exists()
    assert f"kept {launcher}: not written by install.sh" in r.stdout


def test_uninstall_purge_deletes_runs_settings_and_cache(home: Path) -> None:
    made = [home / ".local/share/ssisim/runs.sqlite", home / ".cache/ssisim/numba/x.nbi",
            home / ".config/ssisim/ssisim.conf"]
    for f in made:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("x")
    kept = run(home, INSTALLER / "uninstall.sh")
    assert kept.returncode == 0 and all(f.exists() for f in made)
    assert "--purge deletes them" in kept.stdout
    purged = run(home, INSTALLER / "uninstall.sh", "--purge")
    assert purged.returncode == 0, purged.stderr
    assert not any(f.exists() for f in made)
