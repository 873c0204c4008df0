import sys

from polyprobe.cli import main

sys.exit(main())
