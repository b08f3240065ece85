import sys

from canary_infer.ui.cli import main

sys.exit(main())
