#!/bin/sh
# Build sense7-coder.app on macOS (run on the oldest macOS you support, from the repository
# root): the build environment from the hash-locked versions, the bundle (icons, .icns and
# all), its check, and a .tar.gz beside it. Result: dist/sense7-coder-<version>-macos-<arch>/
# sense7-coder.app. Sign and notarise it before handing it out (packaging/README.md).
set -eu
python3.11 -m venv .venv-build
.venv-build/bin/python -m pip install --require-hashes -r requirements/lock.txt -r packaging/build-lock.txt
.venv-build/bin/python -m pip install --no-deps .
.venv-build/bin/python packaging/build.py --archive
.venv-build/bin/python packaging/check_bundle.py --no-build
echo "sign and notarise dist/*/sense7-coder.app before handing it out (see packaging/README.md)"
