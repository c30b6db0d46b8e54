"""Specs for the ops of ``retrograd._ops.linalg``, one file per module there."""
