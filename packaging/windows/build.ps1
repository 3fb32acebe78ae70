# Build the sense7-coder folder on Windows (PowerShell, from the repository root):
# a fresh virtual environment, the bundle, a .zip of it under dist\.
$ErrorActionPreference = "Stop"
py -3.11 -m venv .venv-build
.\.venv-build\Scripts\python -m pip install --upgrade pip
.\.venv-build\Scripts\pip install . pyinstaller
.\.venv-build\Scripts\python packaging\build.py --archive
Write-Host "Optional installer with the .sense7 file association: packaging\windows\sense7-coder.iss (Inno Setup)"
