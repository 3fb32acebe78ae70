#!/bin/sh
# Build sense7-coder.app on macOS (run on the oldest macOS you support, from the repository
# root): a fresh virtual environment, the .icns icon from the rendered PNGs, the bundle.
set -eu
python3 -m venv .venv-build
.venv-build/bin/pip install --upgrade pip
.venv-build/bin/pip install . pyinstaller
.venv-build/bin/python -c "import sys; sys.argv=['build']; sys.path.insert(0, 'packaging'); \
import build; build.render_icons(build.BUILD / 'icons')"
set=build/icons/sense7-coder.iconset
mkdir -p "$set"
for s in 16 32 64 128 256; do cp "build/icons/sense7-coder-$s.png" "$set/icon_${s}x${s}.png"; done
cp build/icons/sense7-coder-32.png "$set/icon_16x16@2x.png"
cp build/icons/sense7-coder-64.png "$set/icon_32x32@2x.png"
cp build/icons/sense7-coder-256.png "$set/icon_128x128@2x.png"
iconutil -c icns "$set" -o build/icons/sense7-coder.icns
.venv-build/bin/python packaging/build.py --archive
echo "sign and notarise dist/*/sense7-coder.app before handing it out (see packaging/README.md)"
