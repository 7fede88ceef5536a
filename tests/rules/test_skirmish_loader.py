"""Skirmish ruleset and scenario files: bundled files load, bad files report every problem."""

from __future__ import annotations

import pytest

from sim.rules.errors import RulesetError
from sim.rules.skirmish_loader import load_rules, load_scenario, skirmish_root


def test_bundled_files_load():
    rules = load_rules()
    assert rules.hit_need == (8, 9, 10)                      # S-30
    assert rules.speed(2) == 6 and rules.speed(3) == 8       # S-09
    for path in sorted(skirmish_root().glob("*.toml")):
        if path.name != "rules.toml":
            scenario = load_scenario(path)
            assert len(scenario.groups) == 2


def _problems(tmp_path, text, name="x.toml"):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(RulesetError) as info:
        load_scenario(path)
    return [str(p) for p in info.value.problems]


BAD = """\
name = "bad"
distance = 12

[groups.a]
figures = 2
skill = 9
weapon = "pistl"
cover = ["open", "behind"]

[groups.b]
figures = 1
skil = 3
weapon = "pistol"
leader = "yes"
"""


def test_every_problem_with_file_line_key_and_value(tmp_path):
    problems = _problems(tmp_path, BAD)
    where = str(tmp_path / "x.toml")
    assert f"{where}:6: key 'groups.a.skill': 9 is not in 0..6" in problems
    assert any(p.startswith(f"{where}:7: key 'groups.a.weapon': 'pistl' is not a weapon")
               and "did you mean 'pistol'" in p for p in problems)
    assert f"{where}:8: key 'groups.a.cover': 'behind' is not one of open, partial, cover" \
        in problems
    assert any(p.startswith(f"{where}:12: key 'groups.b.skil': unknown key") for p in problems)
    assert f"{where}:10: key 'groups.b': group 'b' has no 'skill'" in problems
    assert f"{where}:14: key 'groups.b.leader': 'yes' is not true or false" in problems
    assert len(problems) == 6


def test_group_count_and_list_length(tmp_path):
    problems = _problems(tmp_path, 'distance = 5\n[groups.a]\nfigures = 2\nskill = [3]\n'
                                   'weapon = "pistol"\n')
    assert any("'groups.a.skill': [3] has 1 values for 2 figures" in p for p in problems)
    assert any("has 1 groups; a firefight needs 2" in p for p in problems)


def test_toml_syntax_error_names_the_line(tmp_path):
    problems = _problems(tmp_path, 'distance = 5\n[groups.a\n')
    assert len(problems) == 1 and f"{tmp_path / 'x.toml'}:2:" in problems[0]


def test_ruleset_problems_all_at_once(tmp_path):
    path = tmp_path / "rules.toml"
    path.write_text('[damage]\nfaces = ["out"]\n[received_fire]\ntrigger = "no_hit"\n'
                    '[weapons.gun]\ndice = 7\n[hit_table]\nneed = [10, 9, 8]\n')
    with pytest.raises(RulesetError) as info:
        load_rules(path)
    text = [str(p) for p in info.value.problems]
    assert f"{path}:2: key 'damage.faces': ['out'] is not a list of 6 values" in text
    assert any(t.startswith(f"{path}:4: key 'received_fire.trigger': 'no_hit' is not one of")
               and "did you mean 'not_hit'" in t for t in text)
    assert f"{path}:6: key 'weapons.gun.dice': 7 is not in 1..6" in text
    assert f"{path}:5: key 'weapons.gun': weapon 'gun' has no 'range'" in text
    assert f"{path}:8: key 'hit_table.need': [10, 9, 8] is not in increasing order" in text


def test_scenario_uses_its_own_ruleset(tmp_path):
    (tmp_path / "r.toml").write_text('[activation]\nmax_rounds = 3\n[weapons.stick]\ndice = 1\n'
                                     'range = 2\nsuppression = 0\n')
    path = tmp_path / "s.toml"
    path.write_text('ruleset = "r.toml"\ndistance = 1\n[groups.a]\nfigures = 1\nskill = 3\n'
                    'weapon = "stick"\n[groups.b]\nfigures = 1\nskill = 3\nweapon = "stick"\n')
    scenario = load_scenario(path)
    assert scenario.rules.activation_max_rounds == 3
    assert scenario.groups[0].figures[0].weapon.range == 2
