"""The bundle's entry point: the same command line as the ``sense7-coder`` script."""

import sys

from sense7_coder.cli import main

#: the hidden argument that makes this executable the window's file dialog
#: (sense7_coder/ui/file_dialogs.py: PICKER_FLAG)
PICKER_FLAG = "--file-picker"

if __name__ == "__main__":
    if sys.argv[1:2] == [PICKER_FLAG]:
        from sense7_coder.ui.picker import main as picker

        sys.exit(picker(sys.argv[2:]))
    sys.exit(main())
