"""The one base class of every error a user can cause.

A wrong card name, an out-of-range value, a malformed file, an impossible
comparison: the library raises a subclass of :class:`InputError` with a
message in the library's own words, and the CLI's one handler
(:mod:`sim.cli`) prints it and exits with status 2, without a traceback.
"""

from __future__ import annotations


def visible(text: str, lines: bool = True) -> str:
    """``text`` with every character a terminal would not show written as an escape.

    A zero-width space, a no-break space, a BOM or an ESC inside a name would
    otherwise print as nothing (or as a plain space), so two names that differ
    only by it would look identical in a message (``'Med\\u200bkit' is not
    'Medkit'``). Each character that :meth:`str.isprintable` refuses, line
    breaks excepted, is shown as Python writes it in a string literal
    (``\\u200b``, ``\\xa0``, ``\\x1b``, a right-to-left override ``\\u202e``);
    printable text, accented letters included, is unchanged. ``lines=False``
    escapes a line break too (``\\n``): a name (a scenario's file name) stays
    on its line. The one place every name shown is made text: messages,
    titles, file names, and the Markdown and HTML reports.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or (lines and c == "\n") else repr(c)[1:-1]
                   for c in text)


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


class InertKeyWarning(UserWarning):
    """A scenario key that is played but does nothing in this scenario (one line on stderr).

    A key that can never act on the scenario's ruleset is refused instead, as a
    problem of the file (:mod:`sim.rules.scenario`); this warns of one that could act
    with another loadout or reading of the rules but does not here. The command line
    prints it as ``zonesim: warning: FILE:LINE: key 'KEY': ...`` (:mod:`sim.cli`).
    """
