"""Typed conversion errors.

The CLI prints `str(error)` and exits with `exit_code`, so each message must tell the user
what to do next, not just what went wrong.
"""


class ConversionError(Exception):
    """Base class: a refusal or failure that the user can act on."""

    exit_code = 1


class MissingDependency(ConversionError):
    exit_code = 3


class SourceNotFound(ConversionError):
    exit_code = 4


class UnsupportedArchitecture(ConversionError):
    exit_code = 5


class InvalidContext(ConversionError):
    exit_code = 6


class InvalidOption(ConversionError):
    exit_code = 2


class OutputExists(ConversionError):
    exit_code = 7
