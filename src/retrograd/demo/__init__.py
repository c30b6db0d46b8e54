"""The demo that ``make demo`` / ``python -m retrograd demo`` runs."""
