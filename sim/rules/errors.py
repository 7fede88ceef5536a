"""Problems found while loading a ruleset, and the exception that carries them.

A ruleset is checked completely before it is used: every problem is collected
and reported at once (style habit 6: configs are validated at the boundary with
errors that name file, line and column).
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.errors import InputError, visible


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a ruleset file.

    Attributes
    ----------
    file : str
        Path of the file as the user gave it (e.g. ``configs/my/armor.csv``).
    line : int or None
        Physical line number in the file (the CSV header is line 1), or
        ``None`` when the problem concerns the whole file or folder.
    column : str or None
        CSV column name, or the dotted TOML key (``dice.success_on``).
    value : str or None
        The offending value as written in the file.
    message : str
        What is wrong, including the value, e.g. ``7 is not a die face 2..6``.
    """

    file: str
    line: int | None
    column: str | None
    value: str | None
    message: str

    def __str__(self) -> str:
        """``FILE:LINE: column 'NAME': MESSAGE``, invisible characters shown as escapes."""
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        if self.column is None:
            return visible(f"{where}: {self.message}")
        label = "key" if self.file.endswith(".toml") else "column"
        return visible(f"{where}: {label} '{self.column}': {self.message}")


class RulesetError(InputError):
    """A ruleset could not be loaded; ``problems`` lists every reason.

    Parameters
    ----------
    problems : list of Problem
        All problems found, in file order.
    """

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        n = len(self.problems)
        head = f"{n} problem{'s' if n != 1 else ''} in ruleset:"
        super().__init__("\n".join([head, *(f"  {p}" for p in self.problems)]))
