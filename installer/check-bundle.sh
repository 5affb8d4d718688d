#!/usr/bin/env bash
# Check a built desktop bundle (run by `make bundle-check` after `make bundle`):
#  - unpacked in a clean folder, it replays the demo and the validation with the same JSON as
#    the source install, and stores its run in the user data dir;
#  - its second start is faster than its first (numba's cache in the user cache dir);
#  - it draws the window offscreen to a real screenshot;
#  - install.sh (from the source tree and from the unpacked archive) gives a valid menu entry,
#    icons and a working launcher in a temporary HOME, and uninstall.sh removes them;
#  - the menu entry's command opens a real X11 window (under Xvfb).
# Bundle commands run with an empty environment but HOME, PATH and LANG, as a user's would.
#
# usage: installer/check-bundle.sh dist/ssisim-VERSION-linux-x86_64.tar.gz [SOURCE_VENV]
set -euo pipefail

cd "$(dirname "$0")/.."
archive=${1:?usage: $0 ARCHIVE.tar.gz [SOURCE_VENV]}
src_venv=${2:-.venv}
check=build/bundle/check
report=build/bundle/check-report.txt
failures=0
started=$(date +%s)

say() { printf '== %s\n' "$*"; }
die() {
    echo "check-bundle: $*" >&2
    exit 1
}
fail() {
    printf 'FAIL: %s\n' "$*" >&2
    failures=$((failures + 1))
}
# try WHAT CMD...: run CMD, and count a failure named WHAT if it fails
try() {
    local what=$1
    shift
    "$@" || fail "$what"
}
need_file() { [ -e "$1" ] || fail "missing: $1"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# as_user HOME CMD...: CMD with nothing of this shell's environment but a locale
as_user() {
    local home=$1
    shift
    env -i HOME="$home" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TMPDIR="$abs/tmp" "$@"
}
# Keys the JSON comparison leaves out. The summaries of `run --json` and `validate --json` hold
# only simulated quantities, the seed, the scenario's name and hash and the version: no run id,
# timestamp, wall-clock time or path. So the list is empty and the comparison exact; a key
# that legitimately differs between installs would be named here (--ignore KEY).
ignore_keys=()
same_json() {
    try "$3" "$src_venv/bin/python" installer/bundle_checks.py compare-json "$1" "$2" \
        ${ignore_keys[@]+"${ignore_keys[@]/#/--ignore=}"}
}

[ -f "$archive" ] || die "$archive: no such archive; run 'make bundle' first"
[ -x "$src_venv/bin/ssisim" ] || die "$src_venv/bin/ssisim missing; run 'make setup' first"
if ! command -v desktop-file-validate >/dev/null; then
    { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; } \
        || die "needs desktop-file-validate: sudo apt-get install -y desktop-file-utils"
    echo "installing desktop-file-utils (desktop-file-validate)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq desktop-file-utils >/dev/null
fi
# Xvfb, for the menu entry's command in a real X11 window; the check says so if it cannot have it.
if ! command -v xvfb-run >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing xvfb and xauth (a virtual X11 display)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq xvfb xauth >/dev/null
fi

rm -rf "$check"
mkdir -p "$check/unpacked" "$check/tmp"
abs=$(cd "$check" && pwd)

say "unpacking $archive into a clean folder"
tar -xzf "$archive" -C "$check/unpacked"
bundle=$(echo "$abs"/unpacked/ssisim-*-linux-x86_64)
[ -d "$bundle" ] || die "$archive holds no ssisim-VERSION-linux-x86_64 folder"
exe=$bundle/ssisim/ssisim
for f in ssisim/ssisim install.sh uninstall.sh ssisim.desktop icons/ssisim.svg \
    icons/ssisim-48.png icons/ssisim-128.png icons/ssisim-256.png INSTALL.md VERSION \
    system-libraries.txt glibc-min.txt; do
    need_file "$bundle/$f"
done
try "desktop-file-validate $bundle/ssisim.desktop" desktop-file-validate "$bundle/ssisim.desktop"
dangling=$(find "$bundle" -xtype l)
[ -z "$dangling" ] || fail "dangling symlinks in the bundle: $dangling"

say "the demo, headless, from the bundle (first start compiles the kernels) and from the source"
home=$abs/home-run
mkdir -p "$home"
# cache_files: the numba cache files in the user cache dir of $home
cache_files() { find "$home/.cache/ssisim/numba" -type f \( -name '*.nbi' -o -name '*.nbc' \) \
    2>/dev/null | wc -l; }
t=$(now)
try "bundle: ssisim run demo" as_user "$home" "$exe" run demo --json "$abs/bundle-demo.json" -q
first_s=$(since "$t")
cached_first=$(cache_files)
t=$(now)
try "bundle: ssisim run demo, second start" \
    as_user "$home" "$exe" run demo --json "$abs/bundle-demo-2.json" -q --no-store
second_s=$(since "$t")
cached_second=$(cache_files)
t=$(now)
try "source: ssisim run demo" \
    "$src_venv/bin/ssisim" run demo --json "$abs/source-demo.json" -q --no-store
source_s=$(since "$t")
same_json "$abs/source-demo.json" "$abs/bundle-demo.json" \
    "the bundle's demo JSON differs from the source install's"
same_json "$abs/bundle-demo.json" "$abs/bundle-demo-2.json" \
    "the bundle's demo JSON differs between its first and second start"
as_user "$home" "$exe" scenarios >"$abs/bundle-scenarios.txt" || fail "bundle: ssisim scenarios"
"$src_venv/bin/ssisim" scenarios >"$abs/source-scenarios.txt"
cmp -s "$abs/source-scenarios.txt" "$abs/bundle-scenarios.txt" \
    || fail "'ssisim scenarios' lists other scenarios or lessons in the bundle than in the source"
need_file "$home/.local/share/ssisim/runs.sqlite"
as_user "$home" "$exe" runs | grep -q "Demo cluster" \
    || fail "bundle: 'ssisim runs' does not list the stored demo run"
[ "$cached_first" -gt 0 ] || fail "no numba cache files under $home/.cache/ssisim/numba"
# the second start loads every kernel from the cache: it compiles (and writes) nothing new
[ "$cached_second" = "$cached_first" ] \
    || fail "the second start wrote cache files ($cached_first, then $cached_second): recompiled"
try "bundle: a short run with XDG_CACHE_HOME set" \
    as_user "$home" env XDG_CACHE_HOME="$abs/xdg-cache" "$exe" run demo -q --no-store --until 10
[ -n "$(find "$abs/xdg-cache/ssisim/numba" -name '*.nbi' 2>/dev/null)" ] \
    || fail "with XDG_CACHE_HOME set, no numba cache under \$XDG_CACHE_HOME/ssisim/numba"
awk -v a="$first_s" -v b="$second_s" 'BEGIN { exit !(b < a) }' \
    || fail "second start ($second_s s) not faster than the first ($first_s s): numba's cache?"

say "the validation, headless, from the bundle and from the source"
set +e
as_user "$home" "$exe" validate --json "$abs/bundle-validate.json" \
    >/dev/null 2>"$abs/bundle-validate.err"
rc_bundle=$?
"$src_venv/bin/ssisim" validate --json "$abs/source-validate.json" \
    >/dev/null 2>"$abs/source-validate.err"
rc_source=$?
set -e
# exit 1 means a result is off its published measurement: a question for the model, not the bundle
if [ "$rc_bundle" -gt 1 ]; then
    cat "$abs/bundle-validate.err" >&2
    fail "bundle: ssisim validate exit $rc_bundle"
fi
[ "$rc_bundle" = "$rc_source" ] \
    || fail "ssisim validate: exit $rc_bundle from the bundle, $rc_source from the source"
same_json "$abs/source-validate.json" "$abs/bundle-validate.json" \
    "the bundle's validation JSON differs from the source install's"

say "the window, offscreen, to a screenshot: first start (a new HOME) and second start"
home_gui=$abs/home-gui
mkdir -p "$home_gui"
# gui_shot N: the window at t = 60 s, to bundle-gui-N.png; its wall time in shot_s
# (not printed for $(...): a failure counted in a subshell would be lost)
gui_shot() {
    local t
    t=$(now)
    if ! as_user "$home_gui" env QT_QPA_PLATFORM=offscreen "$exe" gui --run-until 60 \
        --screenshot "$abs/bundle-gui-$1.png" 2>"$abs/bundle-gui-$1.err"; then
        cat "$abs/bundle-gui-$1.err" >&2
        fail "bundle: ssisim gui ($1 start)"
    fi
    shot_s=$(since "$t")
}
gui_shot first
gui_first_s=$shot_s
gui_shot second
gui_s=$shot_s
for n in first second; do
    try "the bundle's screenshot ($n start)" "$src_venv/bin/python" installer/bundle_checks.py \
        check-png "$abs/bundle-gui-$n.png" --min-size 1600x1000
done
# The same window from the source install: the two pictures differ only in the status bar's
# timings (a few dozen pixels); a missing font, style or plugin would change much more.
if ! QT_QPA_PLATFORM=offscreen "$src_venv/bin/ssisim" gui --run-until 60 \
    --screenshot "$abs/source-gui.png" 2>"$abs/source-gui.err"; then
    cat "$abs/source-gui.err" >&2
    fail "source: ssisim gui"
fi
try "the bundle's window looks like the source install's" "$src_venv/bin/python" \
    installer/bundle_checks.py compare-png "$abs/source-gui.png" "$abs/bundle-gui-second.png"

# check_installed HOME: install.sh's results there
check_installed() {
    local h=$1 f
    local entry=$h/.local/share/applications/ssisim.desktop icons=$h/.local/share/icons/hicolor
    for f in "$entry" "$icons/scalable/apps/ssisim.svg" "$icons/48x48/apps/ssisim.png" \
        "$icons/128x128/apps/ssisim.png" "$icons/256x256/apps/ssisim.png" \
        "$h/.local/bin/ssisim" "$h/.local/lib/ssisim/ssisim" "$h/.local/lib/ssisim/uninstall.sh"; do
        need_file "$f"
    done
    [ -x "$h/.local/bin/ssisim" ] || fail "launcher not executable: $h/.local/bin/ssisim"
    try "desktop-file-validate $entry" desktop-file-validate "$entry"
    grep -qx "Exec=\"$h/.local/bin/ssisim\" gui %f" "$entry" \
        || fail "Exec line of $entry: $(grep ^Exec= "$entry")"
    grep -qx "Icon=ssisim" "$entry" || fail "Icon line of $entry"
    as_user "$h" "$h/.local/bin/ssisim" --help | grep -q "usage: ssisim" \
        || fail "launcher: ssisim --help"
    try "launcher: ssisim check demo" as_user "$h" "$h/.local/bin/ssisim" check demo >/dev/null
}
# check_removed HOME: nothing of install.sh's left there
check_removed() {
    local h=$1 f icons=$1/.local/share/icons/hicolor
    for f in "$h/.local/share/applications/ssisim.desktop" "$h/.local/bin/ssisim" \
        "$h/.local/lib/ssisim" "$icons/scalable/apps/ssisim.svg" "$icons/48x48/apps/ssisim.png" \
        "$icons/128x128/apps/ssisim.png" "$icons/256x256/apps/ssisim.png"; do
        [ ! -e "$f" ] || fail "uninstall.sh left $f"
    done
}

say "installer/install.sh ARCHIVE from the source tree; a headless run; uninstall.sh"
home_a=$abs/home-install-a
mkdir -p "$home_a"
try "installer/install.sh $archive" \
    as_user "$home_a" installer/install.sh "$archive" >"$abs/install-a.log"
check_installed "$home_a"
try "launcher: ssisim run demo" \
    as_user "$home_a" "$home_a/.local/bin/ssisim" run demo --json "$abs/installed-demo.json" -q
same_json "$abs/source-demo.json" "$abs/installed-demo.json" \
    "the installed program's demo JSON differs from the source install's"
x11_s="not run (no xvfb-run)"
if command -v xvfb-run >/dev/null; then
    say "the menu entry's command, in an X11 window on Xvfb"
    # as the desktop runs Exec="LAUNCHER" gui %f with no file: %f expands to nothing
    launcher=$(sed -n 's/^Exec="\([^"]*\)" gui %f$/\1/p' \
        "$home_a/.local/share/applications/ssisim.desktop")
    t=$(now)
    if ! as_user "$home_a" xvfb-run -a -s "-screen 0 1600x1000x24" "$launcher" gui \
        --run-until 30 --screenshot "$abs/installed-x11.png" >"$abs/x11.log" 2>&1; then
        cat "$abs/x11.log" >&2
        fail "the menu entry's command under Xvfb"
    fi
    x11_s="$(since "$t") s"
    try "the X11 window's screenshot" "$src_venv/bin/python" installer/bundle_checks.py \
        check-png "$abs/installed-x11.png" --min-size 1600x1000
else
    echo "note: xvfb-run is not installed; the X11 window is not checked" >&2
fi
try "uninstall.sh" \
    as_user "$home_a" "$home_a/.local/lib/ssisim/uninstall.sh" >"$abs/uninstall-a.log"
check_removed "$home_a"
need_file "$home_a/.local/share/ssisim/runs.sqlite"  # runs are kept without --purge

say "install.sh inside the unpacked archive, twice (an update); uninstall.sh --purge"
home_b=$abs/home-install-b
mkdir -p "$home_b"
try "$bundle/install.sh" as_user "$home_b" "$bundle/install.sh" >"$abs/install-b.log"
try "$bundle/install.sh, again" as_user "$home_b" "$bundle/install.sh" >>"$abs/install-b.log"
check_installed "$home_b"
try "launcher: a short run" \
    as_user "$home_b" "$home_b/.local/bin/ssisim" run demo -q --no-store --until 60
try "uninstall.sh --purge" \
    as_user "$home_b" "$home_b/.local/lib/ssisim/uninstall.sh" --purge >"$abs/uninstall-b.log"
check_removed "$home_b"
[ ! -e "$home_b/.cache/ssisim" ] || fail "uninstall.sh --purge left $home_b/.cache/ssisim"

say "install.sh leaves a launcher of someone else's alone unless told --force"
home_c=$abs/home-install-c
mkdir -p "$home_c/.local/bin"
printf '#!/bin/sh\necho pip-installed ssisim\n' >"$home_c/.local/bin/ssisim"
if out=$(as_user "$home_c" "$bundle/install.sh" 2>&1); then
    fail "install.sh replaced a launcher it did not write"
else
    grep -q "is not from this installer" <<<"$out" || fail "install.sh, foreign launcher: '$out'"
fi
grep -q "pip-installed" "$home_c/.local/bin/ssisim" || fail "install.sh changed a foreign launcher"
try "install.sh --force" as_user "$home_c" "$bundle/install.sh" --force >"$abs/install-c.log"
check_installed "$home_c"

archive_mb=$(awk -v s="$(stat -c %s "$archive")" 'BEGIN { printf "%.0f", s / 1048576 }')
unpacked_mb=$(du -sm "$bundle" | cut -f1)
{
    echo "bundle check of $archive, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "archive: $archive_mb MiB; unpacked: $unpacked_mb MiB;" \
        "needs glibc $(cat "$bundle/glibc-min.txt") or newer"
    echo "ssisim run demo --json, first start (kernels compiled): $first_s s"
    echo "ssisim run demo --json, second start (kernels from the cache): $second_s s"
    echo "ssisim run demo --json, source install: $source_s s"
    echo "ssisim gui --run-until 60 --screenshot, offscreen, first start: $gui_first_s s"
    echo "ssisim gui --run-until 60 --screenshot, offscreen, second start: $gui_s s"
    echo "the menu entry's command, X11 window on Xvfb, --run-until 30: $x11_s"
    echo "check: $(($(date +%s) - started)) s, $failures failures"
} | tee "$report"

# The screenshots stay for a look: build/bundle/check-*.png
for f in bundle-gui-first bundle-gui-second installed-x11; do
    if [ -f "$abs/$f.png" ]; then cp "$abs/$f.png" "build/bundle/check-$f.png"; fi
done

if [ "$failures" -gt 0 ]; then
    echo "bundle check FAILED ($failures); its files are in $check" >&2
    exit 1
fi
rm -rf "$check"
echo "bundle check passed"
