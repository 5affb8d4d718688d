"""Entry point of the desktop bundle: the same ``ssisim`` command line as a pip install.

Before anything imports numba, the compiled-kernel cache is pointed at a folder of the user's
cache dir named after the engine's sources. In a frozen program numba stamps its cache with the
executable, not with the kernel's source file; the engine's sources sit beside the executable,
not in it, so without that name a kernel changed by a new bundle could be served from an old
cache.
"""

import hashlib
import os
import sys
from pathlib import Path


def numba_cache_dir(bundle_root: Path) -> str:
    """``<user cache dir>/numba/<digest of the engine's sources>`` for the bundle's modules.

    Parameters
    ----------
    bundle_root : Path
        The folder the bundle's modules are in (``sys._MEIPASS``), holding ``ssisim/engine``.
    """
    import platformdirs

    digest = hashlib.sha256()
    engine = bundle_root / "ssisim" / "engine"
    for source in sorted(engine.rglob("*.py")):  # the kernels live in engine/kernels/
        digest.update(source.relative_to(engine).as_posix().encode())
        digest.update(source.read_bytes())
    return os.path.join(platformdirs.user_cache_dir("ssisim", appauthor=False), "numba",
                        digest.hexdigest()[:16])


# Libraries Qt's GUI module links to that belong to the graphics driver: never in the bundle.
SYSTEM_GL = ("libGL.so.1", "libEGL.so.1")
FONTS_CONF = "/etc/fonts/fonts.conf"


def window_problems(libraries: tuple[str, ...] = SYSTEM_GL,
                    fonts_conf: str = FONTS_CONF) -> tuple[list[str], bool]:
    """What the window needs of the system that this machine lacks.

    Parameters
    ----------
    libraries : tuple of str
        Shared libraries to load (by soname, as the dynamic loader finds them).
    fonts_conf : str
        fontconfig's configuration; without it (and without ``FONTCONFIG_FILE`` or
        ``FONTCONFIG_PATH``) Qt finds no fonts and draws every letter as a box.

    Returns
    -------
    missing : list of str
        The libraries that do not load.
    no_fonts : bool
        True when there is no fontconfig configuration.
    """
    import ctypes

    missing = []
    for name in libraries:
        try:
            ctypes.CDLL(name)
        except OSError:
            missing.append(name)
    no_fonts = not (os.path.exists(fonts_conf) or os.environ.get("FONTCONFIG_FILE")
                    or os.environ.get("FONTCONFIG_PATH"))
    return missing, no_fonts


def check_window(argv: list[str], **probe: object) -> str | None:
    """For ``ssisim gui``: the one-line error if the window cannot open, else None.

    A missing library is an error (Qt would fail to load with a traceback); missing fonts only a
    warning, printed here, since a machine may keep its fonts elsewhere.
    """
    if argv[:1] != ["gui"] or "-h" in argv or "--help" in argv:
        return None
    missing, no_fonts = window_problems(**probe)  # type: ignore[arg-type]
    apt = "sudo apt-get install -y libgl1 libegl1 libfontconfig1"
    if no_fonts:
        print(f"ssisim: warning: no fontconfig configuration ({FONTS_CONF}): the window's text "
              f"will show as boxes; on Debian or Ubuntu: {apt}", file=sys.stderr)
    if missing:
        return (f"ssisim gui: the window needs the system's OpenGL libraries, and this machine "
                f"lacks {', '.join(missing)}; on Debian or Ubuntu: {apt}")
    return None


def main() -> int:
    """Run ``ssisim`` with the arguments of this process, as the bundle's executable."""
    if getattr(sys, "frozen", False):
        meipass = Path(sys._MEIPASS)  # type: ignore[attr-defined]
        os.environ.setdefault("NUMBA_CACHE_DIR", numba_cache_dir(meipass))
        error = check_window(sys.argv[1:])
        if error:
            print(error, file=sys.stderr)
            return 1
    from ssisim.cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    sys.exit(main())
