"""``python -m retrograd demo`` (see retrograd.cli)."""
from .cli import main

raise SystemExit(main())
