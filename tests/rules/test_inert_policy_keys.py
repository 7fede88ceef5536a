"""Policy keys that can never act on the scenario's map are refused; those inert in this
scenario are warned about (issue 43, "policy keys that can never act on the map").

A ``[policy]`` key whose place or card the ruleset does not have was played without a
word: ``sell_trophies_at`` on a map without the Duty base (the one place trophies sell,
P-26, P-28), ``helicopter_at`` without a Military base to fly to or a Helicopter call card
(Z-04, Z-05), ``exchange = true`` without the Ecologists' Bunker (P-34), a ``shopping`` item
or ``shopping_gear`` that no base of the map sells (Z-11, P-13). These are refused with
file, line, key and value (exit status 2): nothing in the scenario can make them act. A key
that merely does nothing in this scenario (a Helicopter threshold for a stalker who holds
and buys no call, ``retreat_at`` under ``economy.paid_healing = "after_knockout"``,
``bunker_choice`` on a map of one bunker) is played, with one warning line on stderr.
"""

from __future__ import annotations

import shutil
import warnings

import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.paths import bundled_ruleset, configs_root
from sim.rules import RulesetError
from sim.rules.scenario import load_scenario

BASES = {"duty": "1,0,1,base,Rostok (Duty),duty,2-3-5,",
         "military": "-5,6,1,base,Military base,military,1,",
         "ecologists": "-4,0,1,base,Ecologists' Bunker,ecologists,0,",
         "red forest": "-4,-2,1,bunker,Red Forest Bunker,,1-3,",
         "wild territory": "-2,-1,2,bunker,Wild Territory Bunker,,,",
         "agroprom": "-3,5,2,bunker,Agroprom Bunker,,,"}
"""The base ruleset's map rows of the bases a policy key needs, and of three of its four
bunkers."""


def _scenario(tmp_path, policy: str, *, without: tuple[str, ...] = (),
              rules: dict[str, str] | None = None, extra: str = ""):
    """The base scenario with ``policy`` lines, on a copy of the base ruleset whose map has
    the bases ``without`` made plain hexes (roads kept) and the ``[economy]`` keys
    ``rules`` (key to its TOML value)."""
    folder = tmp_path / "rules"
    shutil.copytree(bundled_ruleset(), folder)
    path = folder / "map.csv"
    text = path.read_text(encoding="utf-8")
    for faction in without:
        q, r, terrain, *_, roads, _ = BASES[faction].split(",")
        assert BASES[faction] in text
        text = text.replace(BASES[faction], f"{q},{r},{terrain},,,,{roads},")
    path.write_text(text, encoding="utf-8")
    toml = folder / "rules.toml"
    text = toml.read_text(encoding="utf-8")
    for key, value in (rules or {}).items():
        text = text.replace("[economy]\n", f"[economy]\n{key} = {value}\n", 1)
        text = "\n".join(line for line in text.splitlines()
                         if not line.startswith(f"{key} = ") or line == f"{key} = {value}")
    toml.write_text(text + "\n", encoding="utf-8")
    base = (configs_root() / "scenarios" / "base.toml").read_text(encoding="utf-8")
    scenario = tmp_path / "inert.toml"
    scenario.write_text(base.replace('ruleset = "base"', 'ruleset = "rules"')
                        .replace("[policy]\n", "[policy]\n" + policy, 1) + extra,
                        encoding="utf-8")
    return scenario


def _refused(path) -> list[str]:
    with pytest.raises(RulesetError) as info:
        load_scenario(path)
    return [str(p) for p in info.value.problems]


def _line(path, text: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if line.startswith(text))


def _said(path, key: str, text: str) -> str:
    """The line that names ``policy.key`` of the file ``path`` at its line, then ``text``."""
    return f"{path}:{_line(path, key)}: key 'policy.{key}': {text}"


@pytest.mark.parametrize(("line", "without", "message"), [
    ("sell_trophies_at = 3", "duty", "3 never acts: the map has no Duty base, the one place "
     "mutant trophies sell (P-26, P-28); set 0, or give the map one"),
    ("helicopter_at = 2", "military", "2 never acts: the map has no Military base, where a "
     "Helicopter call flies (Z-05); set 0, or give the map one"),
    ("exchange = true", "ecologists", "true never acts: the map has no Ecologists' base, "
     "where trophies are exchanged for artefacts (P-34); set false, or give the map one"),
])
def test_a_key_whose_base_the_map_lacks_is_refused(tmp_path, line, without, message):
    path = _scenario(tmp_path, line + "\n", without=(without,))
    assert _refused(path) == [_said(path, line.partition(" ")[0], message)]


def test_a_helicopter_without_a_call_card_is_refused(tmp_path):
    path = _scenario(tmp_path, "helicopter_at = 2\n")
    items = path.parent / "rules" / "items.csv"
    items.write_text(items.read_text(encoding="utf-8").replace(
        "Helicopter call,3000,helicopter,", "Helicopter call,3000,none,"), encoding="utf-8")
    assert _refused(path) == [_said(path, "helicopter_at", "2 never acts: no item card of the "
                                    "ruleset calls the helicopter (effect 'helicopter', Z-04); "
                                    "set 0")]


def test_exchange_left_at_its_default_is_no_request(tmp_path):
    default = load_scenario(_scenario(tmp_path, "", without=("ecologists",)))
    assert default.policy.exchange is True  # played, as always


def test_shopping_what_no_base_of_the_map_sells_is_refused(tmp_path):
    path = _scenario(tmp_path, "", without=("military",))
    text = path.read_text(encoding="utf-8").replace(
        'shopping = ["Medkit", "Stimulant"]', 'shopping = ["Medkit", "Army medkit", '
        '"Helicopter call"]')
    path.write_text(text, encoding="utf-8")
    line = _line(path, "shopping")
    assert _refused(path) == [
        f"{path}:{line}: key 'policy.shopping': 'Helicopter call' is sold at no base of the "
        "map (items.csv sold_at: military; the map's bases: duty, ecologists, freedom; Z-11)"]


def test_gear_that_no_base_of_the_map_sells_is_refused(tmp_path):
    path = _scenario(tmp_path, 'shopping_gear = ["Knife"]\n', without=("military",),
                     rules={"gear_shops": '"military"'})
    assert _refused(path) == [
        _said(path, "shopping_gear", "['Knife'] never "
            "buys: no base of the map sells gear (economy.gear_shops = 'military'; the map's "
            "bases: duty, ecologists, freedom; P-13)")]


def test_a_seat_is_refused_under_its_own_key(tmp_path):
    path = _scenario(tmp_path, "", without=("duty",),
                     extra='\n[[players]]\ncharacter = "Strelok"\n'
                           "[players.policy]\nsell_trophies_at = 2\n")
    [problem] = _refused(path)
    assert "key 'players[1].policy.sell_trophies_at': 2 never acts" in problem


def _warned(path) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_scenario(path)
    return [str(w.message) for w in caught if w.category.__name__ == "InertKeyWarning"]


def test_a_helicopter_threshold_without_a_call_is_played_with_a_warning(tmp_path):
    path = _scenario(tmp_path, "helicopter_at = 2\n")
    assert _warned(path) == [
        _said(path, "helicopter_at", "2 does nothing "
            "in this scenario: Strelok holds no Helicopter call and policy.shopping buys none "
            "(Z-04, Z-05)")]
    calls = path.read_text(encoding="utf-8").replace(
        'shopping = ["Medkit", "Stimulant"]', 'shopping = ["Helicopter call"]')
    path.write_text(calls, encoding="utf-8")
    assert _warned(path) == []


def test_retreat_under_after_knockout_healing_is_played_with_a_warning(tmp_path):
    path = _scenario(tmp_path, "", rules={"paid_healing": '"after_knockout"'})
    assert _warned(path) == [
        _said(path, "retreat_at", "2 does nothing in this "
            "scenario: under economy.paid_healing = 'after_knockout' no bunker heals a stalker "
            "who walks in (P-37)")]


def test_the_bundled_scenarios_have_no_inert_key():
    for path in sorted((configs_root() / "scenarios").glob("*.toml")):
        assert _warned(path) == [], path.name


@pytest.mark.parametrize("command", [["campaign"], ["combat", "--enemy", "Boar"]])
def test_commands_print_the_warning_once_on_stderr(tmp_path, command):
    path = _scenario(tmp_path, "helicopter_at = 2\n")
    args = [*command, str(path)] if command == ["campaign"] else \
        [*command, "--scenario", str(path)]
    result = CliRunner().invoke(main, [*args, "--trials", "20", "--format", "json"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if "helicopter_at" in line]
    assert lines == [f"zonesim: warning: {path}:{_line(path, 'helicopter_at')}: key "
                     "'policy.helicopter_at': 2 does nothing in this scenario: Strelok holds "
                     "no Helicopter call and policy.shopping buys none (Z-04, Z-05)"]
    assert "helicopter_at" not in result.stdout


def test_a_compare_variant_that_never_acts_is_refused(tmp_path):
    """``zonesim compare campaign`` builds each variant's policy from its keys: one that can
    never act on the map is refused as the scenario loader refuses it (exit status 2)."""
    path = _scenario(tmp_path, "", without=("duty",))
    result = CliRunner().invoke(main, ["compare", "campaign", str(path), "--baseline", "",
                                       "--variant", "sell_trophies_at=3", "--trials", "10"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert ("key 'policy.sell_trophies_at': 3 never acts: the map has no Duty base"
            in result.output)


def test_the_bunker_toward_the_objective_on_a_map_of_one_bunker_is_warned_about(tmp_path):
    path = _scenario(tmp_path, 'bunker_choice = "toward_objective"\n',
                     without=("red forest", "wild territory", "agroprom"))
    assert _warned(path) == [
        _said(path, "bunker_choice", ""
            "'toward_objective' does nothing in this scenario: the map has one bunker, the "
            "nearest to every place (P-38, P-41)")]


def test_a_policy_that_is_no_table_is_reported_once(tmp_path):
    """The checks above read the ``[policy]`` table as written; one that is not a table is
    one problem, not one per reader."""
    base = (configs_root() / "scenarios" / "base.toml").read_text(encoding="utf-8")
    head = base.split("[loadout]")[0].replace('ruleset = "base"',
                                              f'ruleset = "{bundled_ruleset()}"')
    path = tmp_path / "flat.toml"
    path.write_text(head + 'policy = "cautious"\n', encoding="utf-8")
    assert [p for p in _refused(path) if "'policy'" in p] == [
        f"{path}:{_line(path, 'policy')}: key 'policy': 'cautious' is not a table; write "
        "[policy] and its keys below it"]
