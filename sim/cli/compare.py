"""``zonesim compare``: variants side by side on common random numbers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from sim.cli import common
from sim.cli.anomaly import STATE_OPTIONS
from sim.cli.battlefield import compare_skirmish
from sim.experiments import registry
from sim.rules.scenario import load_scenario
from sim.workflows import baseline as before_after
from sim.workflows import compare as library
from sim.workflows import targets as targets_lib
from sim.workflows.prices import PER_1000_RUBLES

CAMPAIGN_TRIALS = 200_000

_TITLE = ("{name}: {n} variants vs baseline {base!r}; {trials} trials, seed {seed}, common "
          "random numbers; cells: estimate ±95% half-width (exact); diff = variant - baseline; "
          "price: the variant's cards in rubles; " + PER_1000_RUBLES.replace("{", "{{")
          .replace("}", "}}") + "; a row 'X minus its cash': variant X less its cash "
          "equivalent, paired")
_SEATS_TITLE = ("{name}: {n} variants vs baseline {base!r}; {trials} games of every seat, seed "
                "{seed}, common random numbers; cells: estimate ±95% half-width; diff = "
                "variant - baseline, paired game by game")


def variant_options(func: Callable) -> Callable:
    """``--variant`` (repeatable), ``--baseline``, ``--against``, ``--metric``, ``--target``,
    ``--targets``.
    """
    options = (
        click.option("--variant", "variants", multiple=True, metavar="SPEC",
                     help="A variant: 'key=value;key=value' overriding the options above "
                          "(e.g. 'armor=SEVA suit;weapon=AK-74') and/or card edits "
                          "'edit=table.card.column=value'; 'rules=DIR' plays a copied ruleset "
                          "folder (relative to the current directory) instead of the "
                          "baseline's; 'label=NAME' names it. Loadout lists: 'item+=NAME' adds "
                          "a card, 'item-=NAME' removes one, 'items=A,B' replaces the list "
                          "(likewise weapon+=, weapons=); a bare 'item=NAME' replaces the "
                          "loadout's items too, and the output says so. Every variant's full "
                          "loadout is printed. Repeatable; the first is the baseline unless "
                          "--baseline is given."),
        click.option("--baseline", default=None, metavar="SPEC",
                     help="The baseline variant (same syntax; '' = the options as given)."),
        click.option("--against", multiple=True, metavar="NAME|INDEX|all",
                     help="Also take the paired difference to this variant: its label or its "
                          "position (0 = the baseline, 1 = the next, ...); repeatable; 'all' "
                          "gives every pair once (later minus earlier). One run per "
                          "reference variant, on the same random numbers."),
        click.option("--metric", "metrics", multiple=True, metavar="NAME",
                     help="Metric to report (repeatable; default: all outcomes and means)."),
        click.option("--target", "target_texts", multiple=True, metavar="TEXT",
                     help="Balance target, e.g. 'knocked_out <= 0.25' or "
                          "'knocked_out in 0.2..0.3' (repeatable): adds a PASS/FAIL/UNDECIDED "
                          "column."),
        click.option("--targets", "targets_file", type=click.Path(path_type=Path),
                     default=None, help="TOML file with a [targets] table (metric = [lo, hi])."),
    )
    for option in reversed(options):
        func = option(func)
    return func


def common_options(func: Callable) -> Callable:
    """The options every results command has."""
    for option in reversed((common.trials_option(), common.seed_option, common.rules_option,
                            common.format_option, common.threads_option, common.quiet_option)):
        func = option(func)
    return func


def read_targets(texts, path) -> list:
    """Targets from ``--target`` texts and a ``--targets`` file; errors exit with status 2."""
    found = [common.target(text) for text in texts]
    try:
        if path is not None:
            found += [targets_lib.checked(t, registry.metrics().get(t.metric))
                      for t in targets_lib.load_targets(path)]
    except targets_lib.TargetError as error:
        raise click.BadParameter(str(error), param_hint="--targets") from None
    return found


def _run(exp, base: dict, variants, baseline, against, metrics, target_texts,
         targets_file, trials, seed, rules_dir, fmt, threads, rs=None, money=None,
         seats: bool = False) -> None:
    """Compare the variants and print them; ``seats``: a multiplayer game, whose loadout
    and policy keys apply to every seat and whose loadout shown is seat 1's (no prices: a
    price is one stalker's loadout).
    """
    if rs is None:
        rs = common.load_rules_or_exit(rules_dir)
    specs = ([] if baseline is None else [baseline]) + list(variants)
    if len(specs) < 2:
        raise click.UsageError("give at least two variants (--variant ... --variant ...), or "
                               "one --variant and a --baseline ('' = the options as given)")
    targets = read_targets(target_texts, targets_file)
    parsed = [library.parse_variant(s, exp) for s in specs]
    result = library.compare(exp, rs, base, parsed, trials=trials, seed=seed, threads=threads,
                             metrics=metrics or None, targets=targets, against=against,
                             prices=not seats, money=money)
    title = (_SEATS_TITLE if seats else _TITLE).format(
        name=exp.name, n=len(result.variants), base=parsed[0].label, trials=trials, seed=seed)
    if against:
        title = title.replace("diff = variant - baseline", "diff = variant - against")
    common.emit_frame(result.to_frame(), fmt, result.to_dict(), title, result.to_table())
    if fmt == "table":
        head = (f"loadouts (seat 1's; a variant's loadout and policy keys apply to every one "
                f"of the {base['seats']} seats):" if seats else "loadouts:")
        click.echo(head + "\n" + "\n".join(result.loadout_lines()))


KEY_NOTES = {"optional": "none = no card", "list": "repeatable; none = empty",
             "route": "repeatable; none = nearest first",
             "artifact_use": "NAME:USE, USE always, never or a Health"}
"""How a variant value of each kind is written, where the help says more than the key."""


def variant_keys(exp) -> str:
    """The variant keys of experiment ``exp`` as its descriptor declares them (``keys``), each
    with how its value is written (the choices of a choice kind, :data:`KEY_NOTES`), then the
    keys every comparison takes: ``edit``, ``rules`` and ``label``.
    """
    words = []
    for key, (_, kind) in exp.keys.items():
        note = "|".join(map(str, library.CHOICES[kind])) if kind in library.CHOICES \
            else KEY_NOTES.get(kind)
        words.append(f"{key} ({note})" if note else key)
    return ", ".join([*words, "edit", "rules (a ruleset folder)", "label"])


def listed(exp) -> Callable:
    """Put the variant keys (:func:`variant_keys`) and the metric names of experiment ``exp``,
    as it declares them, in place of ``{keys}`` and ``{metrics}`` in a command's help.
    """
    def apply(command: click.Command) -> click.Command:
        names = ", ".join(m.name for m in exp.metrics)
        command.help = command.help.replace("{metrics}", names).replace(
            "{keys}", variant_keys(exp))
        return command

    return apply


@click.group(cls=common.Group)
def compare() -> None:
    """Compare variants (loadouts, cards, card edits) on common random numbers.

    Every variant runs on the same trials with the same random streams, so
    the paired difference to the baseline (the first variant) has a tight
    95 % interval. Rows: variant, metric, estimate with interval and exact
    value, difference to the baseline with interval, and a verdict: better /
    worse (or higher / lower for neutral metrics), or "no detectable
    difference" when the interval of the difference contains 0. With 'all'
    (the whole deck) each metric is averaged over the deck weighted by card
    count. --against NAME|INDEX takes the paired differences to another
    variant instead (repeatable), and --against all to every other one, so
    any two variants are compared on the same random numbers. Each row also
    shows the variant's price (its armour, weapons and items from the price
    columns) and the difference per 1,000 rubles of price difference.

    \b
    Example:
      zonesim compare combat --stalker Strelok --enemy Bloodsucker \\
        --variant "armor=Ecolog suit" --variant "armor=SEVA suit"
      zonesim compare event --stalker Strelok --event all --variant "item=Bag of nuts" \\
        --variant "item=Dosimeter" --variant "item=Torsion scanner"
      zonesim compare campaign --baseline "" --variant "item=Dosimeter" \\
        --variant "armor=SEVA suit"
      zonesim compare combat --scenario base --enemy all --variant "armor=Ecolog suit" \\
        --variant "armor=SEVA suit" --variant "armor=Exoskeleton" --against all
      cp -r configs/base my_rules   # then change a value in my_rules/enemies.csv
      zonesim compare campaign base --baseline "" --variant "rules=my_rules;label=mine"
    """


SETUP_OPTIONS: dict[str, Callable] = {
    "stalker": click.option("--stalker", default=None,
                            help="Stalker card name (required unless --scenario names one)."),
    **common.LOADOUT_OPTIONS, **common.FIGHT_POLICY_OPTIONS,
    "enter": common.setting_option(
        "--enter", help="Enter on purpose even after noticing the anomaly (P-36)."),
    **STATE_OPTIONS,
}
"""The option of each setup key an encounter's ``option_keys`` name."""
EXPERIMENT_OPTIONS = {
    ("event", "items"): click.option("--item", "items", multiple=True, metavar="NAME",
                                     help="Event item (repeatable; event_avoid only; the best "
                                          "counts, Z-10)."),
}
"""An option whose help, in one experiment, says what acts there."""

HELP = {
    "combat": """Compare fights (P-14..P-29) under variants of loadout, policy or cards.

    Variant keys: {keys}.
    Metrics: {metrics}.

    \b
    Example:
      zonesim compare combat --stalker Strelok --enemy Bloodsucker \\
        --variant "armor=Ecolog suit" --variant "armor=SEVA suit" \\
        --variant "weapon=AK-74;armor=SEVA suit"
      zonesim compare combat --stalker Strelok --enemy Bloodsucker --baseline "" \\
        --variant "edit=enemies.Bloodsucker.endurance=3" --metric knocked_out
    """,
    "anomaly": """Compare anomaly encounters (P-30..P-36) under variants.

    Variant keys: {keys} (an item is refused: none acts inside an anomaly).
    Metrics: {metrics}.

    \b
    Example:
      zonesim compare anomaly --stalker Strelok --anomaly all \\
        --variant "armor=Ecolog suit" --variant "armor=SEVA suit" --variant "enter=1"
    """,
    "event": """Compare event draws (Z-08..Z-10) under variants, e.g. event items.

    Variant keys: {keys}.
    Metrics: {metrics}.

    \b
    Example:
      zonesim compare event --stalker Strelok --event all --variant "item=Bag of nuts" \\
        --variant "item=Dosimeter" --variant "item=Torsion scanner"
    """,
}
"""Each encounter's ``compare`` help: ``{keys}`` and ``{metrics}`` are filled from its
descriptor (:func:`listed`)."""
ENCOUNTER_HELP = """Compare {name} encounters under variants.

    Variant keys: {{keys}}.
    Metrics: {{metrics}}.
    """
"""The help of an encounter :data:`HELP` has no words for yet."""


def _setup_option(exp, key: str) -> Callable:
    """The option of setup key ``key`` in ``compare NAME``: the card an encounter meets is
    required (a card or ``all``); the others are :data:`SETUP_OPTIONS`'.
    """
    if key == exp.card_key:
        return click.option(f"--{key}", common.param_of(key), required=True,
                            help=f"{key.capitalize()} card name, or 'all' for the deck.")
    return EXPERIMENT_OPTIONS.get((exp.name, key), SETUP_OPTIONS[key])


def encounter_command(exp) -> click.Command:
    """``compare NAME`` for an encounter of the registry: an option per ``option_keys`` (the
    stalker and the card first), the variants, the scenario and the common options. The
    options over the ``--scenario`` (:func:`sim.cli.common.setup_and_rules`) are the base
    setup; a setup with no ``--item`` (no item acts there) carries none.
    """
    keys = sorted(exp.option_keys, key=lambda k: (k != "stalker", k != exp.card_key))
    fixed = {} if "items" in exp.option_keys else {"items": ()}

    def command(variants, baseline, against, metrics, target_texts, targets_file, scenario,
                trials, seed, rules_dir, fmt, threads, **setup_options):
        values = common.option_values(exp.option_keys)
        base, rs = common.setup_and_rules(exp.name, scenario, rules_dir, {**values, **fixed})
        _run(exp, base, variants, baseline, against, metrics, target_texts, targets_file,
             trials, seed, rules_dir, fmt, threads, rs=rs)

    command.__doc__ = HELP.get(exp.name, ENCOUNTER_HELP.format(name=exp.name))
    for option in reversed([*(_setup_option(exp, k) for k in keys), variant_options,
                            common.scenario_option, common_options]):
        command = option(command)
    return listed(exp)(click.command(exp.name, cls=common.Command)(command))


def campaign_command(exp) -> click.Command:
    """``compare campaign``: whole games of a scenario (the experiment's ``from_scenario``
    setup), given as an argument or ``--scenario``, with ``--pay`` and
    ``--cash-equivalent``.
    """
    @listed(exp)
    @click.command(exp.name, cls=common.Command)
    @click.argument("scenario", required=False)
    @click.option("--scenario", "scenario_option", default=None, metavar="FILE|NAME",
                  help="The scenario, as the SCENARIO argument (give one of the two).")
    @variant_options
    @common.trials_option(CAMPAIGN_TRIALS)
    @common.seed_option
    @click.option("--rules", "rules_dir", type=click.Path(), default=None,
                  help="Ruleset folder to use instead of the scenario's.")
    @click.option("--pay", "money", flag_value="pay", default=None,
                  help="Each variant pays for its extra cards (price difference to the "
                       "baseline) out of its starting rubles; one the stalker cannot afford is "
                       "refused.")
    @click.option("--cash-equivalent", "money", flag_value="cash",
                  help="After each variant dearer than the baseline, add the baseline with "
                       "that price difference in extra starting rubles: is the card worth its "
                       "price?")
    @common.format_option
    @common.threads_option
    @common.quiet_option
    def command(scenario, scenario_option, variants, baseline, against, metrics,
                target_texts, targets_file, trials, seed, rules_dir, money, fmt, threads):
        """Compare whole campaigns of a scenario under variants of loadout, policy or cards.

        SCENARIO is a scenario file or a bundled scenario's name (default: base);
        it is the base setup. Every variant plays the same games (trial t of each
        variant on the streams of (seed, t)), so the paired difference to the
        baseline is tight. Variant keys: {keys}; item+=NAME adds one card to
        the scenario's items, item-=NAME removes one, items=A,B replaces them
        (likewise weapon+=, weapons=); rules is played instead of the scenario's
        ruleset.
        Metrics: {metrics} (game_days: the mean day a game ended; knockouts and
        those after it: per-game means). Each row shows the variant's price (its
        cards' price column) and the difference per 1,000 rubles of price
        difference; --pay makes each variant pay its extra cards out of its
        starting rubles, --cash-equivalent compares each dearer variant with the
        baseline given that price in cash, and adds a row "X minus its cash":
        the card variant less its cash equivalent, paired, with its interval.

        A multiplayer or cooperative scenario (four_stalkers) plays every seat of
        every variant on the same games; its metrics: first_seat_advantage (seat 1's
        win minus the other seats' mean win), seat_win.K (seat K wins; K from 1),
        p_nobody_wins and, cooperative, p_team_wins. Its variants' card and rule
        edits change the shared ruleset, and their loadout and policy keys every seat
        (a list key adds or removes the card in every seat's list); no prices.

        \b
        Example:
          zonesim compare campaign --baseline "" --variant "item=Dosimeter" \\
            --variant "armor=SEVA suit"
          zonesim compare campaign base --variant "label=now" \\
            --variant "edit=enemies.Bloodsucker.endurance=6" --metric p_sarcophagus
          zonesim compare campaign base --baseline "" --variant "armor=SEVA suit" \\
            --cash-equivalent --metric p_sarcophagus
          zonesim compare campaign base --baseline "" --variant "item+=Jetpack" \\
            --cash-equivalent --metric p_sarcophagus
          zonesim compare campaign four_stalkers --baseline "" --trials 20000 \\
            --variant "edit=rules.multiplayer.first_player=seat1" \\
            --variant "shopping_gear=Shotgun"
        """
        if scenario is not None and scenario_option is not None:
            raise click.UsageError("give the scenario once: as SCENARIO or as --scenario")
        chosen = load_scenario(scenario or scenario_option)
        if chosen.multiplayer and money is not None:
            raise click.UsageError(f"--{'pay' if money == 'pay' else 'cash-equivalent'} "
                                   "prices one stalker's loadout; a multiplayer scenario's "
                                   "variants change every seat")
        played = registry.for_scenario(exp.name, chosen)
        rs = chosen.ruleset if rules_dir is None else common.load_rules_or_exit(rules_dir)
        setup = played.from_scenario(chosen)
        if rules_dir is not None:
            common.rules_lack(rs, setup, rules_dir)
        _run(played, setup, variants, baseline, against, metrics, target_texts,
             targets_file, trials, seed, rules_dir, fmt, threads, rs=rs, money=money,
             seats=chosen.multiplayer)

    return command


for _exp in registry.experiments():
    compare.add_command((encounter_command if _exp.card_key is not None
                         else campaign_command)(_exp))


compare.add_command(compare_skirmish)


@compare.command("scenarios")
@click.argument("scenario")
@click.option("--baseline", "other", required=True, metavar="SCENARIO|DIR",
              help="The baseline: a scenario (file or bundled name), or a ruleset folder "
                   "played with SCENARIO's stalker, loadout and policy.")
@common.trials_option(20_000)
@click.option("--campaign-trials", type=click.IntRange(min=1, max=common.MAX_TRIALS),
              default=CAMPAIGN_TRIALS, show_default=True, help="Games per campaign.")
@common.seed_option
@common.format_option
@common.threads_option
@common.quiet_option
def compare_scenarios(scenario, other, trials, campaign_trials, seed, fmt, threads):
    """Before and after: a scenario against its baseline, every number paired.

    Lists every changed cell (file, card, column, old -> new) of the two
    rulesets and scenario files, then plays both on common random numbers:
    every card of the enemy, anomaly and event decks (--trials each), each
    deck's count-weighted average and the whole campaign (--campaign-trials
    games), each number of both with its 95 % interval and the paired
    difference with its interval. The table shows what moved beyond noise
    (the difference's interval excludes 0), largest first; --format json
    gives changed_cells, moved and every row; --format csv every row. The
    same comparison as 'zonesim report SCENARIO --baseline OTHER', without
    the report folder.

    \b
    Example:
      zonesim compare scenarios base --baseline configs/base --trials 2000 \
        --campaign-trials 2000 --format json
    """
    result = before_after.before_after(load_scenario(scenario), other, trials=trials,
                                       campaign_trials=campaign_trials, seed=seed,
                                       threads=threads)
    cells = "; ".join(f"{r['file']} {r['card']} {r['column']}: {r['old']} -> {r['new']}"
                      for r in result.cells.to_dict("records")) or "none"
    title = (f"{scenario} against {other}: changed cells: {cells}\n"
             f"moved beyond noise ({len(result.to_table())} of {len(result.rows)} numbers, "
             f"paired on common random numbers, seed {seed}; cells: estimate ±95% half-width)")
    common.emit_frame(result.rows, fmt, result.to_dict(), title, result.to_table())
