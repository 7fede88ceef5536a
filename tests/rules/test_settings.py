"""The table of settings (sim/rules/settings.py) held to the code, and ``zonesim settings``.

Every key a loader accepts (a ``rules.toml`` key, a ``[policy]`` key, a scenario's top-level,
``[loadout]`` and seat keys, a column of a card table or of ``map.csv``) has one row, and
nothing else has; each row is documented in docs/rules.md or docs/workflows.md, taken by
the experiments it names, set by the option it names, searched by ``zonesim optimize`` or
given a reason, moved by ``zonesim levers`` by the step it names, and copied to the campaign
parameter slot it names (issue 44).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from sim.campaign.compile import compile_campaign
from sim.cli import main
from sim.experiments import policy_keys, registry
from sim.experiments.policy_keys import POLICY_FIELDS
from sim.kernels import campaign as K
from sim.rules import scenario as S
from sim.rules import settings
from sim.rules.loader import FILES, RULES_FILE
from sim.rules.schema import MAP, MAP_COLUMNS, PARAMS, TABLES
from sim.rules.variants import VariantError, apply_edits, format_value
from sim.workflows import levers, policy_space

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "rules.md").read_text() + (ROOT / "docs" / "workflows.md").read_text()
NOTES_EVERYWHERE = "`notes` (free text) is allowed in every file"
"""docs/rules.md's one line for the ``notes`` column every file may have."""

LOADOUT_SETUP = {"stalker": "stalker", "start": "start", "armor": "loadout.armor",
                 "weapons": "loadout.weapons", "items": "loadout.items",
                 "rubles": "loadout.rubles", "artifacts": "loadout.artifacts"}
"""A setup key of the scenario's stalker, start or ``[loadout]`` and its setting."""


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def base():
    return S.load_scenario("base")


def accepted() -> set[str]:
    """Every key the loaders accept, read from what the loaders read."""
    rules = {f"{p.section}.{p.key}" for p in PARAMS}
    policy = {f"policy.{k}" for k in S.POLICY_TYPES}
    top = {k for k in S.TOP_KEYS if k not in ("loadout", "policy")}
    loadout = {f"loadout.{k}" for k in S.LOADOUT_KEYS}
    seats = {f"players.{k}" for k in S.PLAYER_KEYS if k not in ("loadout", "policy")}
    csv = {name.removesuffix(".csv") for name in FILES if name != RULES_FILE}
    columns = {f"{t}.{c.name}" for t in csv if t != MAP for c in TABLES[t]}
    columns |= {f"{MAP}.{c.name}" for c in MAP_COLUMNS}
    return rules | policy | top | loadout | seats | columns


def undeclared() -> set[str]:
    """The keys a loader accepts that the table has no row for."""
    return accepted() - set(settings.by_name())


def test_every_key_the_loaders_accept_is_declared_and_nothing_else():
    names = [s.name for s in settings.settings()]
    assert len(names) == len(set(names))
    assert undeclared() == set()
    assert set(names) == accepted()
    assert {s.kind for s in settings.settings()} == set(settings.KINDS)
    assert settings.EXPERIMENTS == registry.NAMES


def test_a_key_added_to_the_loader_alone_is_caught(monkeypatch):
    """Guard: a scenario key the loader accepts with no row in the table fails the test."""
    monkeypatch.setattr(S, "LOADOUT_KEYS", S.LOADOUT_KEYS | {"helmet"})
    monkeypatch.setattr(S, "POLICY_TYPES", {**S.POLICY_TYPES, "hide_at": int})
    monkeypatch.setattr(S, "TOP_KEYS", S.TOP_KEYS | {"weather"})
    assert undeclared() == {"loadout.helmet", "policy.hide_at", "weather"}


def _with_fields(monkeypatch, *fields):
    """:class:`Policy` with ``fields`` added (its docstring gives each new key the words
    ``hide_at`` has: ``Hide at this Health or less``), as the table and the experiments'
    policy keys read it."""
    extended = dataclasses.make_dataclass("Policy", fields, bases=(S.Policy,), frozen=True)
    extended.__doc__ = S.Policy.__doc__.replace(
        "    artifact_use : tuple", "    hide_at, duck : int\n        Hide at this Health or "
        "less (Z-12).\n    artifact_use : tuple")
    monkeypatch.setattr(settings, "Policy", extended)
    monkeypatch.setattr(policy_keys, "Policy", extended)
    settings.settings.cache_clear()
    return extended


def test_a_policy_field_without_its_declaration_is_refused_by_name(monkeypatch):
    """A new :class:`Policy` field is a scenario key at once (POLICY_TYPES reads the fields);
    the table refuses to be built until the field declares its setting (policy_key)."""
    _with_fields(monkeypatch, ("hide_at", int, 0))
    try:
        with pytest.raises(TypeError, match="'hide_at' declares no experiments, option"):
            settings.settings()
    finally:
        settings.settings.cache_clear()


def test_a_declared_policy_field_without_words_is_refused_by_name(monkeypatch):
    extended = dataclasses.make_dataclass(
        "Policy", [("hide_at", int, S.policy_key(0))], bases=(S.Policy,), frozen=True)
    extended.__doc__ = S.Policy.__doc__
    monkeypatch.setattr(settings, "Policy", extended)
    settings.settings.cache_clear()
    try:
        with pytest.raises(TypeError, match="'hide_at' has no words in the Attributes"):
            settings.settings()
    finally:
        settings.settings.cache_clear()


def test_a_policy_key_is_one_field(monkeypatch):
    """Guard of issue 44: one :class:`Policy` field declared by ``policy_key`` is a scenario
    key, a setting with its option, experiments, search, slot and choices, and a key the
    loader types and checks; no other line of the rules layer names it."""
    later = S.SEARCH_LATER + "; it acts only while hidden (Z-12)"
    extended = _with_fields(
        monkeypatch,
        ("hide_at", int, S.policy_key(0, ("combat", "campaign"), option="--hide-at",
                                      slot="C_STIMULANT_AT")),
        ("duck", str, S.policy_key("no", searched=later, choices=("no", "yes"))))
    try:
        rows = settings.by_name()
        hide, duck = rows["policy.hide_at"], rows["policy.duck"]
        assert (hide.type, hide.default, hide.option, hide.experiments, hide.searched,
                hide.slot, hide.bound, hide.rules) == (
            "int", 0, "--hide-at", ("combat", "campaign"), True, "C_STIMULANT_AT", "health",
            ("Z-12",))
        assert (duck.type, duck.domain, duck.choices, duck.searched, duck.experiments) == (
            "choice", "no, yes", ("no", "yes"), later, ("campaign",))
        assert hide.doc == "Hide at this Health or less (Z-12)"
        assert S.policy_types(extended)["hide_at"] is int
        assert S.policy_types(extended)["duck"] is str
    finally:
        settings.settings.cache_clear()


def test_a_choice_kind_of_variant_value_is_a_declared_choice_key():
    """Each choice kind a variant reads is a ``str`` policy key's declared choices, named as
    its setup key (issue 44: no hand-written list of them in sim.workflows.compare)."""
    from sim.workflows import compare

    assert compare.CHOICES is policy_keys.CHOICES
    assert policy_keys.CHOICES == {
        {"encounters": "policy"}.get(f, f): S.POLICY_CHOICES[f] for f in S.POLICY_CHOICES}
    kinds = {kind for e in registry.experiments() for _, kind in e.keys.values()}
    assert set(policy_keys.CHOICES) <= kinds


def test_the_loader_checks_a_policy_keys_declared_choices():
    assert S.POLICY_CHOICES == {
        f.name: settings.by_name()[f"policy.{f.name}"].choices
        for f in dataclasses.fields(S.Policy) if f.type == "str"}
    assert set(S.POLICY_CHOICES) == {"sneak", "encounters", "objective", "knockout_loss",
                                     "bunker_choice"}


def test_an_encounter_policy_key_is_a_variant_scenario_and_option_key(monkeypatch):
    """Guard of issue 44: the encounters' policy variant keys, scenario keys and option keys
    are the table's ``experiments`` and ``option`` columns, in field order; a new field is one
    of each of the experiments it names (a table of numbers, as ``weights``, a scenario key
    only; an option key where it has an option and whole games play it too)."""
    for name in ("combat", "anomaly", "event"):
        exp = registry.experiment(name)
        assert exp.scenario_keys[-len(policy_keys.setup_keys(name)):] == \
            policy_keys.setup_keys(name)
        assert policy_keys.variant_keys(name).items() <= exp.keys.items()
        options = policy_keys.option_keys(name)
        assert [k for k in exp.option_keys if k in policy_keys.setup_keys(name)] == list(options)
    assert policy_keys.setup_keys("combat") == ("sneak", "flee_at", "heal_at", "policy",
                                                "objective", "weights")
    assert policy_keys.option_keys("anomaly") == ("enter",)
    assert registry.experiment("campaign").option_keys[-3:] == policy_keys.option_keys("combat")
    _with_fields(
        monkeypatch,
        ("hide_at", int, S.policy_key(0, ("combat", "event", "campaign"), option="--hide-at")),
        ("duck", str, S.policy_key("no", settings.ENCOUNTERS, choices=("no", "yes"),
                                   searched="a fight's choice")))
    try:
        assert policy_keys.setup_keys("combat")[-2:] == ("hide_at", "duck")
        assert policy_keys.setup_keys("anomaly")[-1] == "duck"
        assert list(policy_keys.variant_keys("event").items())[-2:] == [
            ("hide_at", ("hide_at", "int")), ("duck", ("duck", "duck"))]
        assert "weights" not in policy_keys.variant_keys("combat")
        assert policy_keys.option_keys("combat") == ("sneak", "flee_at", "heal_at", "hide_at")
        assert policy_keys.option_keys("event") == ("hide_at",)
    finally:
        settings.settings.cache_clear()


def documented_columns() -> dict[str, set[str]]:
    """The columns docs/rules.md lists per file ("Tables" and "map.csv"), ``notes`` in all."""
    text = (ROOT / "docs" / "rules.md").read_text()
    parts = {None: text.split("### Tables")[1].split("### rules.toml")[0],
             MAP: text.split("### map.csv")[1].split("### Movement")[0]}
    out: dict[str, set[str]] = {}
    for table, part in parts.items():
        current = table
        for line in part.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not line.startswith("| ") or len(cells) < 2:
                continue
            if table is None:
                current = cells[0].removesuffix(".csv") if cells[0] else current
                cells = cells[1:]
            for name in cells[0].split(","):
                name = re.sub(r"\(.*?\)", "", name).strip().strip("`")
                out.setdefault(current, set()).add(name)
    if NOTES_EVERYWHERE in text:
        for columns in out.values():
            columns.add("notes")
    return out


def test_every_setting_is_documented():
    columns = documented_columns()
    missing = []
    for s in settings.settings():
        head, _, tail = s.name.partition(".")
        if s.kind == "card":
            ok = tail in columns.get(head, ())
        else:
            ok = any(f"`{n}`" in DOCS for n in (s.name, tail or head)) or f"[[{head}]]" in DOCS
        if not ok:
            missing.append(s.name)
    assert missing == []
    assert all(s.doc and s.domain and s.type for s in settings.settings()), \
        [s.name for s in settings.settings() if not (s.doc and s.domain and s.type)]


def rule_meanings() -> dict[str, str]:
    """The Meaning cell of each ``rules.toml`` key's row in docs/rules.md, as text: without
    backticks, links and step references."""
    text = (ROOT / "docs" / "rules.md").read_text()
    out = {}
    for line in text.splitlines():
        m = re.match(r"\| `([a-z_]+\.[a-z_]+)` \|", line)
        if m:
            cell = line.strip().strip("|").split("|")[-1].strip().replace("`", "")
            out[m.group(1)] = re.sub(r" \(see \[[^]]*\]\([^)]*\)\)| \(step \d\)", "", cell)
    return out


def test_a_rule_keys_doc_line_is_its_documented_meaning():
    """Each ``rules.toml`` key's one-line doc (``Param.doc``) begins its row of
    docs/rules.md, so ``zonesim settings`` and the documentation say the same."""
    meanings = rule_meanings()
    for p in PARAMS:
        name = f"{p.section}.{p.key}"
        assert p.doc and meanings[name].startswith(p.doc), name


def test_the_documentation_check_can_fail(monkeypatch):
    """Guard: a card column added to the schema alone is reported as undocumented."""
    extra = dataclasses.replace(TABLES["enemies"][1], name="cunning")
    monkeypatch.setitem(TABLES, "enemies", (*TABLES["enemies"], extra))
    settings.settings.cache_clear()
    try:
        assert "enemies.cunning" in settings.by_name()
        assert "cunning" not in documented_columns()["enemies"]
    finally:
        settings.settings.cache_clear()


def setting_of(setup_key: str) -> str | None:
    """The setting a setup key of an experiment sets; None for the experiment's own keys
    (the card met, the state at the start of an encounter, the Intellect)."""
    if setup_key in LOADOUT_SETUP:
        return LOADOUT_SETUP[setup_key]
    field = POLICY_FIELDS.get(setup_key, setup_key)
    return f"policy.{field}" if field in S.POLICY_TYPES else None


def test_policy_and_loadout_settings_name_the_experiments_that_take_them(base):
    for exp in registry.experiments():
        keys = [setup for setup, _ in exp.keys.values()] + list(exp.scenario_keys)
        if exp.from_scenario is not None:
            keys += list(exp.from_scenario(base))
        taken = {setting_of(k) for k in keys} - {None}
        named = {s.name for s in settings.settings() if exp.name in s.experiments
                 and s.name in set(LOADOUT_SETUP.values()) | {f"policy.{k}"
                                                              for k in S.POLICY_TYPES}}
        assert taken == named, exp.name


def _text(value) -> str:
    """A value as an edit writes it (a cell of a card, a ``rules.toml`` value)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(int(value))
    return format_value(value) if isinstance(value, int | float) else str(value)


def test_rule_keys_and_card_columns_are_accepted_as_edits(base):
    rs = base.ruleset
    for s in settings.settings():
        if s.kind == "rule":
            edit = f"rules.{s.name}={_text(s.value(base))}"
        elif s.kind == "card" and s.name.endswith(".name") and s.name != "map.name":
            assert s.experiments == () and isinstance(s.lever, str), s.name
            table = s.name.split(".")[0]
            with pytest.raises(VariantError, match="name cannot be edited"):
                apply_edits(rs, [f"{table}.{next(iter(s.value(base)))}.name=Other"])
            continue
        elif s.kind == "card" and s.experiments:
            table, column = s.name.split(".")
            card, value = next(iter(s.value(base).items()))
            edit = f"{table}.{card}.{column}={_text(value)}"
        else:
            continue
        assert s.experiments == registry.NAMES, s.name
        apply_edits(rs, [edit])


def _options(command: click.Command, path=()):
    yield path, command
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            yield from _options(command.get_command(ctx, name), (*path, name))


def test_every_option_reaches_a_command_of_its_experiments():
    commands = {path: {o for p in c.params for o in getattr(p, "opts", ())}
                for path, c in _options(main)}
    for s in settings.settings():
        if not s.option:
            continue
        where = [(e,) for e in s.experiments] + [("compare", e) for e in s.experiments]
        assert any(s.option in commands.get(path, ()) for path in where), s.name


def test_a_policy_option_is_built_from_its_setting():
    """Every command's option of a ``[policy]`` key has the type its setting declares: a
    flag for a bool, the setting's choices, the thresholds' 0..1000 (issue 44)."""
    commands = list(_options(main))
    seen = 0
    for s in settings.of_kind("policy"):
        for path, command in commands:
            for p in command.params:
                if s.option not in getattr(p, "opts", ()):
                    continue
                seen += 1
                if s.type == "bool":
                    assert p.is_flag and p.default is False, (path, s.name)
                elif s.type == "choice":
                    assert tuple(p.type.choices) == s.choices, (path, s.name)
                    assert p.default == s.default, (path, s.name)
                else:
                    assert (p.type.min, p.type.max, p.default) == (0, S.MAX_THRESHOLD, 0), \
                        (path, s.name)
    assert seen >= 20


def test_a_fight_policy_key_is_an_option_with_no_other_line(monkeypatch):
    """Guard of issue 44: a new threshold of fights and whole games, declared by its
    :class:`Policy` field, is a fight policy option (``zonesim combat``, ``sweep``, ``tune``,
    ``compare combat``), its help the setting's doc line; a key no option reads is refused
    by name."""
    from sim.cli import common

    _with_fields(monkeypatch, ("hide_at", int, S.policy_key(0, ("combat", "campaign"),
                                                            option="--hide-at")))
    try:
        options = common._fight_policy_options()
        assert list(options) == ["sneak", "flee_at", "heal_at", "hide_at"]
        command = options["hide_at"](click.Command("x"))
        (param,) = command.params
        assert (param.opts, param.name, param.type.max, param.default) == (
            ["--hide-at"], "hide_at", S.MAX_THRESHOLD, 0)
        assert param.help == "Hide at this Health or less (Z-12)."
        with pytest.raises(TypeError, match="no setting has the option --nope"):
            common.setting_option("--nope")
        with pytest.raises(TypeError, match="'loadout.weapons' .cards, option --weapon."):
            common.setting_option("--weapon")
    finally:
        settings.settings.cache_clear()


def test_every_command_with_the_fight_policy_options_takes_a_new_one():
    """A command built with the fight policy options takes them as keyword arguments, so the
    option of a new key reaches it (and its setup, ``option_values``) with no line of its own:
    no command names them in its signature."""
    from sim.cli import common

    params = set(common.FIGHT_POLICY_OPTIONS)
    commands = [(path, c) for path, c in _options(main)
                if params <= {p.name for p in c.params} and c.callback is not None]
    assert {path for path, _ in commands} >= {("combat",), ("sweep",), ("tune",),
                                              ("compare", "combat")}
    for path, command in commands:
        signature = inspect.signature(command.callback)
        assert not params & set(signature.parameters), path
        assert any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()), path


def test_the_scenario_help_names_every_threshold_an_encounter_takes_from_it():
    from sim.cli import common

    words = common.SCENARIO_HELP.partition("policy (")[2].partition(")")[0].split(", ")
    options = {s.option.removeprefix("--") for s in settings.of_kind("policy")
               if s.option and "campaign" in s.experiments
               and set(s.experiments) & set(settings.ENCOUNTERS)}
    assert set(words) == options == {"sneak", "flee-at", "heal-at", "enter"}


def test_every_setting_is_searched_by_optimize_or_says_why():
    names = {k: LOADOUT_SETUP.get(k, f"policy.{k}") for k in policy_space.KEYS}
    searched = {s.name for s in settings.settings() if s.searched is True}
    assert searched == set(names.values())
    for s in settings.settings():
        assert s.searched is True or (isinstance(s.searched, str) and s.searched), s.name


def test_a_stalker_bound_range_is_the_range_optimize_searches(base):
    """A policy threshold's domain gives, for the scenario's stalker, the values that act
    differently: those ``zonesim optimize`` races (0 .. the card's Health)."""
    setup = registry.experiment("campaign").from_scenario(base)
    dims = policy_space.space(base.ruleset, setup, policy_space.THRESHOLDS)
    for d in dims:
        s = settings.by_name()[f"policy.{d.key}"]
        assert s.bound == "health"
        assert s.domain_of(base).endswith(f"; Strelok: {d.values[0]}..{d.values[-1]}")
    assert settings.by_name()["policy.calm_at"].domain_of(base) == \
        settings.by_name()["policy.calm_at"].domain


def test_lever_steps_are_the_levers_steps(base):
    """Every value ``zonesim levers`` moves is a setting with that step; a setting that gives
    a reason is moved by none (a numeric column all of whose base cells are empty, such as
    ``anomalies.find``, is moved where a card fills it)."""
    by_name = settings.by_name()
    moved = set()
    for lv in levers.find_levers(base.ruleset):
        name = f"{lv.card}.{lv.column}" if lv.table == "rules" else f"{lv.table}.{lv.column}"
        assert by_name[name].lever == lv.step, name
        moved.add(name)
    for s in settings.settings():
        if isinstance(s.lever, str):
            assert s.lever and s.name not in moved, s.name
        else:
            assert s.kind in ("rule", "card") and s.lever > 0, s.name
    assert len(moved) >= 80


def _moved(s: settings.Setting, value):
    """A value of ``s`` other than ``value`` that the loaders accept."""
    if isinstance(value, bool):
        return not value
    lo, _, hi = s.domain.partition(" ")[0].partition("..")
    return value + 1 if not hi or value + 1 <= int(hi) else value - 1


def test_every_named_slot_holds_a_plain_copy(base):
    """The campaign parameter a setting names holds its value, in the base scenario and
    with every such setting moved at once."""
    slotted = [s for s in settings.settings() if s.slot]
    assert len(slotted) >= 40
    assert all(hasattr(K, s.slot) for s in slotted)
    edits = [f"rules.{s.name}={_text(_moved(s, s.value(base)))}"
             for s in slotted if s.kind == "rule"]
    policy = {s.name.partition(".")[2]: _moved(s, s.value(base))
              for s in slotted if s.kind == "policy"}
    moved = dataclasses.replace(base, ruleset=apply_edits(base.ruleset, edits),
                                policy=dataclasses.replace(base.policy, **policy),
                                rubles=base.rubles + 100)
    for scenario in (base, moved):
        cp = compile_campaign(scenario).cp
        for s in slotted:
            assert cp[getattr(K, s.slot)] == int(s.value(scenario)), s.name
    assert all(s.value(base) != s.value(moved) for s in slotted)


def test_settings_json_lists_every_key_with_the_documented_fields():
    result = run("settings", "base", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["settings"]
    assert {r["name"] for r in rows} == accepted()
    for row in rows:
        assert list(row) == ["name", "kind", "type", "domain", "default", "value", "doc",
                             "rules", "option", "experiments", "searched", "lever"]
    flee = next(r for r in rows if r["name"] == "policy.flee_at")
    assert flee["option"] == "--flee-at" and flee["searched"] is True
    assert flee["experiments"] == ["combat", "campaign"] and flee["rules"] == ["P-21", "Z-12"]
    hands = next(r for r in rows if r["name"] == "combat.hands")
    assert (hands["kind"], hands["value"], hands["lever"]) == ("rule", 2, 1)
    price = next(r for r in rows if r["name"] == "items.price")
    assert price["value"]["Medkit"] > 0 and price["lever"] == settings.MONEY_STEP


@pytest.mark.parametrize("kind", settings.KINDS)
def test_settings_kind_lists_that_kind_only(kind):
    result = run("settings", "--kind", kind, "--format", "json")
    rows = json.loads(result.stdout)["settings"]
    assert rows and {r["kind"] for r in rows} == {kind}
    assert len(rows) == len(settings.of_kind(kind))


def test_settings_table_and_bad_kind():
    table = run("settings", "base", "--kind", "policy")
    assert table.exit_code == 0, table.output
    assert "policy.flee_at" in table.stdout and "combat, campaign, --flee-at, optimize" \
        in table.stdout
    bad = run("settings", "--kind", "rules")
    assert bad.exit_code == 2 and "'rules' is not one of" in bad.output


def test_settings_csv_keeps_names_as_text(tmp_path):
    """A stalker named like a formula is a value in the CSV, not a formula."""
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "configs" / "base", rules)
    stalkers = rules / "stalkers.csv"
    stalkers.write_text(stalkers.read_text().replace("Strelok", "=HYPERLINK(1)"))
    scenario = tmp_path / "odd.toml"
    text = (ROOT / "configs" / "scenarios" / "base.toml").read_text()
    scenario.write_text(text.replace('ruleset = "base"', 'ruleset = "rules"')
                        .replace('"Strelok"', '"=HYPERLINK(1)"'))
    result = run("settings", str(scenario), "--kind", "loadout", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert "'=HYPERLINK(1)" in result.stdout
    assert ",=HYPERLINK" not in result.stdout
