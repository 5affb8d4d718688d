#!/usr/bin/env bash
# Build the desktop bundle: dist/ssisim-VERSION-linux-x86_64.tar.gz (run by `make bundle`).
#
# A venv of its own (build/bundle/venv) gets ssisim pip-installed from a fresh copy of the
# sources, with the gui and bundle extras; PyInstaller turns it into a onedir program; the
# program, install.sh, uninstall.sh, the menu entry and the icons are packed into the archive.
#
# Environment: PYTHON (python3.11 by default).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
work=build/bundle
venv=$work/venv
python=${PYTHON:-$(command -v python3.11 || command -v python3)}
started=$(date +%s)

die() {
    echo "build-bundle: $*" >&2
    exit 1
}

[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || die "builds on Linux x86_64 only"

# PyInstaller reads binaries' dependencies with ldd and objdump (binutils).
if ! command -v objdump >/dev/null || ! command -v ldd >/dev/null; then
    { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; } \
        || die "PyInstaller needs objdump and ldd: sudo apt-get install -y binutils libc-bin"
    echo "installing binutils (objdump, for PyInstaller)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq binutils >/dev/null
fi

# PyInstaller bundles the shared libpython; Debian's python3.11 is linked statically and has it
# in a package of its own (libpython3.11).
libpython=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("INSTSONAME") or "")')
libdir=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("LIBDIR") or "")')
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
if [ -n "$libpython" ] && [ ! -e "$libdir/$libpython" ] \
    && ! "$ldconfig" -p 2>/dev/null | grep -qF "$libpython"; then
    pkg=$(echo "$libpython" | sed 's/\.so.*//')  # libpython3.11
    { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; } \
        || die "PyInstaller needs $libpython: sudo apt-get install -y $pkg"
    echo "installing $pkg (the shared Python library, for PyInstaller)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null
fi

# A fresh copy of the sources (the folders pyproject maps to packages): setuptools reuses its
# build/ folder, which would keep files deleted since.
mapfile -t package_dirs < <("$python" -c 'import tomllib
cfg = tomllib.load(open("pyproject.toml", "rb"))["tool"]["setuptools"]
print("\n".join(sorted(set(cfg["package-dir"].values()))))')
[ "${#package_dirs[@]}" -gt 0 ] || die "cannot read the package folders from pyproject.toml"
rm -rf "$work/src"
mkdir -p "$work/src" dist
tar --exclude=__pycache__ -cf - pyproject.toml README.md "${package_dirs[@]}" \
    | tar -xf - -C "$work/src"

# The venv is made again when pyproject.toml changes: a dependency dropped there must not
# linger in the venv and end up in the bundle.
stamp=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$venv/.pyproject-sha256" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$venv"
fi
if [ ! -x "$venv/bin/python" ]; then
    echo "== creating $venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
    printf '%s\n' "$stamp" >"$venv/.pyproject-sha256"
fi
echo "== installing ssisim with the gui and bundle extras into $venv"
"$venv/bin/python" -m pip install -q "$work/src[gui,bundle]"
version=$("$venv/bin/python" -c 'from importlib.metadata import version; print(version("ssisim"))')
name=ssisim-$version-linux-x86_64

echo "== PyInstaller"
t0=$(date +%s)
rm -rf "$work/dist" "$work/work"
"$venv/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath "$work/dist" --workpath "$work/work" installer/ssisim.spec
t_pyinstaller=$(($(date +%s) - t0))
# Symbols nothing reads at run time: 36 MB in libpython's debug info and llvmlite's symbol table.
# (PyInstaller's strip=True strips every binary, which breaks numpy's OpenBLAS.)
strip --strip-debug "$work/dist/ssisim/_internal"/libpython3*.so.*
strip --strip-unneeded "$work/dist/ssisim/_internal/llvmlite/binding/libllvmlite.so"

echo "== staging $name"
stage=$work/stage/$name
rm -rf "$work/stage"
mkdir -p "$stage/icons"
cp -pR "$work/dist/ssisim" "$stage/ssisim"
cp installer/install.sh installer/uninstall.sh "$stage/"
chmod 755 "$stage/install.sh" "$stage/uninstall.sh"
cp installer/ssisim.desktop "$stage/"
cp assets/ssisim.svg assets/ssisim-48.png assets/ssisim-128.png assets/ssisim-256.png \
    "$stage/icons/"
cp docs/install.md "$stage/INSTALL.md"
printf '%s\n' "$version" >"$stage/VERSION"
# The Debian packages the window needs beyond the bundle, for install.sh's hint: the driver's
# OpenGL (which pulls in libxcb1) and fontconfig's configuration with a font. On a minimal
# Debian 12 these three are enough for the window, offscreen and on X11 (docs/install.md).
echo "libgl1 libegl1 libfontconfig1" >"$stage/system-libraries.txt"
# The newest glibc symbol version any bundled binary asks for: the oldest C library it runs on.
find "$stage/ssisim" -type f \( -name '*.so*' -o -name ssisim \) -exec objdump -T {} + 2>/dev/null \
    | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n -u \
    | tail -n 1 >"$stage/glibc-min.txt"

echo "== packing dist/$name.tar.gz"
t0=$(date +%s)
rm -f "dist/$name.tar.gz"
tar -C "$work/stage" --owner=0 --group=0 --numeric-owner --sort=name -cf - "$name" \
    | gzip -6 >"dist/$name.tar.gz.part"
mv "dist/$name.tar.gz.part" "dist/$name.tar.gz"
t_pack=$(($(date +%s) - t0))

unpacked_mb=$(du -sm "$stage" | cut -f1)
archive_mb=$(($(stat -c %s "dist/$name.tar.gz") / 1048576))
echo "Built $root/dist/$name.tar.gz: $archive_mb MiB packed, $unpacked_mb MiB unpacked," \
    "needs glibc $(cat "$stage/glibc-min.txt") or newer;" \
    "$(($(date +%s) - started)) s in all (PyInstaller $t_pyinstaller s, packing $t_pack s)"
