# Build the sense7-coder folder on Windows (PowerShell, from the repository root): the build
# environment from the hash-locked versions, the bundle, its check, and a .zip of it under
# dist\. The folder holds sense7-coder.exe (the window, no console) and sense7-coder-cli.exe
# (the same program with a console, for the command line).
$ErrorActionPreference = "Stop"
py -3.11 -m venv .venv-build
.\.venv-build\Scripts\python -m pip install --require-hashes -r requirements\lock.txt -r packaging\build-lock.txt
if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
.\.venv-build\Scripts\python -m pip install --no-deps .
if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
.\.venv-build\Scripts\python packaging\build.py --archive
if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
.\.venv-build\Scripts\python packaging\check_bundle.py --no-build
if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
Write-Host "Sign dist\*\sense7-coder*.exe before handing it out; optional installer with the .sense7 file association: packaging\windows\sense7-coder.iss (Inno Setup); see packaging\README.md"
