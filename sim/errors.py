"""The one base class of every error a user can cause.

A wrong card name, an out-of-range value, a malformed file, an impossible
comparison: the library raises a subclass of :class:`InputError` with a
message in the library's own words, and the CLI's one handler
(:mod:`sim.cli`) prints it and exits with status 2, without a traceback.
"""

from __future__ import annotations


class InputError(ValueError):
    """Something the user gave cannot be used; the message says what and why.

    Parameters
    ----------
    message : str
        One line per problem.
    field : str, optional
        The input at fault in the library's words (``"stalker"``, ``"item"``,
        ``"vary"``), never a command-line option: the CLI maps it to its option.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field
