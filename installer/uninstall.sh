#!/bin/sh
# Remove what install.sh put in place for the current user: the program, the launcher, the menu
# entry and the icons. Stored runs, settings and the compiled-kernel cache are kept unless
# --purge is given. install.sh copies this script to ~/.local/lib/ssisim/uninstall.sh.
set -eu

prog=uninstall.sh
die() {
    echo "$prog: $*" >&2
    exit 1
}

# Everything runs from a function: the script deletes the folder it is in, so the shell must
# have read all of it first.
main() {
    purge=0
    for arg in "$@"; do
        case $arg in
            -h | --help)
                echo "usage: $prog [--purge]"
                echo "Removes ssisim's program, launcher, menu entry and icons for this user."
                echo "--purge also deletes the stored runs, the settings and the kernel cache."
                return 0
                ;;
            --purge) purge=1 ;;
            *) die "unknown argument: $arg (see $prog --help)" ;;
        esac
    done
    [ -n "${HOME:-}" ] || die "HOME is not set: cannot tell what to remove"

    data_home=${XDG_DATA_HOME:-$HOME/.local/share}
    case $data_home in /*) ;; *) data_home=$HOME/.local/share ;; esac
    cache_home=${XDG_CACHE_HOME:-$HOME/.cache}
    case $cache_home in /*) ;; *) cache_home=$HOME/.cache ;; esac
    config_home=${XDG_CONFIG_HOME:-$HOME/.config}
    case $config_home in /*) ;; *) config_home=$HOME/.config ;; esac
    lib_dir=$HOME/.local/lib/ssisim
    launcher=$HOME/.local/bin/ssisim
    apps_dir=$data_home/applications
    icons_dir=$data_home/icons/hicolor
    marker="# ssisim launcher, written by install.sh"

    removed=0
    remove() {  # remove PATH..., saying which existed
        for p in "$@"; do
            if [ -e "$p" ] || [ -L "$p" ]; then
                rm -rf "$p"
                echo "removed $p"
                removed=$((removed + 1))
            fi
        done
    }

    if [ -e "$launcher" ]; then
        if grep -q "^$marker" "$launcher" 2>/dev/null; then
            remove "$launcher"
        else
            echo "kept $launcher: not written by install.sh"
        fi
    fi
    remove "$apps_dir/ssisim.desktop" "$icons_dir/scalable/apps/ssisim.svg" \
        "$icons_dir/48x48/apps/ssisim.png" "$icons_dir/128x128/apps/ssisim.png" \
        "$icons_dir/256x256/apps/ssisim.png"
    if [ -d "$lib_dir" ]; then
        if [ -x "$lib_dir/ssisim" ] && [ -d "$lib_dir/_internal" ]; then
            remove "$lib_dir" "$lib_dir.new" "$lib_dir.old"
        else
            echo "kept $lib_dir: it does not hold an installed ssisim bundle"
        fi
    fi

    data_dir=$data_home/ssisim
    cache_dir=$cache_home/ssisim
    config_dir=$config_home/ssisim
    if [ "$purge" = 1 ]; then
        remove "$data_dir" "$cache_dir" "$config_dir"
    fi

    if [ -d "$icons_dir" ]; then touch "$icons_dir"; fi
    if [ -d "$apps_dir" ]; then touch "$apps_dir"; fi
    if [ -f "$icons_dir/icon-theme.cache" ] && command -v gtk-update-icon-cache >/dev/null; then
        gtk-update-icon-cache -q -t -f "$icons_dir" || true
    fi
    if [ -d "$apps_dir" ] && command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q "$apps_dir" || true
    fi

    if [ "$removed" = 0 ]; then
        echo "ssisim was not installed for this user: nothing to remove"
    else
        echo "ssisim is uninstalled."
    fi
    if [ "$purge" = 0 ]; then
        for d in "$data_dir" "$cache_dir" "$config_dir"; do
            if [ -d "$d" ]; then
                echo "kept $d (runs, settings or compiled kernels; $prog --purge deletes them)"
            fi
        done
    fi
}

main "$@"
