import sys

from compilescope_probe.main import main

if __name__ == "__main__":
    sys.exit(main())
