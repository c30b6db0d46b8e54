"""Specs for the ops of ``retrograd._ops.nn``, one file per module there."""
