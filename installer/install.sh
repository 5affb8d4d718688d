#!/bin/sh
# Install the ssisim desktop bundle for the current user: no root, no Python needed.
#
#   ./install.sh                      inside the unpacked archive
#   install.sh ssisim-VERSION-linux-x86_64.tar.gz
#   install.sh path/to/unpacked/ssisim-VERSION-linux-x86_64
#   installer/install.sh              in a source tree, after `make bundle` (takes dist/'s archive)
#
# Puts the program in ~/.local/lib/ssisim, a launcher in ~/.local/bin, the menu entry in
# $XDG_DATA_HOME/applications and the icons in $XDG_DATA_HOME/icons/hicolor
# (XDG_DATA_HOME defaults to ~/.local/share). Installing again replaces the program; runs and
# settings are kept. Undo with ~/.local/lib/ssisim/uninstall.sh.
set -eu

prog=install.sh
die() {
    echo "$prog: $*" >&2
    exit 1
}

usage() {
    echo "usage: $prog [--force] [ARCHIVE.tar.gz | BUNDLE_DIR]"
    echo "Installs ssisim for the current user (see the comment at the top of this script)."
}

force=0
src=""
for arg in "$@"; do
    case $arg in
        -h | --help) usage; exit 0 ;;
        --force) force=1 ;;
        -*) usage >&2; die "unknown option: $arg" ;;
        *) [ -z "$src" ] || die "give one archive or bundle folder, not several"; src=$arg ;;
    esac
done

[ -n "${HOME:-}" ] || die "HOME is not set: cannot tell where to install"
[ "$(uname -s)" = Linux ] || die "this bundle is for Linux; this machine runs $(uname -s)"
[ "$(uname -m)" = x86_64 ] || die "this bundle is for x86_64; this machine is $(uname -m)"

here=$(cd "$(dirname "$0")" && pwd)

# A bundle folder: the unpacked archive, with the program in ssisim/.
is_bundle() {
    [ -x "$1/ssisim/ssisim" ] && [ -d "$1/ssisim/_internal" ] && [ -f "$1/ssisim.desktop" ] \
        && [ -f "$1/icons/ssisim.svg" ]
}

if [ -z "$src" ]; then
    if is_bundle "$here"; then
        src=$here
    else
        # in a source tree: the newest archive that `make bundle` left in dist/
        dist=$(cd "$here/.." && pwd)/dist
        # shellcheck disable=SC2012  # names made by `make bundle`: no newlines in them
        src=$(ls -t "$dist"/ssisim-*-linux-x86_64.tar.gz 2>/dev/null | head -n 1 || true)
        [ -n "$src" ] || die "no bundle next to this script and no archive in $dist;
  build one with 'make bundle', or give the archive: $prog ssisim-VERSION-linux-x86_64.tar.gz"
    fi
fi

tmp=""
cleanup() { [ -z "$tmp" ] || rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -d "$src" ]; then
    bundle=$(cd "$src" && pwd)
    is_bundle "$bundle" || die "$src is not an ssisim bundle folder (it has no ssisim/ssisim
  program, ssisim.desktop or icons/); give the unpacked ssisim-VERSION-linux-x86_64 folder
  or its archive"
elif [ -f "$src" ]; then
    case $src in
        *.tar.gz | *.tgz) ;;
        *) die "$src: not a .tar.gz archive; give ssisim-VERSION-linux-x86_64.tar.gz
  or its unpacked folder" ;;
    esac
    [ -r "$src" ] || die "$src: cannot read the archive (permissions)"
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/ssisim-install.XXXXXX")
    echo "Unpacking $src ..."
    tar -xzf "$src" -C "$tmp" \
        || die "$src: cannot unpack the archive (damaged or incomplete download?)"
    bundle=""
    for d in "$tmp"/*; do
        if is_bundle "$d"; then bundle=$d; fi
    done
    [ -n "$bundle" ] || die "$src: the archive holds no ssisim bundle (expected a folder
  ssisim-VERSION-linux-x86_64 with the program ssisim/ssisim in it)"
elif [ -e "$src" ]; then
    die "$src: neither a folder nor an archive"
else
    die "$src: no such file or folder"
fi

version=$(cat "$bundle/VERSION" 2>/dev/null || echo unknown)

# The bundle runs on the C library it was built against or a newer one.
if [ -f "$bundle/glibc-min.txt" ] && command -v getconf >/dev/null 2>&1; then
    need=$(cat "$bundle/glibc-min.txt")
    have=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed -n 's/^glibc //p')
    if [ -n "$have" ] && [ -n "$need" ]; then
        oldest=$(printf '%s\n%s\n' "$need" "$have" | sort -t. -k1,1n -k2,2n | head -n 1)
        [ "$oldest" = "$need" ] || die "this bundle needs glibc $need or newer; this machine has $have.
  Build the bundle on this machine (or one as old) with 'make bundle' instead."
    fi
fi

data_home=${XDG_DATA_HOME:-$HOME/.local/share}
case $data_home in /*) ;; *) data_home=$HOME/.local/share ;; esac  # the spec ignores relative ones
bin_dir=$HOME/.local/bin
lib_dir=$HOME/.local/lib/ssisim
apps_dir=$data_home/applications
icons_dir=$data_home/icons/hicolor
launcher=$bin_dir/ssisim
marker="# ssisim launcher, written by install.sh"

case $launcher in
    *\"* | *\`* | *\$* | *\\*)
        die "the launcher path $launcher has a character a menu entry cannot hold (\" \` \$ \\)" ;;
esac
if [ -e "$launcher" ] && ! grep -q "^$marker" "$launcher" 2>/dev/null && [ "$force" = 0 ]; then
    die "$launcher exists and is not from this installer (a 'pip install --user ssisim'?);
  remove it, or run $prog --force to replace it"
fi

echo "Installing ssisim $version for $(id -un 2>/dev/null || echo "$HOME") ..."
mkdir -p "$(dirname "$lib_dir")" "$bin_dir" "$apps_dir" \
    "$icons_dir/scalable/apps" "$icons_dir/48x48/apps" "$icons_dir/128x128/apps" \
    "$icons_dir/256x256/apps"

# Copy next to the old program, then swap, so a failed copy leaves the old one working.
rm -rf "$lib_dir.new" "$lib_dir.old"
mkdir "$lib_dir.new"
cp -pR "$bundle/ssisim/." "$lib_dir.new/"
cp "$bundle/uninstall.sh" "$lib_dir.new/uninstall.sh"
chmod 755 "$lib_dir.new/uninstall.sh"
printf '%s\n' "$version" >"$lib_dir.new/VERSION"
if [ -d "$lib_dir" ]; then mv "$lib_dir" "$lib_dir.old"; fi
mv "$lib_dir.new" "$lib_dir"
rm -rf "$lib_dir.old"

quoted_lib=$(printf '%s' "$lib_dir" | sed "s/'/'\\\\''/g")
cat >"$launcher.new" <<EOF
#!/bin/sh
$marker (uninstall: $lib_dir/uninstall.sh)
exec '$quoted_lib/ssisim' "\$@"
EOF
chmod 755 "$launcher.new"
mv "$launcher.new" "$launcher"

# The menu entry runs the launcher by its full path: a desktop session's PATH often lacks
# ~/.local/bin. In sed's replacement & and | are special; in Exec, % is.
for_sed=$(printf '%s' "$launcher" | sed 's/[&|]/\\&/g')
for_exec=$(printf '%s' "$for_sed" | sed 's/%/%%/g')
sed -e "s|^TryExec=.*|TryExec=$for_sed|" -e "s|^Exec=ssisim |Exec=\"$for_exec\" |" \
    "$bundle/ssisim.desktop" >"$apps_dir/ssisim.desktop"
chmod 644 "$apps_dir/ssisim.desktop"

cp "$bundle/icons/ssisim.svg" "$icons_dir/scalable/apps/ssisim.svg"
for size in 48 128 256; do
    cp "$bundle/icons/ssisim-$size.png" "$icons_dir/${size}x${size}/apps/ssisim.png"
done
chmod 644 "$icons_dir/scalable/apps/ssisim.svg" "$icons_dir"/*/apps/ssisim.png

# Menus notice new entries and icons by the folders' times; refresh the caches if there are any.
touch "$icons_dir" "$apps_dir"
if [ -f "$icons_dir/icon-theme.cache" ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
    gtk-update-icon-cache -q -t -f "$icons_dir" || true
fi
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$apps_dir" || true
fi

# Headless commands need nothing more; say so if the program cannot even start.
if ! "$launcher" --version >/dev/null 2>&1; then
    echo "$prog: warning: the installed program does not start; try: $launcher --version" >&2
fi

# The window needs a few libraries of the system's (OpenGL, X11's xcb), never bundled.
missing=""
if command -v ldd >/dev/null 2>&1; then
    qt=$lib_dir/_internal/PySide6/Qt
    missing=$(LD_LIBRARY_PATH="$lib_dir/_internal:$qt/lib" ldd \
        "$qt/plugins/platforms/libqxcb.so" "$qt/lib/libQt6Gui.so.6" "$qt/lib/libQt6Widgets.so.6" \
        "$qt/lib/libQt6OpenGL.so.6" 2>/dev/null \
        | sed -n 's/^[[:space:]]*\([^[:space:]]*\) => not found.*/\1/p' | sort -u | tr '\n' ' ')
fi
# Without fontconfig's configuration Qt finds no fonts and draws every letter as a box.
if [ ! -e /etc/fonts/fonts.conf ]; then
    missing="${missing}fonts (no /etc/fonts/fonts.conf)"
fi

echo "Installed:"
echo "  program    $lib_dir"
echo "  launcher   $launcher"
echo "  menu entry $apps_dir/ssisim.desktop"
echo "  icons      $icons_dir/{scalable,48x48,128x128,256x256}/apps/"
if [ -n "$missing" ]; then
    echo
    echo "The desktop window needs system libraries this machine lacks: $missing"
    if [ -f "$bundle/system-libraries.txt" ]; then
        echo "On Debian or Ubuntu, install them with:"
        echo "  sudo apt-get install -y $(cat "$bundle/system-libraries.txt")"
    fi
    echo "(Headless commands such as 'ssisim run demo' work without them.)"
fi
case ":${PATH:-}:" in
    *":$bin_dir:"*) ;;
    *)
        echo
        echo "$bin_dir is not on your PATH; the menu entry works anyway. To type 'ssisim' in a"
        echo "terminal, add this line to ~/.profile and log in again:"
        echo "  export PATH=\"\$HOME/.local/bin:\$PATH\""
        ;;
esac
echo
echo "Start it from the application menu (ssisim), or: ssisim gui"
echo "Uninstall with: $lib_dir/uninstall.sh"
