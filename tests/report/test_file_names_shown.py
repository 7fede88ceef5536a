"""A scenario's file name is text wherever it is shown (issue 43, item 9).

Card names cannot hold control or invisible characters (the ruleset loader
refuses them), but a scenario's file name is the user's: ``we\\x1b[31mird.toml``
or a right-to-left override in it reached the terminal raw (recolouring or
reordering it) and landed unescaped in report.md and report.html. Every name
shown, file names included, goes through :func:`sim.errors.visible`: each such
character is shown as an escape (``\\x1b``, ``\\u202e``).
"""

from __future__ import annotations

import pandas as pd
import pytest

from sim.report import html, markdown
from sim.rules.scenario import load_scenario, scenario_path
from tests.cli.test_cli import run

HOSTILE = ["we\x1b[31mird", "rt\u202elo", "two\nlines", "bell\x07", "zero\u200bwidth"]


def _copy(tmp_path, stem: str):
    path = tmp_path / f"{stem}.toml"
    text = scenario_path("base").read_text(encoding="utf-8")
    path.write_text(text.replace('ruleset = "base"', f'ruleset = "{_base()}"'), encoding="utf-8")
    return path


def _base() -> str:
    from sim.paths import bundled_ruleset

    return str(bundled_ruleset())


def _escaped(stem: str) -> str:
    return stem.encode("unicode_escape").decode("ascii").replace("\\\\", "\\")


def _clean(text: str, stem: str) -> None:
    """No character of ``stem`` a terminal would not show is in ``text``, a line break
    excepted (the text has its own), and the raw ``stem`` is not in it either."""
    assert stem not in text
    for char in stem:
        if not char.isprintable() and char != "\n":
            assert char not in text, (char, text)


@pytest.mark.parametrize("stem", HOSTILE)
def test_a_scenario_name_is_shown_escaped(tmp_path, stem):
    scenario = load_scenario(_copy(tmp_path, stem))
    assert scenario.name == _escaped(stem)
    assert scenario.path.stem == stem  # the file itself is still read


@pytest.mark.parametrize("stem", HOSTILE)
def test_a_file_name_in_an_error_is_escaped(tmp_path, stem):
    path = _copy(tmp_path, stem)
    result = run("balance", "characters", str(path))  # a one-stalker scenario: refused
    assert result.exit_code == 2, result.output
    assert f"{_escaped(str(path))} is a one-stalker scenario" in result.output
    _clean(result.output, stem)


@pytest.mark.parametrize("stem", HOSTILE)
def test_an_existing_out_folder_is_named_escaped(tmp_path, monkeypatch, stem):
    monkeypatch.chdir(tmp_path)
    (tmp_path / stem).mkdir()
    result = run("sweep", "--stalker", "Strelok", "--vary", "enemies.Flesh.endurance=1,2",
                 "--out", stem)
    assert result.exit_code != 0
    assert f"{_escaped(stem)} exists already" in result.output
    _clean(result.output, stem)


@pytest.mark.parametrize("stem", HOSTILE)
def test_report_pages_show_a_file_name_escaped(stem):
    meta = {"scenario": stem, "scenario_path": f"/tmp/{stem}.toml",
            "ruleset_path": f"/tmp/{stem}", "command": ["zonesim", "report", f"{stem}.toml"]}
    summary = pd.DataFrame({"scenario": [stem]})
    page = html.render(f"zonesim report: {stem}", meta, [], summary, {})
    text = markdown.render(f"zonesim report: {stem}", meta, [], summary, {})
    for out in (page, text):
        _clean(out.replace(stem, stem.replace("\n", " ")) if "\n" in stem else out, stem)
        for char in stem:
            if not char.isprintable() and char != "\n":
                assert repr(char)[1:-1] in out  # shown as \x1b, \u202e
