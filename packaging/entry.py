"""The bundle's entry point: the same command line as the ``sense7-coder`` script."""

import sys

from sense7_coder.cli import main

if __name__ == "__main__":
    sys.exit(main())
