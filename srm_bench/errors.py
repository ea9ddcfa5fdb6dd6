"""Exceptions that the CLI turns into one clear line and exit code 1."""
from __future__ import annotations


class SrmBenchError(Exception):
    """A domain error: bad input, a failed check, a missing file.

    The message is one line that says what is wrong and how to fix it. The CLI prints it
    without a traceback and exits with status 1.
    """


class ChecksumError(SrmBenchError):
    """A file or dataset does not match the SHA-256 it must have."""
