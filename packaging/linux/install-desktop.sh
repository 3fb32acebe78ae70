#!/bin/sh
# Register this sense7-coder folder with the desktop for the current user: menu entry,
# icons, and .sense7 project files opening in sense7-coder. Run it from the unpacked
# folder; run it again after moving the folder. `./install-desktop.sh --remove` undoes it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
id=org.sense7.coder

if [ "${1:-}" = "--remove" ]; then
    done_word=removed
    rm -f "$data/applications/$id.desktop" "$data/metainfo/$id.metainfo.xml" \
          "$data/mime/packages/sense7-coder.xml"
    find "$data/icons/hicolor" \( -name sense7-coder.png -o -name sense7-coder.svg \
         -o -name application-x-sense7-project.png \) -delete 2>/dev/null || true
else
    done_word=installed
    mkdir -p "$data/applications" "$data/metainfo" "$data/mime/packages"
    sed -e "s|^Exec=sense7-coder|Exec=\"$here/sense7-coder\"|" \
        -e "s|^TryExec=sense7-coder|TryExec=$here/sense7-coder|" \
        "$here/share/applications/$id.desktop" > "$data/applications/$id.desktop"
    cp "$here/share/metainfo/$id.metainfo.xml" "$data/metainfo/"
    cp "$here/share/mime/packages/sense7-coder.xml" "$data/mime/packages/"
    cp -R "$here/share/icons" "$data/"
fi
command -v update-mime-database >/dev/null && update-mime-database "$data/mime" || true
command -v update-desktop-database >/dev/null && update-desktop-database "$data/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$data/icons/hicolor" || true
echo "sense7-coder: desktop entry $done_word for $(id -un)"
