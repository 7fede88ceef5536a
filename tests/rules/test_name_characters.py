"""Invisible and direction-changing characters in card names are refused (issue 43).

A right-to-left override (U+202E) reorders what a terminal or a report shows
after it, a line separator (U+2028/2029) breaks a line where none is seen, and a
zero-width character (U+200B..U+200D, U+FEFF) makes two names that look the same
differ. ``zonesim validate`` refuses each in a card name like a control
character: file, line, column and the value with the character escaped, every
problem at once, exit status 2.
"""

from __future__ import annotations

import pytest

from tests.cli.test_cli import run

INVISIBLE = ["\u202e", "\u202d", "\u2066", "\u200e", "\u2028", "\u2029", "\u200b", "\u200c",
             "\u200d", "\ufeff", "\u2060", "\u00ad"]


def _rename(path, old: str, new: str) -> int:
    """Rename the card ``old`` of the CSV file ``path``; return its line."""
    lines = path.read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{old},"))
    lines[at] = new + lines[at][len(old):]
    path.write_text("\n".join(lines), encoding="utf-8")
    return at + 1


@pytest.mark.parametrize("char", INVISIBLE)
def test_an_invisible_character_in_a_card_name_is_refused(my, char):
    line = _rename(my / "enemies.csv", "Flesh", f"Fl{char}esh")
    result = run("validate", str(my))
    assert result.exit_code == 2, result.output
    escaped = ascii(char)[1:-1]
    assert (f"{my / 'enemies.csv'}:{line}: column 'name': character 3 is the invisible "
            f"character U+{ord(char):04X}") in result.output
    assert f"'Fl{escaped}esh'" in result.output
    assert char not in result.output


def test_every_invisible_name_is_reported_at_once(my):
    first = _rename(my / "enemies.csv", "Flesh", "Flesh\u202e")
    second = _rename(my / "items.csv", "Medkit", "\u200bMedkit")
    result = run("validate", str(my))
    assert result.exit_code == 2, result.output
    assert f"{my / 'enemies.csv'}:{first}: column 'name': character 6 " in result.output
    assert f"{my / 'items.csv'}:{second}: column 'name': character 1 " in result.output
    assert "Traceback" not in result.output


def test_accents_and_other_scripts_stay_names(my):
    _rename(my / "enemies.csv", "Flesh", "Плоть é")
    result = run("validate", str(my))
    assert result.exit_code == 0, result.output
