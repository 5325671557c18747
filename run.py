#!/usr/bin/env python3
"""IntellAgent's command line: `python run.py --config airline.yml` (see --help)."""

import sys

from intellagent.cli import main

if __name__ == "__main__":
    sys.exit(main())
