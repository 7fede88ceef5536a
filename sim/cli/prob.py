"""``zonesim prob``: exact and Monte Carlo probabilities of single dice primitives."""

from __future__ import annotations

from collections.abc import Callable

import click

from sim.cli import common
from sim.experiments import primitives as primitives

INT = common.small_int(-common.MAX_SMALL)
"""A primitive's integer option: bounded, so no value overflows a kernel argument."""


def _common(func: Callable) -> Callable:
    for option in (common.trials_option(), common.seed_option, common.rules_option,
                   common.format_option, common.threads_option, common.quiet_option):
        func = option(func)
    return func


def _items_option(func: Callable) -> Callable:
    return click.option("--item", "item_names", multiple=True, metavar="NAME",
                        help="Item held (repeatable); only the best one counts.")(func)


def _items(ruleset, names):
    unknown = [n for n in names if n not in ruleset.items]
    if unknown:
        known = ", ".join(ruleset.items)
        raise click.BadParameter(f"unknown item {unknown[0]!r} (known: {known})",
                                 param_hint="--item")
    return [ruleset.items[n] for n in names]


def _emit(result: primitives.PrimitiveResult, fmt: str) -> None:
    params = ", ".join(f"{k}={v}" for k, v in result.params.items())
    title = (f"{result.primitive}: {params}; {result.trials} trials, seed {result.seed}; "
             "ci = 95% Wilson interval")
    common.emit_frame(result.to_frame(), fmt, result.to_dict(), title)


@click.group(cls=common.Group)
def prob() -> None:
    """Exact probability, Monte Carlo estimate and 95 % interval of one dice primitive.

    \b
    Example:
      zonesim prob pool --dice 4 --need 2
      zonesim prob event --avoid-on 4 --item Dosimeter --format json
    """


@prob.command()
@click.option("--dice", type=INT, required=True, help="Pool size n (number of d6).")
@click.option("--success-on", type=INT, default=None,
              help="Die face that counts as a success (default: the ruleset's dice.success_on).")
@click.option("--need", type=INT, default=1, show_default=True,
              help="Successes needed to pass; 0 or less passes without rolling.")
@_common
def pool(dice, success_on, need, trials, seed, rules_dir, fmt, threads):
    """Pool test (P-16, P-19, P-31, P-32): successes among n d6 and P(pass).

    \b
    Example:
      zonesim prob pool --dice 4 --success-on 5 --need 2 --trials 1000000
    """
    ruleset = common.load_rules_or_exit(rules_dir)
    face = ruleset.rules.dice.success_on if success_on is None else success_on
    _emit(primitives.pool(dice, face, need, trials=trials, seed=seed, threads=threads),
          fmt)


@prob.command()
@click.option("--wounds", type=INT, required=True, help="Incoming wounds W of one type.")
@click.option("--resist", type=INT, default=None,
              help="Die face that absorbs (2..6); omit for no protection.")
@click.option("--durability", type=INT, required=True, help="Armour durability D.")
@click.option("--tokens", type=INT, default=0, show_default=True,
              help="Damage tokens already on the armour (0..D-1).")
@_common
def armor(wounds, resist, durability, tokens, trials, seed, rules_dir, fmt, threads):
    """Armour absorption (P-02..P-06): wounds through 0..W and P(destroyed).

    \b
    Example (the seed's Ecolog suit against a Burner, P-06):
      zonesim prob armor --wounds 3 --resist 3 --durability 4 --tokens 3
    """
    common.load_rules_or_exit(rules_dir)
    _emit(primitives.armor(wounds, resist, durability, tokens, trials=trials, seed=seed,
               threads=threads), fmt)


@prob.command()
@click.option("--avoid-on", type=INT, required=True,
              help="The event's avoid roll: avoided on a d6 of this or more.")
@_items_option
@_common
def event(avoid_on, item_names, trials, seed, rules_dir, fmt, threads):
    """Event avoidance (Z-08..Z-10) with the best event item held.

    \b
    Example (Z-09's table row for the Dosimeter):
      zonesim prob event --avoid-on 4 --item Dosimeter
    """
    ruleset = common.load_rules_or_exit(rules_dir)
    _emit(primitives.event(avoid_on, _items(ruleset, item_names), trials=trials,
               seed=seed, threads=threads), fmt)


@prob.command()
@click.option("--reputation", type=INT, required=True, help="The stalker's Reputation.")
@_items_option
@_common
def escape(reputation, item_names, trials, seed, rules_dir, fmt, threads):
    """Escape by Reputation (Z-15..Z-17) with the best escape item held.

    \b
    Example (Z-16: Reputation 5 with the Camouflage cloak avoids on 3..6):
      zonesim prob escape --reputation 5 --item "Camouflage cloak"
    """
    ruleset = common.load_rules_or_exit(rules_dir)
    _emit(primitives.escape(reputation, _items(ruleset, item_names), trials=trials,
               seed=seed, threads=threads), fmt)


@prob.command()
@click.option("--skill", type=INT, required=True, help="The figure's Skill.")
@click.option("--covering", is_flag=True, help="The figure is Covering: one more die (S-15).")
@_common
def reaction(skill, covering, trials, seed, rules_dir, fmt, threads):
    """Reaction test (S-11, S-15): number of dice passed (0, 1, 2) on 2d6 <= Skill.

    With --covering a third die is rolled and the number of dice passed is
    capped at 2 (ruleset keys reaction.covering_extra_dice, reaction.result_cap).

    \b
    Example:
      zonesim prob reaction --skill 4 --covering
    """
    ruleset = common.load_rules_or_exit(rules_dir)
    _emit(primitives.reaction(skill, covering,
               extra_dice=ruleset.rules.reaction.covering_extra_dice,
               cap=ruleset.rules.reaction.result_cap, trials=trials, seed=seed,
               threads=threads), fmt)
