"""Every whole-game effect that docs/rules.md and docs/workflows.md quote, from one script.

``python -m docs.numbers`` plays each declared effect (:data:`EFFECTS`) as
``zonesim compare campaign`` does, through :func:`sim.workflows.compare.compare`
on the campaign experiment (on the ``multiplayer`` experiment for a multiplayer scenario,
``four_stalkers``: every seat, :func:`sim.experiments.registry.for_scenario`), with ONE
seed and trial count for every effect (``--seed``, ``--trials``; default the docs'
200,000 games), and prints each figure: the paired difference to its baseline with its
95 % interval (``diff``) or the variant's own estimate with its interval (``value``).
Effects that share a scenario and baseline play as one paired run (one call of the kernel
with every variant), so a figure and its neighbours are paired on the same games.

Each quoted figure in the two docs carries an invisible anchor right before it,
``<!-- number: NAME -->``, NAME an effect of :data:`EFFECTS`; the figure keeps the
docs' own format: ``-0.0093 (-0.0099 to -0.0086)``, ``+0.0034 +- 0.0026``,
``+0.0006 (±0.0003)``, ``+23.8 pp (+23.5 to +24.1)``, ``36.2 % (36.0 to 36.5)`` or a
bare ``0.3441``. ``--check`` plays the effects and says, per anchor, whether the
docs' figure lies within tolerance of the fresh one (:func:`check`): ``|doc - fresh|
<= 4.5 x`` the combined standard error of the two (each from its 95 % interval; a
bare figure's taken as the fresh one's scaled to :data:`DOC_TRIALS` games) plus half
a unit of the figure's last printed digit. The docs' figures come from several seeds
(20261129, 20261202, 20261203, 20261204); the check is statistical, so one seed
for all is enough, and the tolerance covers the seeds' noise.

Quoted figures deliberately left out (no anchor), and why:

- the Helicopter call *called* at Health 2 and 3 (rules.md, *Economy*): the text does
  not say whether the change is to the base loadout or to the uncalled card, so no
  baseline can be declared without guessing; the uncalled figure is covered;
- the Helicopter call under ``policy.knockout_loss`` (seed 1): estimates of a
  separate loadout with no paired change quoted;
- Bloodsucker ``ambush`` in the traits table: exactly 0 (no game changes), nothing
  to compare within a tolerance;
- ``four_stalkers`` as a cooperative game (rules.md, *Multiplayer*: the team's win under
  ``multiplayer.cooperative_dead``): no bundled scenario is cooperative, and the
  scenario's ``variant`` is no key of the compare grammar;
- ``campaign.killed_enemies`` on base (+0.009 under ``at_once``), the discards at seed
  7 (0.0000 (SE 0.0001) ...) and the P-37 share of 12.1 % (reference games): not
  paired effects of the compare grammar, or quoted with standard errors of other runs;
- readings quoted bare below one point (``at_once`` +0.7 pp, ... +0.2 pp): bounds in words;
- the readings table's "win rate" column (e.g. 95.6 %): the variant's estimate is the
  baseline's plus the paired change, both covered;
- the Jetpack's cash equivalent (workflows.md): a ``--cash-equivalent`` run, whose
  rows are built by compare's money variants rather than a declared variant;
- figures of single fights (exact P(knocked out) ...), benchmarks and timings, and
  best-play searches (optimize): not whole-game effects of a paired compare.

Why a module under docs/ and not sim/: it is the docs' tooling, not the simulator's
(the wheel ships only sim/, pyproject's explicit package list); it imports the library
downwards as the CLI does and does no arithmetic of its own beyond the check.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sim.experiments import registry
from sim.rules.scenario import load_scenario
from sim.workflows import compare as library

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "docs" / "rules.md", ROOT / "docs" / "workflows.md")
"""The documents whose figures are anchored."""

DOC_TRIALS = 200_000
"""The docs' trial count (every anchored figure was measured at it)."""
SEED = 20261202
"""The default seed: that of most quoted runs (command [1] of docs/rules.md)."""
Z_TOL = 4.5
"""Standard errors a docs figure may lie from the fresh one (the project's |z| < 4.5)."""
Z95 = 1.959963984540054
"""Half-width of a 95 % interval in standard errors."""

WIN = "p_sarcophagus"
RUBLES = "rubles_at_end"
NOBODY = "p_nobody_wins"
FOUR = "four_stalkers"
"""The bundled multiplayer scenario whose P(nobody wins) the docs quote."""


@dataclass(frozen=True)
class Effect:
    """One quoted figure: a variant of a scenario against a baseline, in compare's grammar.

    Attributes
    ----------
    name : str
        The anchor's name (``<!-- number: NAME -->``).
    scenario : str
        A bundled scenario's name (``base``, ``four_stalkers``).
    baseline, variant : str
        Variants as ``zonesim compare campaign --baseline/--variant`` take them
        (``""`` = the scenario itself).
    metric : str
        A metric of the scenario's experiment (``p_sarcophagus``, ``rubles_at_end``; a
        multiplayer game's ``p_nobody_wins``).
    kind : {"diff", "value"}
        The paired difference ``variant - baseline``, or the variant's estimate.
    """

    name: str
    scenario: str
    baseline: str
    variant: str
    metric: str = WIN
    kind: str = "diff"


DECK = "edit=rules.zone.cards=deck"
FOG = "edit=events.Lost in fog.value=0;edit=events.Lost in fog.effect=enemy"
TRAITS = {"flesh": ("Flesh", "flees=1"), "boar": ("Boar", "flees=2"),
          "snork": ("Snork", "ambush"), "chimera": ("Chimera", "piercing"),
          "bandit": ("Bandit", "flees=2"), "monolith": ("Monolith fighter", "piercing")}
"""The traits table's cards (docs/rules.md, *Traits*), each with its suggested trait."""
ALL_TRAITS = ";".join(f"edit=enemies.{card}.traits={trait}" for card, trait in
                      (*TRAITS.values(), ("Bloodsucker", "ambush")))
READINGS = {"dice_face": "dice.modifier=face",
            "avoid_reputation": "combat.avoid_rule=reputation",
            "secret_nothing": "campaign.secret_location_draw=nothing",
            "open_enemy": "campaign.open_location_draw=enemy",
            "secret_event": "campaign.secret_location_draw=event",
            "secret_anomaly": "campaign.secret_location_draw=anomaly",
            "medkits_in_combat": "combat.medkits_in_combat=true",
            "open_nothing": "campaign.open_location_draw=nothing",
            "shops_every_base": "economy.shops=every_base",
            "open_anomaly": "campaign.open_location_draw=anomaly",
            "events_items_consumed": "events.items_consumed=true",
            "emission_card": "emission.accumulate=card",
            "paid_healing_after_knockout": "economy.paid_healing=after_knockout"}
"""The readings table of docs/rules.md (*Readings of the rules*), each a rule edit."""
GEAR = {"stalker_suit": "Stalker suit", "ecolog_suit": "Ecolog suit",
        "ecolog_then_stalker": "Ecolog suit;shopping_gear=Stalker suit", "seva_suit": "SEVA suit",
        "shotgun": "Shotgun", "grenade": "Grenade", "stone_flower": "Stone flower"}
"""Gear bought during the game (``policy.shopping_gear``), by the effects' names."""
RICH = "rubles=5000"


def _base(name: str, variant: str, metric: str = WIN, kind: str = "diff") -> Effect:
    return Effect(name, "base", "", variant, metric, kind)


def _four(name: str, variant: str, kind: str = "diff", baseline: str = "") -> Effect:
    """A ``four_stalkers`` figure: P(nobody wins), every seat playing the variant."""
    return Effect(f"four.{name}", FOUR, baseline, variant, NOBODY, kind)


EFFECTS: tuple[Effect, ...] = (
    # docs/rules.md, command [1] and the open-rules table
    _base("base.win_rate", "", kind="value"),
    _base("base.stimulant_at_2", "stimulant_at=2"),
    _base("base.stimulant_at_3", "stimulant_at=3"),
    _base("base.bunker_toward_objective", "bunker_choice=toward_objective"),
    _base("base.paid_healing_after_knockout", "edit=rules.economy.paid_healing=after_knockout"),
    _base("base.bases_shelter_false", "edit=rules.emission.bases_shelter=false"),
    _base("base.shops_every_base", "edit=rules.economy.shops=every_base"),
    _base("base.shops_every_base.win_rate", "edit=rules.economy.shops=every_base",
          kind="value"),
    # Lost in fog bringing an enemy (*Campaign* 3)
    _base("base.fog_enemy", FOG),
    # the Zone deck (*Campaign* 5)
    _base("base.zone_deck", DECK),
    _base("base.zone_deck.win_rate", DECK, kind="value"),
    Effect("base.deck.third_patrol", "base", DECK,
           f"{DECK};edit=zone.Stalker patrol.count=3"),
    Effect("base.deck.third_weather", "base", DECK,
           f"{DECK};edit=zone.Weather turns.count=3"),
    # the Helicopter call carried, uncalled (*Economy*)
    _base("base.helicopter_uncalled", "item+=Helicopter call"),
    # gear bought during the game (*Economy*, P-13)
    *(_base(f"base.buy.{key}", f"shopping_gear={GEAR[key]}")
      for key in ("stalker_suit", "ecolog_suit", "ecolog_then_stalker",
                  "shotgun", "grenade", "stone_flower")),
    _base("base.rich.win_rate", RICH, kind="value"),
    *(Effect(f"base.rich.buy.{key}", "base", RICH, f"{RICH};shopping_gear={GEAR[key]}")
      for key in ("ecolog_suit", "seva_suit", "shotgun", "stone_flower")),
    Effect("base.rich.buy.ecolog_suit_trade_in", "base", RICH,
           f"{RICH};shopping_gear=Ecolog suit;edit=rules.economy.armor_trade_in_divisor=2"),
    # the enemies' suggested traits (*Traits*)
    *(_base(f"base.trait.{key}", f"edit=enemies.{card}.traits={trait}")
      for key, (card, trait) in TRAITS.items()),
    _base("base.trait.all", ALL_TRAITS),
    # the readings table (*Readings of the rules*)
    *(_base(f"base.reading.{key}", f"edit=rules.{edit}") for key, edit in READINGS.items()),
    # docs/workflows.md, inert values: ten times the mutant-trophy price
    _base("base.mutant_trophy_price_x10.rubles",
          "edit=rules.economy.mutant_trophy_price=5000", RUBLES),
    # four_stalkers' P(nobody wins), every seat (issue 47 item 7: the multiplayer experiment)
    _four("nobody", "", kind="value"),
    _four("trait.all", ALL_TRAITS),
    _four("trait.all.nobody", ALL_TRAITS, kind="value"),
    _four("fog_enemy", FOG),
    _four("killed_at_once", "edit=rules.campaign.killed_enemies=at_once"),
    _four("killed_reshuffle", "edit=rules.campaign.killed_enemies=reshuffle_when_empty"),
    _four("zone_deck", DECK),
    _four("zone_deck.nobody", DECK, kind="value"),
    _four("deck.third_patrol", f"{DECK};edit=zone.Stalker patrol.count=3", baseline=DECK),
    _four("deck.third_weather", f"{DECK};edit=zone.Weather turns.count=3", baseline=DECK),
    _four("shops_every_base", "edit=rules.economy.shops=every_base"),
    _four("shops_every_base.nobody", "edit=rules.economy.shops=every_base", kind="value"),
    *(_four(f"buy.{key}", f"shopping_gear={GEAR[key]}")
      for key in ("stalker_suit", "ecolog_suit", "shotgun", "grenade", "stone_flower")),
    _four("rich.nobody", RICH, kind="value"),
    *(_four(f"rich.buy.{key}", f"{RICH};shopping_gear={GEAR[key]}", baseline=RICH)
      for key in ("ecolog_suit", "seva_suit", "ecolog_then_stalker")),
)
"""Every quoted whole-game effect, declared once; names are the docs' anchors."""

FIGURE = re.compile(
    r"<!-- number: (?P<name>[\w.]+) -->\s*"
    r"(?P<figure>(?P<x>[+-]?\d+(?:\.\d+)?)(?P<unit>\s*(?:pp|%))?"
    r"(?:\s*\((?P<lo>[+-]?\d+(?:\.\d+)?)\s+to\s+(?P<hi>[+-]?\d+(?:\.\d+)?)\)"
    r"|\s+\+-\s+(?P<pm>\d+(?:\.\d+)?)|\s*\(±(?P<pm2>\d+(?:\.\d+)?)\))?)")
"""An anchor and the figure right after it (see the module's docstring for the formats)."""
ANCHOR = re.compile(r"(?<!`)<!-- number: ([^ ]*) -->")
"""An anchor (one quoted in backticks, as the docs' own explanation writes it, is not)."""


@dataclass(frozen=True)
class Quote:
    """One anchored figure of a document, read as a fraction (pp and % divided by 100).

    Attributes
    ----------
    name, path, line, text :
        The anchor's effect, where it stands, and the figure as written.
    value : float
    se : float or None
        The standard error its 95 % interval gives; None for a bare figure.
    unit : float
        Half a unit of the last printed digit (rounding), as a fraction.
    """

    name: str
    path: str
    line: int
    text: str
    value: float
    se: float | None
    unit: float


def _decimals(text: str) -> int:
    return len(text.partition(".")[2])


def quotes(text: str, path: str = "") -> list[Quote]:
    """The anchored figures of a document's ``text``, in order.

    Raises
    ------
    ValueError
        An anchor with no figure after it (file and line named).
    """
    found = []
    for anchor in ANCHOR.finditer(text):
        line = text.count("\n", 0, anchor.start()) + 1
        match = FIGURE.match(text, anchor.start())
        if match is None:
            raise ValueError(f"{path}:{line}: anchor {anchor.group(1)!r} has no figure after it")
        scale = 100.0 if match["unit"] else 1.0
        x = float(match["x"]) / scale
        if match["lo"] is not None:
            se = (float(match["hi"]) - float(match["lo"])) / scale / (2 * Z95)
        elif (pm := match["pm"] or match["pm2"]) is not None:
            se = float(pm) / scale / Z95
        else:
            se = None
        found.append(Quote(match["name"], path, line, " ".join(match["figure"].split()), x,
                           se, 0.5 * 10.0 ** -_decimals(match["x"]) / scale))
    return found


def doc_quotes(paths: Iterable[Path] | None = None) -> list[Quote]:
    """Every anchored figure of ``paths`` (default :data:`DOCS`), named from :data:`ROOT`."""
    return [q for p in (DOCS if paths is None else paths)
            for q in quotes(p.read_text(encoding="utf-8"), str(p.relative_to(ROOT)))]


def groups(effects: Sequence[Effect]) -> dict[tuple[str, str], list[str]]:
    """The paired runs: per (scenario, baseline), its distinct variants in order."""
    out: dict[tuple[str, str], list[str]] = {}
    for e in effects:
        variants = out.setdefault((e.scenario, e.baseline), [e.baseline])
        if e.variant not in variants:
            variants.append(e.variant)
    return out


def measure(effects: Sequence[Effect] = EFFECTS, *, trials: int = DOC_TRIALS,
            seed: int = SEED, threads: int | None = None) -> dict[str, dict]:
    """Play the effects, one paired run per (scenario, baseline), as compare campaign does.

    Returns
    -------
    dict
        Per effect name: ``{"scenario", "baseline", "variant", "metric", "kind",
        "mc", "ci_low", "ci_high"}`` (``mc`` the difference or the estimate, with
        its 95 % interval, as compare's rows give it).
    """
    rows: dict[tuple[str, str, str, str], Mapping] = {}
    for (scenario, baseline), variants in groups(effects).items():
        chosen = load_scenario(scenario)
        exp = registry.for_scenario("campaign", chosen)
        labels = [f"v{i}" for i in range(len(variants))]
        parsed = [library.parse_variant(v, exp, label) for v, label in zip(variants, labels,
                                                                          strict=True)]
        metrics = list(dict.fromkeys(e.metric for e in effects
                                     if (e.scenario, e.baseline) == (scenario, baseline)))
        result = library.compare(exp, chosen.ruleset, exp.from_scenario(chosen), parsed,
                                 trials=trials, seed=seed, threads=threads, metrics=metrics)
        for row in result.rows:
            rows[scenario, baseline, variants[labels.index(row["variant"])], row["metric"]] = row
    out = {}
    for e in effects:
        row = rows[e.scenario, e.baseline, e.variant, e.metric]
        keys = ("mc", "ci_low", "ci_high") if e.kind == "value" else (
            "diff", "diff_ci_low", "diff_ci_high")
        out[e.name] = {"scenario": e.scenario, "baseline": e.baseline, "variant": e.variant,
                       "metric": e.metric, "kind": e.kind,
                       **dict(zip(("mc", "ci_low", "ci_high"), (row[k] for k in keys),
                                  strict=True))}
    return out


def verdicts(measured: Mapping[str, Mapping], found: Sequence[Quote], *,
             trials: int) -> list[dict]:
    """Per anchored figure: the fresh figure, the tolerance and whether the docs hold.

    The tolerance is ``Z_TOL`` combined standard errors (the docs' from its
    interval, or the fresh one's scaled to :data:`DOC_TRIALS` games for a bare
    figure) plus the figure's rounding.
    """
    out = []
    for q in found:
        fresh = measured[q.name]
        se = (fresh["ci_high"] - fresh["ci_low"]) / (2 * Z95)
        doc_se = q.se if q.se is not None else se * math.sqrt(trials / DOC_TRIALS)
        tolerance = Z_TOL * math.hypot(se, doc_se) + q.unit
        gap = abs(q.value - fresh["mc"])
        out.append({"name": q.name, "where": f"{q.path}:{q.line}", "docs": q.text,
                    "fresh": fresh["mc"], "fresh_ci_low": fresh["ci_low"],
                    "fresh_ci_high": fresh["ci_high"], "gap": gap, "tolerance": tolerance,
                    "holds": gap <= tolerance})
    return out


def _table(measured: Mapping[str, Mapping]) -> str:
    width = max(map(len, measured))
    lines = [f"{'effect':<{width}}  {'kind':<5}  {'figure (95 % interval)':<32}  metric"]
    for name, m in measured.items():
        cell = f"{m['mc']:+.4f} ({m['ci_low']:+.4f} to {m['ci_high']:+.4f})"
        lines.append(f"{name:<{width}}  {m['kind']:<5}  {cell:<32}  {m['metric']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m docs.numbers [--trials N] [--seed S] [--format table|json] [--check]``.

    Exit status 1 when ``--check`` finds a figure of the docs out of tolerance.
    """
    parser = argparse.ArgumentParser(
        prog="python -m docs.numbers", description=__doc__.splitlines()[0],
        epilog="example: python -m docs.numbers --trials 20000 --check")
    parser.add_argument("--trials", type=int, default=DOC_TRIALS,
                        help=f"games per variant (default {DOC_TRIALS:,}, the docs')")
    parser.add_argument("--seed", type=int, default=SEED,
                        help=f"one seed for every effect (default {SEED})")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument("--check", action="store_true",
                        help="compare each anchored figure of the docs with the fresh one")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    if args.trials < 1:
        parser.error(f"--trials: {args.trials} is not a positive number of games")
    found = doc_quotes()  # read first: a broken anchor stops before any game is played
    measured = measure(trials=args.trials, seed=args.seed, threads=args.threads)
    report = verdicts(measured, found, trials=args.trials) if args.check else []
    if args.format == "json":
        doc = {"trials": args.trials, "seed": args.seed, "effects": measured}
        if args.check:
            doc["check"] = report
        print(json.dumps(doc, indent=1))
    else:
        print(f"docs numbers: {args.trials:,} paired games per variant, seed {args.seed}")
        print(_table(measured))
        for r in report:
            if not r["holds"]:
                print(f"{r['where']}: {r['name']} quotes {r['docs']}, fresh "
                      f"{r['fresh']:+.4f} ({r['fresh_ci_low']:+.4f} to "
                      f"{r['fresh_ci_high']:+.4f}): off by {r['gap']:.4f} > {r['tolerance']:.4f}")
        if args.check:
            bad = sum(not r["holds"] for r in report)
            print(f"check: {len(report) - bad} of {len(report)} figures of the docs hold"
                  + (f", {bad} do not" if bad else ""))
    return 1 if any(not r["holds"] for r in report) else 0


if __name__ == "__main__":
    sys.exit(main())
