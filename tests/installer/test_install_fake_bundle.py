"""install.sh and uninstall.sh on a small stand-in archive shaped like the real bundle: what a
user finds in their home afterwards. The real bundle is installed by `make bundle-check`."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from installer_paths import ASSETS, INSTALLER

NAME = "ssisim-9.8.7-linux-x86_64"
# Stands in for the frozen program: says how it was called.
FAKE_PROGRAM = '#!/bin/sh\necho "fake ssisim: $*"\n'


def run(home: Path, *args: str | Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run a command as a user with only HOME, PATH and LANG (and ``env``) set."""
    full_env = {"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
                **env}
    return subprocess.run([str(a) for a in args], env=full_env, capture_output=True, text=True,
                          check=False, timeout=60)


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """``ssisim-9.8.7-linux-x86_64.tar.gz`` laid out as `make bundle` lays out the real one."""
    stage = tmp_path / "stage" / NAME
    program = stage / "ssisim" / "ssisim"
    (stage / "ssisim" / "_internal").mkdir(parents=True)
    program.write_text(FAKE_PROGRAM)
    program.chmod(0o755)
    for script in ("install.sh", "uninstall.sh"):
        shutil.copy2(INSTALLER / script, stage / script)
    shutil.copy(INSTALLER / "ssisim.desktop", stage / "ssisim.desktop")
    (stage / "icons").mkdir()
    shutil.copy(ASSETS / "ssisim.svg", stage / "icons" / "ssisim.svg")
    for size in (48, 128, 256):
        shutil.copy(ASSETS / f"ssisim-{size}.png", stage / "icons" / f"ssisim-{size}.png")
    (stage / "VERSION").write_text("9.8.7\n")
    path = tmp_path / f"{NAME}.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        tar.add(stage, arcname=NAME)
    return path


def unpack(archive: Path, folder: Path) -> Path:
    """``archive`` unpacked into ``folder`` by tar, as a user would."""
    folder.mkdir()
    subprocess.run(["tar", "-xzf", str(archive), "-C", str(folder)], check=True)
    return folder


def installed_files(home: Path) -> list[Path]:
    share = home / ".local" / "share"
    icons = share / "icons" / "hicolor"
    return [share / "applications" / "ssisim.desktop", icons / "scalable/apps/ssisim.svg",
            icons / "48x48/apps/ssisim.png", icons / "128x128/apps/ssisim.png",
            icons / "256x256/apps/ssisim.png", home / ".local/bin/ssisim",
            home / ".local/lib/ssisim/ssisim", home / ".local/lib/ssisim/uninstall.sh"]


def test_install_puts_menu_entry_icons_and_launcher_in_place(home: Path, archive: Path) -> None:
    r = run(home, INSTALLER / "install.sh", archive)
    assert r.returncode == 0, r.stderr
    missing = [str(f) for f in installed_files(home) if not f.exists()]
    assert not missing, missing
    assert "Installing ssisim 9.8.7" in r.stdout
    assert (home / ".local/lib/ssisim/VERSION").read_text() == "9.8.7\n"
    for size in (48, 128, 256):
        assert ((home / f".local/share/icons/hicolor/{size}x{size}/apps/ssisim.png").read_bytes()
                == (ASSETS / f"ssisim-{size}.png").read_bytes())

    # the launcher runs the installed program, with the arguments it was given
    launcher = home / ".local/bin/ssisim"
    ran = run(home, launcher, "run", "demo", "--json", "-")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "fake ssisim: run demo --json -\n"

    # the menu entry names the launcher by its full path, for a session without ~/.local/bin
    entry = (home / ".local/share/applications/ssisim.desktop").read_text().splitlines()
    assert f'Exec="{launcher}" gui %f' in entry
    assert f"TryExec={launcher}" in entry
    assert "Icon=ssisim" in entry
    if shutil.which("desktop-file-validate"):
        v = subprocess.run(["desktop-file-validate",
                            str(home / ".local/share/applications/ssisim.desktop")],
                           capture_output=True, text=True, check=False)
        assert v.returncode == 0 and not v.stdout.strip(), v.stdout + v.stderr
    # ~/.local/bin is not on this user's PATH: install.sh says how to add it
    assert 'export PATH="$HOME/.local/bin:$PATH"' in r.stdout


def test_install_honours_xdg_data_home(home: Path, archive: Path, tmp_path: Path) -> None:
    data = tmp_path / "xdg-data"
    r = run(home, INSTALLER / "install.sh", archive, XDG_DATA_HOME=str(data))
    assert r.returncode == 0, r.stderr
    assert (data / "applications/ssisim.desktop").is_file()
    assert (data / "icons/hicolor/scalable/apps/ssisim.svg").is_file()
    assert not (home / ".local/share/applications").exists()
    u = run(home, home / ".local/lib/ssisim/uninstall.sh", XDG_DATA_HOME=str(data))
    assert u.returncode == 0, u.stderr
    assert not (data / "applications/ssisim.desktop").exists()


def test_install_from_the_unpacked_folder_and_again(home: Path, archive: Path,
                                                    tmp_path: Path) -> None:
    unpacked = unpack(archive, tmp_path / "unpacked")
    first = run(home, unpacked / NAME / "install.sh")
    assert first.returncode == 0, first.stderr
    (home / ".local/lib/ssisim/leftover-from-old-version").write_text("x")
    again = run(home, unpacked / NAME / "install.sh")
    assert again.returncode == 0, again.stderr
    # an update replaces the program folder whole
    assert not (home / ".local/lib/ssisim/leftover-from-old-version").exists()
    assert all(f.exists() for f in installed_files(home))


def test_uninstall_removes_what_install_put_in_place(home: Path, archive: Path) -> None:
    assert run(home, INSTALLER / "install.sh", archive).returncode == 0
    runs = home / ".local/share/ssisim/runs.sqlite"
    runs.parent.mkdir(parents=True)
    runs.write_text("x")
    r = run(home, home / ".local/lib/ssisim/uninstall.sh")
    assert r.returncode == 0, r.stderr
    left = [str(f) for f in installed_files(home) if f.exists()]
    assert not left, left
    assert not (home / ".local/lib/ssisim").exists()
    assert "ssisim is uninstalled." in r.stdout
    # runs are the user's: kept unless --purge
    assert runs.exists()
    assert f"kept {runs.parent}" in r.stdout


def test_install_keeps_a_foreign_launcher_unless_forced(home: Path, archive: Path) -> None:
    launcher = home / ".local/bin/ssisim"
    launcher.parent.mkdir(parents=True)
    launcher.write_text("#!/bin/sh\necho pip-installed\n")
    r = run(home, INSTALLER / "install.sh", archive)
    assert r.returncode == 1
    assert f"{launcher} exists and is not from this installer" in r.stderr
    assert launcher.read_text() == "#!/bin/sh\necho pip-installed\n"
    forced = run(home, INSTALLER / "install.sh", "--force", archive)
    assert forced.returncode == 0, forced.stderr
    assert "fake ssisim" in run(home, launcher, "--version").stdout


def test_install_refuses_a_bundle_for_a_newer_glibc(home: Path, tmp_path: Path,
                                                    archive: Path) -> None:
    unpacked = unpack(archive, tmp_path / "newer")
    (unpacked / NAME / "glibc-min.txt").write_text("99.0\n")
    r = run(home, INSTALLER / "install.sh", unpacked / NAME)
    assert r.returncode == 1
    assert "this bundle needs glibc 99.0 or newer" in r.stderr
    assert not (home / ".local").exists()
