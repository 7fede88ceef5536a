"""What if: a scenario against itself with some settings edited, streamed as games accrue.

The library behind ``zonesim studio`` (issue 49), which only shows what this module
returns. An *edit* names one setting of the settings table (:mod:`sim.rules.settings`)
and its new value as text: a card cell ``enemies.Bloodsucker.endurance`` (table, card,
column), a ``rules.toml`` key ``combat.max_rounds``, a policy key ``policy.sneak`` or a
scenario key ``loadout.armor``, ``stalker``, a hex of the map ``map.0,-5.terrain`` (the hex
``q,r``, column), or one entry of a table setting (:attr:`Setting.entries
<sim.rules.settings.Setting.entries>`): ``policy.artifact_use.Flash`` (``always``, ``never``
or a Health, as ``zonesim compare``'s ``artifact_use=NAME:USE``), ``policy.weights.wound``
(a number), ``targets.p_sarcophagus.low`` (a bound; both bounds empty: no target).
:func:`check` validates edits as the loaders do, with the messages ``zonesim validate``
gives (``enemies.csv:5: column 'endurance': 99 is not in 1..10``), every problem at once;
:func:`variant` applies them.

A run (:func:`stream`) plays the baseline (the scenario as loaded) and the variant on
common random numbers: game ``t`` of both sides rolls the streams of ``(seed, t)``
(:func:`sim.experiments.campaign_paired.trial_values`), so the paired difference of a
small edit is far narrower than that of two independent runs. Games are played in
chunks sized to take about :data:`CHUNK_SECONDS`, so a stop is heard within a second, and
after each chunk every :data:`SHOWN` metric's estimate of each side and their paired
difference carry an anytime-valid 95 % interval (:class:`sim.stats.ConfidenceSequence`):
the page may be watched and stopped when it looks decided without losing the coverage.
The numbers after ``n`` games depend only on the seed, the edits and ``n``, never on the
chunks. :func:`card_tables` gives the deck tables of the touched cards (exact values
where the encounter has them), baseline and variant side by side; :func:`export_zip` the
edits as a ruleset folder with a scenario TOML; :func:`suggestions` the edit sets ``zonesim
rebalance`` proposes for balance targets, as edits the studio applies.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import math
import threading
import time
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import tomlkit

from sim import stats
from sim.errors import InputError
from sim.experiments import campaign_metrics as M
from sim.experiments import registry
from sim.experiments.base import Case, CompareInputError
from sim.experiments.campaign_paired import (
    CAMPAIGN_KEYS,
    compile_cases,
    scenario_of,
    scenario_setup,
    trial_values,
)
from sim.experiments.setups import scenario_values
from sim.rules import Ruleset
from sim.rules import validate as v
from sim.rules.cardfile import ROW_KEYS, with_cells
from sim.rules.errors import Problem
from sim.rules.loader import RULES_FILE, read_map
from sim.rules.scenario import Scenario, read_table
from sim.rules.schema import MAP, MAP_COLUMNS, NOTES, TABLES
from sim.rules.settings import Setting, by_name
from sim.rules.variants import RULES_TABLE, CardEdit, VariantError, apply_edits, format_value
from sim.workflows import compare
from sim.workflows.scenario_toml import changed_scenario

SHOWN: tuple[str, ...] = (M.WIN_RATE, M.REACH, M.GAME_DAYS, *(f"causes.{c}" for c in M.DEATHS),
                          M.CAPPED)
"""The metrics a what-if run shows, in order: the win rate, P(reach the Sarcophagus), the
days a game lasts and how games are lost (:mod:`sim.experiments.campaign_metrics`)."""
CHUNK_SECONDS = 0.25
"""A chunk of games is sized to take about this long: a stop is heard within a second and
the numbers move at least twice a second."""
FIRST_CHUNK = 64
"""Games of each side in the first chunk (then sized by the time the last one took)."""
MAX_CHUNK = 20_000
"""Games of each side in a chunk at most."""
DECK_TRIALS = 20_000
"""Trials per touched card's deck table."""
DECK_TABLES = {e.card_table: e.name for e in registry.encounters()}
"""The card tables an encounter experiment meets card by card, and its name."""
LOADOUT_KEYS = {"stalker": "stalker", "loadout.armor": "armor", "loadout.weapons": "weapons",
                "loadout.items": "items", "loadout.rubles": "rubles",
                "loadout.artifacts": "artifacts"}
"""Each editable scenario setting and its ``campaign`` variant key."""
SEPARATOR = ","
"""Between the cards of a list value (``loadout.items``: ``Medkit,Medkit``)."""
MAP_KEYS = ROW_KEYS[MAP]
"""The columns that name a hex of ``map.csv`` (its key ``q,r``); the others are edited."""
BOUNDS = ("low", "high")
"""The two entries of a target's range (``targets.METRIC.low``)."""


class EditError(InputError):
    """Edits that cannot be applied: every problem, each a :class:`Trouble`."""

    def __init__(self, troubles: Sequence[Trouble]) -> None:
        super().__init__("; ".join(t.message for t in troubles), "edits")
        self.troubles = tuple(troubles)


@dataclass(frozen=True)
class Trouble:
    """One edit's problem: the edit's key and the message (``zonesim validate``'s words)."""

    key: str
    message: str


def setting_of(key: str) -> Setting | None:
    """The setting an edit's key names (a card cell's or a hex's is its column's, a table
    entry's its table's), None if none.
    """
    known = by_name()
    if key in known:
        return known[key]
    table, _, rest = key.partition(".")
    _, dot, column = rest.rpartition(".")
    if dot and (table in TABLES or table == MAP):
        return known.get(f"{table}.{column}")
    return next((s for name, s in known.items()
                 if s.entries is not None and key.startswith(f"{name}.")), None)


def editable(s: Setting) -> bool:
    """Whether the studio edits setting ``s``: every rule key and card column that whole
    games read, every map column but a hex's coordinates and notes, every policy key they
    take, the stalker, the loadout, and each table setting (``policy.weights`` and
    ``targets`` reach the export and the report, not whole games).
    """
    if s.entries is not None:
        return True
    table, _, column = s.name.partition(".")
    if s.kind == "card" and table == MAP:
        return column not in (*MAP_KEYS, NOTES.name)
    if s.kind in ("rule", "card"):
        return bool(s.experiments)
    if s.kind == "policy":
        return column in CAMPAIGN_KEYS
    return s.name in LOADOUT_KEYS


def _card_edit(rs: Ruleset, key: str, text: str) -> tuple[CardEdit | None, Trouble | None]:
    """A card cell's edit, its cell checked as the loader checks it."""
    table, _, rest = key.partition(".")
    card, _, column = rest.rpartition(".")
    rows = getattr(rs, table)
    if card not in rows:
        return None, Trouble(key, f"{table}.csv: no card {card!r}")
    col = {c.name: c for c in TABLES[table]}.get(column)
    if col is None or column == "name":
        return None, Trouble(key, f"{table}.csv: column {column!r} cannot be edited")
    _, message = v.parse_cell(col, text)
    if message is not None:
        problem = Problem(f"{table}.csv", rs.lines.get((table, card)), column, text, message)
        return None, Trouble(key, str(problem))
    return CardEdit(table, card, column, text), None


def _list(text: str) -> tuple[str, ...]:
    cards = tuple(c.strip() for c in text.split(SEPARATOR) if c.strip())
    return () if [c.lower() for c in cards] == ["none"] else cards


def _override(key: str, text: str) -> tuple[str, object]:
    """A policy or scenario edit as a ``campaign`` setup key and value, read as ``zonesim
    compare --variant`` reads it (:func:`sim.workflows.compare.parse_variant`).
    """
    name = LOADOUT_KEYS.get(key) or key.partition(".")[2]
    if name in ("weapons", "items", "artifacts"):
        return name, _list(text)
    if ";" in text:
        raise CompareInputError(f"key {key!r}: {v.show(text)}: ';' is not allowed here")
    parsed = compare.parse_variant(f"{name}={text}", registry.experiment("campaign"))
    return parsed.overrides[0] if parsed.overrides else (name, ())


@dataclass(frozen=True)
class Variant:
    """A scenario with edits applied: what :func:`stream` plays against the baseline.

    Attributes
    ----------
    edits : tuple of (str, str)
        The edits as given, in order (key, text).
    base, case : Case
        The scenario as loaded, and with the edits (ruleset and ``campaign`` setup).
    tables : tuple of (str, object)
        Each edited table setting whole games do not take (``policy.weights``,
        ``targets``) and its whole new value, as the scenario holds it: the export and
        the report write them.
    """

    edits: tuple[tuple[str, str], ...]
    base: Case
    case: Case
    tables: tuple[tuple[str, object], ...] = ()

    def touched(self) -> list[tuple[str, str]]:
        """The (table, card) of each card the edits change, once each, in order."""
        out = []
        for key, _ in self.edits:
            table, _, rest = key.partition(".")
            if table in TABLES and (table, rest.rpartition(".")[0]) not in out:
                out.append((table, rest.rpartition(".")[0]))
        return out


def variant(scenario: Scenario, edits: Mapping[str, str]) -> Variant:
    """``scenario`` with ``edits`` (key -> text) applied, every edit checked.

    Raises
    ------
    EditError
        Every edit that cannot be applied, with its message: a cell as ``zonesim
        validate`` words it (file, line, column, value), a rule key, a policy or loadout
        value as ``zonesim compare --variant`` does, and a setting no edit may change.
    """
    troubles: list[Trouble] = []
    cards: list[CardEdit] = []
    hexes: list[CardEdit] = []
    entries: dict[str, dict[str, str]] = {}
    setup = dict(scenario_setup(scenario))
    for key, text in edits.items():
        text = str(text).strip()
        s = setting_of(key)
        if s is None or not editable(s):
            troubles.append(Trouble(key, f"{v.show(key)} is not a setting the studio edits"))
        elif s.entries is not None and key != s.name:
            entries.setdefault(s.name, {})[key.removeprefix(f"{s.name}.")] = text
        elif s.kind == "card" and key.startswith(f"{MAP}."):
            rest = key.removeprefix(f"{MAP}.")
            hexes.append(CardEdit(MAP, *rest.rpartition(".")[::2], text))
        elif s.kind == "card":
            edit, trouble = _card_edit(scenario.ruleset, key, text)
            troubles += [trouble] if trouble else []
            cards += [edit] if edit else []
        elif s.kind == "rule":
            section, _, name = key.partition(".")
            cards.append(CardEdit(RULES_TABLE, section, name, text))
        else:
            try:
                name, value = _override(key, text)
                setup[name] = value
            except CompareInputError as error:
                troubles.append(Trouble(key, str(error)))
    tables = _entries(scenario, entries, setup, troubles)
    for edit in cards:  # each alone first, so that every bad edit is named
        try:
            apply_edits(scenario.ruleset, [edit])
        except VariantError as error:
            troubles.append(Trouble(_key_of(edit), _where(edit, error)))
    ruleset = scenario.ruleset
    if not troubles:
        try:
            ruleset = apply_edits(scenario.ruleset, cards)
        except VariantError as error:
            troubles.append(Trouble("", str(error)))
    if hexes:
        ruleset = _map_edits(scenario, ruleset, hexes, troubles)
    try:
        scenario_of(Case(ruleset, setup))
    except CompareInputError as error:
        troubles.append(Trouble("", str(error)))
    if troubles:
        raise EditError(troubles)
    base = Case(scenario.ruleset, scenario_setup(scenario))
    return Variant(tuple((k, str(t).strip()) for k, t in edits.items()), base,
                   Case(ruleset, setup), tables)


def _given(text: str) -> object:
    """An entry's text as the scenario file would hold it: a whole number, a number, else
    the text itself (the loader then names it in its message).
    """
    try:
        return int(text) if text.lstrip("+-").isdigit() and len(text) <= v.MAX_DIGITS \
            else float(text)
    except ValueError:
        return text


def _entries(scenario: Scenario, entries: Mapping[str, Mapping[str, str]],
             setup: dict, troubles: list[Trouble]) -> tuple[tuple[str, object], ...]:
    """Apply the table entries' edits: ``policy.artifact_use`` to ``setup`` (whole games
    play it), read as ``zonesim compare``'s ``artifact_use=NAME:USE``; ``policy.weights``
    and ``targets`` checked as the scenario file's tables are, returned whole.
    """
    out = []
    for name, given in entries.items():
        keys = {entry: f"{name}.{entry}" for entry in given}
        if name == "policy.artifact_use":
            table = dict(setup.get("artifact_use", ()))
            for card, text in given.items():
                try:
                    if ";" in card + text:
                        raise CompareInputError(f"key {keys[card]!r}: ';' is not allowed here")
                    _, value = _override(name, f"{card}:{text}")
                except CompareInputError as error:
                    troubles.append(Trouble(keys[card], str(error)))
                    continue
                table.pop(card, None)
                table.update(dict(value))
            setup["artifact_use"] = tuple(sorted(table.items()))
            continue
        if name == "targets":
            now: dict = {m: list(r) for m, r in scenario.targets.items()}
            for entry, text in given.items():
                metric, _, side = entry.rpartition(".")
                if side not in BOUNDS or not metric:
                    troubles.append(Trouble(keys[entry], f"{v.show(keys[entry])}: a target is "
                                            "edited by its bounds, targets.METRIC.low and "
                                            "targets.METRIC.high"))
                    continue
                now.setdefault(metric, ["", ""])[BOUNDS.index(side)] = (
                    _given(text) if text else "")
            now = {m: r for m, r in now.items() if r != ["", ""]}
            where = {f"{name}.{e.rpartition('.')[0]}": k for e, k in keys.items()}
        else:
            now = dict(getattr(scenario.policy, name.partition(".")[2]))
            for entry, text in given.items():
                now[entry] = _given(text)
                if not text:
                    del now[entry]
            where = {k: k for k in keys.values()}
        value, problems = read_table(scenario, name, now, Path(scenario.path).name)
        troubles += [Trouble(where.get(p.column or "", ""), str(p)) for p in problems]
        out.append((name, value))
    return tuple(out)


def _map_edits(scenario: Scenario, ruleset: Ruleset, hexes: Sequence[CardEdit],
               troubles: list[Trouble]) -> Ruleset:
    """``ruleset`` with the edited hexes' cells of ``map.csv`` set, the map read and checked
    as the loader does (each problem on the edit of its hex and column where one is).
    """
    path = Path(scenario.ruleset.path) / f"{MAP}.csv"
    known = {c.name for c in MAP_COLUMNS}
    lines = {f"{h.q},{h.r}": h.line for h in scenario.ruleset.map.hexes}
    good = []
    for edit in hexes:
        key = f"{MAP}.{edit.card}.{edit.column}"
        if edit.card not in lines:
            troubles.append(Trouble(key, f"{MAP}.csv: no hex {edit.card!r} (a hex is q,r)"))
        elif edit.column not in known:
            troubles.append(Trouble(key, f"{MAP}.csv: no column {edit.column!r}"))
        else:
            good.append(edit)
    if not good:
        return ruleset
    text = with_cells(path.read_text(encoding="utf-8"),
                      ((e.card, e.column, e.text) for e in good), MAP_KEYS)
    edited, problems = read_map(f"{MAP}.csv", text, ruleset.rules)
    for p in problems:
        mine = [e for e in good if lines[e.card] == p.line]
        key = next((e for e in mine if e.column == p.column), mine[0] if mine else None)
        troubles.append(Trouble("" if key is None else f"{MAP}.{key.card}.{key.column}",
                                str(p)))
    if edited is None:
        return ruleset
    digest = hashlib.sha256(ruleset.sha256.encode())
    for e in good:
        digest.update(f"\0{MAP}.{e.card}.{e.column}={e.text}".encode())
    return dataclasses.replace(ruleset, map=edited, sha256=digest.hexdigest())


def _key_of(edit: CardEdit) -> str:
    """The studio's key of a card or rule edit."""
    return (f"{edit.card}.{edit.column}" if edit.table == RULES_TABLE
            else f"{edit.table}.{edit.card}.{edit.column}")


def _where(edit: CardEdit, error: VariantError) -> str:
    """An :func:`apply_edits` message with the file it concerns in front."""
    file = RULES_FILE if edit.table == RULES_TABLE else f"{edit.table}.csv"
    return f"{file}: {error}"


def check(scenario: Scenario, edits: Mapping[str, str]) -> list[Trouble]:
    """Every problem of ``edits`` on ``scenario`` (empty: they apply; :func:`variant`)."""
    try:
        variant(scenario, edits)
    except EditError as error:
        return list(error.troubles)
    return []


# --- a run ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """The numbers of a run after ``games`` paired games.

    Attributes
    ----------
    games, target : int
        Games played by each side, and asked for.
    state : str
        ``running``, ``done`` (``target`` reached) or ``stopped`` (what was played kept).
    seconds : float
        Since the run started.
    rows : tuple of dict
        One per :data:`SHOWN` metric: ``metric``, ``label``, ``kind``, and for
        ``baseline``, ``variant`` and ``diff`` (variant minus baseline, paired) the
        estimate and its anytime-valid 95 % interval (``*_low``, ``*_high``).
    """

    games: int
    target: int
    state: str
    seconds: float
    rows: tuple[dict, ...]

    def to_dict(self) -> dict:
        """The snapshot as JSON holds it."""
        return dataclasses.asdict(self) | {"rows": list(self.rows)}


def _bounds(name: str, days: int) -> tuple[float, float]:
    """The values a metric takes in one game: a share 0 or 1, the days 0..``days``."""
    return (0.0, float(days)) if name == M.GAME_DAYS else (0.0, 1.0)


class _Sequences:
    """The confidence sequences of every shown metric: each side and the difference."""

    def __init__(self, days: int) -> None:
        self.cs = {name: [stats.ConfidenceSequence(*_bounds(name, days)) for _ in range(2)]
                   + [stats.ConfidenceSequence(-_bounds(name, days)[1], _bounds(name, days)[1])]
                   for name in SHOWN}

    def update(self, base, changed) -> None:
        for j, name in enumerate(SHOWN):
            a, b, d = self.cs[name]
            a.update(base[:, j])
            b.update(changed[:, j])
            d.update(changed[:, j] - base[:, j])

    def rows(self) -> tuple[dict, ...]:
        kinds = {m[0]: m[1] for m in M.METRICS}
        out = []
        for name in SHOWN:
            row = {"metric": name, "label": M.label(name), "kind": kinds[name]}
            for side, cs in zip(("baseline", "variant", "diff"), self.cs[name], strict=True):
                mean, low, high = cs.interval()
                row |= {side: _number(mean), f"{side}_low": low, f"{side}_high": high}
            out.append(row)
        return tuple(out)


def _number(x: float) -> float | None:
    return None if math.isnan(x) else x


def max_days(*rulesets: Ruleset) -> int:
    """The longest game any of the rulesets plays (``campaign.max_days``)."""
    return max(int(rs.param("campaign", "max_days")) for rs in rulesets)


def stream(chosen: Variant, *, seed: int, games: int, stop: threading.Event | None = None,
           every: float = CHUNK_SECONDS, threads: int | None = None,
           clock=time.monotonic) -> Iterator[Snapshot]:
    """Play ``games`` paired games of the baseline and ``chosen``, yielding the numbers
    after each chunk; the last snapshot is ``done`` or, once ``stop`` is set, ``stopped``.

    Raises
    ------
    CompareInputError
        A scenario the campaign compile refuses (never after the first snapshot).
    """
    if games < 1:
        raise CompareInputError("games must be >= 1")
    if seed < 0:
        raise CompareInputError("seed must be >= 0")
    stop = stop or threading.Event()
    compiled = compile_cases([chosen.base, chosen.case])
    sequences = _Sequences(max_days(chosen.base.ruleset, chosen.case.ruleset))
    start = clock()
    played, chunk = 0, FIRST_CHUNK
    while played < games and not stop.is_set():
        n = min(chunk, games - played)
        began = clock()
        base, changed = (trial_values(c, SHOWN, seed=seed, first=played, trials=n,
                                      threads=threads) for c in compiled)
        sequences.update(base, changed)
        played += n
        took = max(clock() - began, 1e-3)
        chunk = int(min(max(n * every / took, 1), 4 * n, MAX_CHUNK))
        state = "done" if played >= games else "running"
        yield Snapshot(played, games, state, clock() - start, sequences.rows())
    if played < games:
        yield Snapshot(played, games, "stopped", clock() - start, sequences.rows())


# --- the touched cards ------------------------------------------------------------------


def card_tables(chosen: Variant, *, seed: int, trials: int = DECK_TRIALS,
                threads: int | None = None) -> list[dict]:
    """Each touched card of an encounter deck met by the scenario's stalker, baseline and
    variant on common random numbers: the rows of :func:`sim.workflows.compare.paired_rows`
    (estimate, interval, exact value where the encounter has one, paired difference), each
    with its ``table`` and ``card``. A touched card of another table (an item, an armour)
    acts through the loadout in whole games and has no table of its own here.
    """
    before, after = scenario_of(chosen.base), scenario_of(chosen.case)
    out = []
    for table, card in chosen.touched():
        if table in DECK_TABLES:
            out += card_rows(before, after, table, card, seed=seed, trials=trials,
                             threads=threads)
    return out


def card_rows(before: Scenario, after: Scenario, table: str, card: str, *, seed: int,
              trials: int = DECK_TRIALS, threads: int | None = None) -> list[dict]:
    """Card ``card`` of deck ``table`` (:data:`DECK_TABLES`) met by each scenario's stalker,
    paired: :func:`sim.workflows.compare.paired_rows` with ``table``, ``card`` and the
    metric's ``kind`` (``proportion`` or ``mean``).
    """
    name = DECK_TABLES[table]
    exp = registry.experiment(name)
    cases = [Case(sc.ruleset, {**scenario_values(name, sc), exp.card_key: card})
             for sc in (before, after)]
    result = exp.run(cases, trials=trials, seed=seed, threads=threads)
    kinds = {m.name: m.kind for m in result.metrics}
    return [{"table": table, "card": card, "kind": kinds[row["metric"]], **row}
            for row in compare.paired_rows(result, ["baseline", "variant"])]


def warm_steps(scenario: Scenario) -> list[tuple[str, Callable[[], object]]]:
    """What compiles every kernel a what-if run calls, step by step: a two-game run, then
    one card of each encounter deck (a few trials each). Each step is ``(label, call)``.
    """
    chosen = variant(scenario, {})
    steps: list[tuple[str, Callable[[], object]]] = [
        ("whole games", lambda: list(stream(chosen, seed=0, games=2)))]
    for table, name in DECK_TABLES.items():
        cards = list(getattr(scenario.ruleset, table))
        if cards:
            steps.append((f"{table} deck ({name})",
                          functools.partial(card_rows, scenario, scenario, table, cards[0],
                                            seed=0, trials=16)))
    return steps


# --- export -----------------------------------------------------------------------------


def _set_table(doc: tomlkit.TOMLDocument, name: str, value: object) -> None:
    """Set table setting ``name`` (``policy.weights``, ``targets``) in a scenario document;
    an empty table is the key removed (its default).
    """
    head, _, key = name.rpartition(".")
    where = doc if not head else doc.setdefault(head, tomlkit.table())
    plain = {k: list(x) if isinstance(x, tuple) else x for k, x in dict(value).items()}
    if key in where:
        del where[key]
    if plain:
        table = tomlkit.table()
        table.update(plain)
        where[key] = table


def _csv_with(path: Path, edits: Sequence[CardEdit]) -> str:
    """A card file's text with the edited cells changed, every other byte kept."""
    return with_cells(path.read_text(encoding="utf-8"),
                      ((e.card, e.column, e.text) for e in edits),
                      ROW_KEYS.get(path.stem, ("name",)))


def export_zip(scenario: Scenario, chosen: Variant, name: str = "studio") -> bytes:
    """The variant as a zip: ``NAME/ruleset/`` (the scenario's ruleset files with the edited
    cells and ``rules.toml`` keys changed) and ``NAME/scenario.toml`` (the scenario's file
    with the policy and loadout edits, playing that folder): ``zonesim campaign
    NAME/scenario.toml`` plays the variant.
    """
    folder = Path(scenario.ruleset.path)
    cards: dict[str, list[CardEdit]] = {}
    rules: dict[str, str] = {}
    changes = {}
    for key, text in chosen.edits:
        s = setting_of(key)
        if s is None or (s.entries is not None and key != s.name):
            continue
        if s.kind == "card":
            table, _, rest = key.partition(".")
            card, _, column = rest.rpartition(".")
            cards.setdefault(table, []).append(CardEdit(table, card, column, text))
        elif s.kind == "rule":
            rules[key] = text
        else:
            setup_key, value = _override(key, text)
            field = {"weapons": "weapons", "items": "items"}.get(setup_key, setup_key)
            changes[field] = list(value) if isinstance(value, tuple) else value
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(folder.iterdir()):
            if not path.is_file():
                continue
            arc = f"{name}/ruleset/{path.name}"
            table = path.stem
            if path.suffix == ".csv" and table in cards:
                z.writestr(arc, _csv_with(path, cards[table]))

            elif path.name == RULES_FILE and rules:
                doc = tomlkit.parse(path.read_text(encoding="utf-8"))
                for key in rules:
                    section, _, k = key.partition(".")
                    doc.setdefault(section, tomlkit.table())[k] = (
                        chosen.case.ruleset.param(section, k))
                z.writestr(arc, tomlkit.dumps(doc))
            else:
                z.write(path, arc)
        stalker = changes.pop("stalker", None)
        if any(k.startswith("policy.artifact_use.") for k, _ in chosen.edits):
            changes["artifact_use"] = chosen.case.setup["artifact_use"]
        text = changed_scenario(scenario, changes, ["written by zonesim studio"], stalker)
        doc = tomlkit.parse(text)
        doc["ruleset"] = "ruleset"
        for setting, value in chosen.tables:
            _set_table(doc, setting, value)
        z.writestr(f"{name}/scenario.toml", tomlkit.dumps(doc))
    return buffer.getvalue()


__all__ = ["BEST_BUDGET", "CHUNK_SECONDS", "DECK_TABLES", "SHOWN", "EditError", "Snapshot",
           "Trouble", "Variant", "best_play", "card_rows", "card_tables", "check", "edit_key",
           "editable", "export_zip", "max_days", "setting_of", "stream", "suggestions",
           "variant", "warm_steps"]


# --- rebalance suggestions --------------------------------------------------------------

REBALANCE_BUDGET = 200_000
"""Games of a suggestion search from the page (``zonesim rebalance``'s budget is ten times
more: the page answers in a minute or two, the command more surely)."""
REBALANCE_FRESH = 20_000
"""Fresh games each suggested set is played again on."""


def edit_key(path: str) -> str:
    """The studio's key of a lever path: ``rules.combat.max_rounds`` -> ``combat.max_rounds``,
    a card cell's unchanged.
    """
    return path.removeprefix(f"{RULES_TABLE}.")


def suggestions(scenario: Scenario, targets: Sequence[str] = (), levers: Sequence[str] = (), *,
                seed: int = 0, budget: int = REBALANCE_BUDGET,
                stop: threading.Event | None = None,
                say: Callable[[str], None] = lambda line: None) -> list[dict]:
    """Edit sets that meet the balance ``targets`` (default: the scenario's), from
    :func:`sim.workflows.rebalance.rebalance` (``zonesim rebalance``), each as edits the
    studio applies.

    Each entry: ``role`` (``chosen``, ``runner-up``, a Pareto alternative, or the best so
    far when stopped), ``label``, ``edits`` (key -> text, :func:`variant`'s form) and
    ``cells`` (each target's estimate, interval and verdict: on fresh games, or on the
    selection's when stopped before them). Setting ``stop`` ends the search at its next
    stage, keeping the best so far.

    Raises
    ------
    RebalanceError
        Bad targets or lever patterns.
    """
    from sim.workflows import rebalance as rb

    def progress(line: str) -> None:
        say(line)
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt  # rebalance keeps the best so far (its Ctrl-C)

    result = rb.rebalance(scenario, list(targets) or None, list(levers) or None, seed=seed,
                          budget=budget, fresh_trials=REBALANCE_FRESH, progress=progress)

    def edits(changes: Sequence[Mapping]) -> dict[str, str]:
        return {edit_key(c["path"]): format_value(c["new"]) for c in changes}

    if result.fresh is not None:
        return [{"role": s["role"], "label": s["label"], "edits": edits(s["changes"]),
                 "cells": s["cells"]} for s in result.fresh["sets"] if s["role"] != "unchanged"]
    if not result.standings:
        return []
    top = result.standings[0]
    return [{"role": "best so far (stopped: not played again on fresh games)",
             "label": top.edit_set.label, "edits": edits(top.edit_set.changes()),
             "cells": top.cells}]


# --- best play --------------------------------------------------------------------------

BEST_BUDGET = 100_000
"""Games of each side's best-play search from the page (``zonesim optimize`` plays 50 times
more: the page answers in a minute or two, the command more surely)."""
BEST_FRESH = 20_000
"""Fresh games each side's best play is judged on."""


def best_play(chosen: Variant, *, seed: int = 0, budget: int = BEST_BUDGET,
              stop: threading.Event | None = None,
              say: Callable[[str], None] = lambda line: None) -> list[dict]:
    """Each side's win rate under best play and the skill gap: ``zonesim optimize``'s search
    (:func:`sim.workflows.optimize.optimize`) of the policy and loadout, for the baseline
    and then the variant, each judged on fresh games.

    Each entry: ``side`` (``baseline``, ``variant``), ``best`` (the policy found, in words),
    ``changes`` (key, from, to), ``stopped``, and on the fresh games (None when stopped
    before them) ``best_play`` and ``scenario_play`` (the win rate's estimate and
    interval under the best policy and the scenario's), ``skill_gap`` (best minus a naive
    policy, paired) and ``gain`` (best minus the scenario's policy, paired). Setting
    ``stop`` ends the search at its next race, keeping the best so far.
    """
    from sim.workflows.optimize import optimize

    def progress(line: str) -> None:
        say(line)
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt  # optimize keeps the best so far (its Ctrl-C)

    out = []
    for side, case in (("baseline", chosen.base), ("variant", chosen.case)):
        if stop is not None and stop.is_set():
            break
        say(f"best play of the {side}")
        result = optimize(scenario_of(case), budget=budget, fresh_trials=BEST_FRESH,
                          seed=seed, progress=progress)
        r = result.reevaluation
        out.append({"side": side, "best": result.winner.label, "changes": result.changes(),
                    "stopped": result.stopped,
                    "best_play": r and r["winner_estimate"],
                    "scenario_play": r and r["scenario_estimate"],
                    "skill_gap": r and r["skill_gap"], "gain": r and r["vs_scenario"]})
    return out
