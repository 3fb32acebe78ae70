# Replaces pyinstaller-hooks-contrib's hook for thinc: the same modules and data files, less
# its own test suite (left out of the bundle by the spec; the contrib hook asked for each
# of its modules and PyInstaller warned once per module it could not find, ~400 lines).
from PyInstaller.utils.hooks import collect_data_files, collect_submodules

datas = collect_data_files("thinc", excludes=["**/tests/**"])
hiddenimports = collect_submodules("thinc", filter=lambda name: ".tests" not in name)
