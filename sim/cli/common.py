"""Options and helpers shared by all commands: ruleset loading, output formats."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click
from click.core import ParameterSource

from sim import jsontext, runner
from sim.cli import progress
from sim.errors import InputError, visible
from sim.experiments import policy_keys
from sim.experiments.policy_keys import POLICY_FIELDS
from sim.paths import resolve_ruleset
from sim.rules import Ruleset, RulesetError, load_ruleset
from sim.rules.settings import Setting, by_name, of_kind, plain

if TYPE_CHECKING:  # pandas takes half a second to import; commands that print no frame skip it
    import pandas as pd

FORMATS = ("table", "json", "csv")
DEFAULT_TRIALS = 1_000_000
DEFAULT_SEED = 20261129
MAX_TRIALS = 10**12
"""Most trials one command runs: hours of kernel time already, and far inside int64."""
MAX_SMALL = 1000
"""Bound of every other integer option (Health, thresholds, dice, workers, threads)."""


class Command(click.Command):
    """A zonesim command: the one handler of every error a user can cause.

    A :class:`~sim.rules.RulesetError` prints every problem and exits with
    status 2; any other :class:`~sim.errors.InputError` becomes a click usage
    error (exit status 2, no traceback), naming the option of its ``field``.
    """

    def invoke(self, ctx: click.Context):
        """Run the command, turning library input errors into messages.

        Its kernel runs report to the command's progress :func:`bar`, which
        is erased before anything else (an error, Ctrl-C) is printed.
        """
        shown = bar(ctx)
        try:
            try:
                with runner.reporting(shown if shown.enabled else None):
                    return super().invoke(ctx)
            finally:
                shown.close()
        except RulesetError as error:
            exit_with_problems(error)
        except InputError as error:
            message = visible(str(error))  # names that differ by a zero-width space differ
            if error.field:
                raise click.BadParameter(message, ctx=ctx,
                                         param_hint=f"--{error.field.replace('_', '-')}") from None
            raise click.UsageError(message, ctx=ctx) from None


class Group(click.Group):
    """A zonesim command group whose subcommands are :class:`Command`."""

    command_class = Command


_QUIET = "zonesim.quiet"
_BAR = "zonesim.bar"


def quiet_option(func: Callable) -> Callable:
    """``--quiet``: no progress bar or progress lines on stderr."""
    def remember(ctx: click.Context, param: click.Parameter, value: bool) -> None:
        if value:
            ctx.meta[_QUIET] = True

    return click.option("--quiet", "-q", is_flag=True, expose_value=False, callback=remember,
                        help="Show no progress on stderr (bar, time left, section lines).")(func)


def bar(ctx: click.Context | None = None) -> progress.Bar:
    """The progress bar of the running command (created on first use).

    It shows only when stderr is a terminal and ``--quiet`` was not given, so
    piped output and logs stay clean.
    """
    ctx = ctx or click.get_current_context()
    if _BAR not in ctx.meta:
        label = " ".join(ctx.command_path.split()[1:]) or ctx.info_name or "zonesim"
        ctx.meta[_BAR] = progress.Bar(label, not ctx.meta.get(_QUIET) and sys.stderr.isatty())
    return ctx.meta[_BAR]


def small_int(low: int = 0) -> click.IntRange:
    """An integer option from ``low`` to :data:`MAX_SMALL`, so kernels never see an overflow."""
    return click.IntRange(min=low, max=MAX_SMALL)


def trials_option(default: int = DEFAULT_TRIALS) -> Callable:
    """``--trials N``: number of Monte Carlo trials."""
    return click.option("--trials", type=click.IntRange(min=1, max=MAX_TRIALS), default=default,
                        show_default=True,
                        help=f"Number of Monte Carlo trials (at most {MAX_TRIALS:.0e}).")


def seed_option(func: Callable) -> Callable:
    """``--seed S``: the run seed; same seed and ruleset give bit-identical results."""
    return click.option("--seed", type=click.IntRange(min=0, max=2**63 - 1),
                        default=DEFAULT_SEED, show_default=True,
                        help="Random seed (results are bit-identical for a seed).")(func)


def threads_option(func: Callable) -> Callable:
    """``--threads K``: kernel threads; never changes a result."""
    return click.option("--threads", type=small_int(1), default=None,
                        help="Threads for the kernels (default: all cores). "
                             "Results do not depend on it.")(func)


def rules_option(func: Callable) -> Callable:
    """``--rules DIR``: the ruleset folder (default: the bundled base set)."""
    return click.option("--rules", "rules_dir", type=click.Path(), default=None,
                        help="Ruleset folder, or a bundled ruleset's name (default: base); "
                             "write ./base for a local folder of that name.")(func)


def _apply(func: Callable, options: list[Callable]) -> Callable:
    for option in reversed(options):
        func = option(func)
    return func


LOADOUT_OPTIONS: dict[str, Callable] = {
    "armor": click.option("--armor", default=None, help="Armour worn (default: none)."),
    "weapons": click.option("--weapon", "weapons", multiple=True, metavar="NAME",
                            help="Weapon card carried (repeatable); the best within 2 hands is "
                                 "used each round (P-23, P-29)."),
    "items": click.option("--item", "items", multiple=True, metavar="NAME",
                          help="Item carried (repeatable): stimulants heal in combat (Z-12), the "
                               "best escape item helps under combat.avoid_rule = reputation, the "
                               "best event item on events (Z-10); others are ignored."),
}
"""The option of each loadout setup key (``--armor``, ``--weapon``, ``--item``)."""


def loadout_options(func: Callable) -> Callable:
    """``--armor``, ``--weapon`` (repeatable), ``--item`` (repeatable): what the stalker carries."""
    return _apply(func, list(LOADOUT_OPTIONS.values()))


def artifact_options(func: Callable) -> Callable:
    """``--artifact`` (repeatable), ``--intellect``: artefacts carried and their activation."""
    return _apply(func, [
        click.option("--artifact", "artifacts", multiple=True, metavar="NAME",
                     help="Artefact carried (repeatable), used by the rules of docs/rules.md "
                          "(P-08..P-10): combat/stealth dice, heal/calm at --heal-at, resist "
                          "per damage."),
        click.option("--intellect", type=small_int(0), default=None,
                     help="Intellect for the artefacts' activation tests (P-10); default: the "
                          "stalker card's."),
    ])


def setting_option(option: str, help: str | None = None, dest: str | None = None) -> Callable:
    """Option ``option`` (``--sneak``) as the table of settings declares it, with the setting
    that names it (:mod:`sim.rules.settings`): a flag for a ``bool``, its choices (default:
    the setting's) for a ``choice``, ``0..``:data:`MAX_SMALL` for an ``int`` threshold
    (default 0, never: a scenario's own default is its ``[policy]``'s).

    Parameters
    ----------
    option : str
        The option of a setting.
    help : str or None
        The option's help, where it says more than the setting's doc line and rule IDs
        (the default help: the doc line).
    dest : str or None
        The command's parameter, where it is not the option's name (``encounter_policy``).

    Raises
    ------
    TypeError
        No setting has the option, or its type is one no option reads.
    """
    named = [s for s in of_kind() if s.option == option]
    if not named:
        raise TypeError(f"no setting has the option {option}")
    return _option(named[0], help, dest)


def _option(s: Setting, help: str | None = None, dest: str | None = None) -> Callable:
    """The option of setting ``s`` (:func:`setting_option`)."""
    decls = (s.option, dest) if dest else (s.option,)
    words = help or f"{plain(s.doc)}."
    if s.option and s.type == "bool":
        return click.option(*decls, is_flag=True, default=False, help=words)
    if s.option and s.type == "choice":
        return click.option(*decls, type=click.Choice(s.choices), default=s.default,
                            show_default=True, help=words)
    if s.option and s.type == "int":
        return click.option(*decls, type=small_int(0), default=0, show_default=True,
                            help=words)
    raise TypeError(f"setting {s.name!r} ({s.type}, option {s.option or 'none'}): no option "
                    "reads it")


FIGHT_POLICY_HELP = {
    "sneak": "Try to avoid the fight first, or fight for the trophy (P-16, P-17).",
    "flee_at": "From round 2, try to flee at this Health or less (0 = never; P-21).",
    "heal_at": "Use stimulants at this Health or less (0 = never; Z-12..Z-14).",
}
"""The help of a fight policy option, where it says more than its setting's doc line."""


def _fight_policy_options() -> dict[str, Callable]:
    """The option of each ``[policy]`` key of fights that whole games play too: the
    thresholds (:func:`sim.experiments.policy_keys.option_keys`).
    """
    return {key: _option(by_name()[f"policy.{POLICY_FIELDS.get(key, key)}"],
                         FIGHT_POLICY_HELP.get(key))
            for key in policy_keys.option_keys("combat")}


FIGHT_POLICY_OPTIONS: dict[str, Callable] = _fight_policy_options()
"""The option of each fight policy setup key (``--sneak``, ``--flee-at``, ``--heal-at``)."""


def fight_policy_options(func: Callable) -> Callable:
    """``--sneak``, ``--flee-at``, ``--heal-at``: the stalker's choices in a fight.

    A command takes them as keyword arguments (``**fight_policy``) and reads them with
    :func:`option_values` (``option_values(tuple(FIGHT_POLICY_OPTIONS))``), so a new key's
    option reaches it with no line of its own.
    """
    return _apply(func, list(FIGHT_POLICY_OPTIONS.values()))


def best_play_options(func: Callable) -> Callable:
    """``--policy thresholds|best`` and ``--objective``: who makes the encounter's choices."""
    return _apply(func, [
        setting_option("--policy", dest="encounter_policy", help=(
            "thresholds: the scenario's fixed choices (--sneak/--flee-at/--heal-at in fights, "
            "--enter in anomalies); best: the exact optimal decisions of each card, solved by "
            "backward induction (fights P-16..P-24, anomalies P-36, artefacts P-08). A "
            "scenario sets it as policy.encounters.")),
        setting_option("--objective", help=(
            "What --policy best maximises: survive = P(not knocked out); kill = the trophy: "
            "P(enemy killed) in a fight (P-17), P(artefact found) in an anomaly (P-35); value "
            "= the expected value of the scenario's policy.weights (a knock-out's cost, each "
            "wound's, dose's, limited use's and side effect's, a kill's worth).")),
    ])


THRESHOLD_OPTIONS = tuple(by_name()[f"policy.{POLICY_FIELDS.get(key, key)}"].option
                          for key in policy_keys.THRESHOLDS)
"""The options of the encounters' thresholds (``--sneak`` .. ``--enter``), in field order."""

SCENARIO_HELP = ("Take the stalker, loadout (armour, weapons, items) and policy ("
                 + ", ".join(o.removeprefix("--") for o in THRESHOLD_OPTIONS)
                 + ") from this scenario (a file, or a bundled scenario's name such as base) "
                 "and its ruleset; options given here override it ('--armor none', "
                 "'--item none' for nothing).")


def scenario_option(func: Callable | None = None, *, dest: str = "scenario") -> Callable:
    """``--scenario FILE|NAME``: the stalker, loadout and policy a command starts from.

    ``dest`` names the parameter where a command's SCENARIO argument has the name.
    """
    option = click.option("--scenario", dest, default=None, metavar="FILE|NAME",
                          help=SCENARIO_HELP)
    return option if func is None else option(func)


_PARAMS = {"anomaly": "anomaly_name", "event": "event_name", "policy": "encounter_policy"}
"""Setup keys whose command-line parameter has another name."""


def param_of(key: str) -> str:
    """The command-line parameter that sets setup key ``key`` (``anomaly``: ``anomaly_name``)."""
    return _PARAMS.get(key, key)


def option_of(param: str, ctx: click.Context | None = None) -> str:
    """The option a parameter of the running command is given by (``weapons``: ``--weapon``)."""
    ctx = ctx or click.get_current_context()
    return next(p.opts[0] for p in ctx.command.params if p.name == param)


def card_options(default: str | None, text: Callable) -> Callable:
    """One ``--<card_key>`` option per encounter of :mod:`sim.experiments.registry`
    (``--enemy``, ``--anomaly``, ``--event``), its parameter :func:`param_of` the key.

    ``text(experiment)`` is each option's help; ``default`` its default (None: not given).
    """
    from sim.experiments import registry

    def apply(func: Callable) -> Callable:
        return _apply(func, [
            click.option(f"--{e.card_key}", param_of(e.card_key), default=default,
                         show_default=default is not None, help=text(e))
            for e in registry.encounters()])

    return apply


def option_values(keys: Sequence[str], ctx: click.Context | None = None) -> dict[str, object]:
    """The running command's option values for the setup ``keys`` it has an option for
    (:func:`param_of`), in the order of ``keys``: a command names no setup key itself.
    """
    params = (ctx or click.get_current_context()).params
    return {key: params[param_of(key)] for key in keys if param_of(key) in params}


def given(name: str, ctx: click.Context | None = None) -> bool:
    """Whether the parameter ``name`` was given on the command line (not left at its default)."""
    ctx = ctx or click.get_current_context()
    source = ctx.get_parameter_source(name)
    return source is not None and source not in (ParameterSource.DEFAULT,
                                                 ParameterSource.DEFAULT_MAP)


def setup_and_rules(experiment: str, scenario: str | None, rules_dir: str | None,
                    values: dict) -> tuple[dict, Ruleset]:
    """A command's setup and ruleset, with ``--scenario`` and the options given.

    ``values`` maps setup keys to the command's option values; those given on
    the command line override the scenario, the others are defaults
    (:func:`sim.experiments.setups.resolve_setup`). The ruleset is the
    scenario's unless ``--rules`` is given. A scenario that cannot be loaded
    exits with status 2, naming its file, line and key; so does a ``--rules``
    folder lacking a card, location or Secret Complex the setup names
    (:func:`rules_lack`), before anything plays.
    """
    from sim.experiments.setups import resolve_setup
    from sim.rules.scenario import load_scenario

    ctx = click.get_current_context()
    explicit = {k: v for k, v in values.items() if given(param_of(k), ctx)}
    defaults = {k: v for k, v in values.items() if k not in explicit}
    chosen = None if scenario is None else load_scenario(scenario)
    resolved = resolve_setup(experiment, chosen, explicit, defaults)
    setup = {k: resolved[k] for k in values} | resolved  # the command's key order
    refuse_inert(setup, explicit, chosen)
    rs = chosen.ruleset if chosen is not None and rules_dir is None \
        else load_rules_or_exit(rules_dir)
    if rules_dir is not None:
        rules_lack(rs, setup, rules_dir)
    return setup, rs


def target(text: str, option: str = "--target"):
    """The :class:`~sim.workflows.targets.Target` an option gives, its bounds checked.

    A text that does not parse, or whose bound lies outside the values its metric can take
    (:func:`sim.workflows.targets.out_of_range`: ``p_sarcophagus >= 1.5``), is a usage
    error naming ``option`` (exit status 2).
    """
    from sim.experiments import registry
    from sim.workflows import targets

    try:
        parsed = targets.parse_target(text)
        return targets.checked(parsed, registry.metrics().get(parsed.metric))
    except targets.TargetError as error:
        raise click.BadParameter(str(error), param_hint=option) from None


def rules_lack(rs: Ruleset, setup: Mapping, rules_dir: str) -> None:
    """Refuse a ``--rules`` folder that lacks a name ``setup`` uses (every one, at once).

    A scenario's loadout and policy name cards of its own ruleset; played on
    another folder, a missing one would stop the command after its work began,
    naming no option. Exits with status 2 naming ``--rules``, the folder and each name
    (:func:`sim.workflows.compare.unknown_names`).
    """
    from sim.workflows.compare import unknown_names

    missing = unknown_names(rs, setup)
    if missing:
        raise click.BadParameter(f"ruleset {rules_dir!r} has no " + "; no ".join(missing),
                                 param_hint="--rules")


def refuse_inert(setup: Mapping, explicit: Iterable[str], scenario=None) -> None:
    """Refuse an option given on the command line that cannot change the setup's numbers.

    Best play decides when to avoid, flee, heal and enter itself, and the thresholds
    never read ``--objective`` (:func:`sim.experiments.setups.inert_keys`): such an option
    would be silently ignored, so it is refused with the policy that makes it inert,
    exit status 2.
    """
    from sim.experiments.setups import inert_keys

    inert = [key for key in inert_keys(setup) if key in explicit]
    if not inert:
        return
    ctx = click.get_current_context()
    policy = str(setup["policy"])
    where = (f"--policy {policy}" if given("encounter_policy", ctx) or scenario is None
             else f"policy.encounters = \"{policy}\" in {visible(str(scenario.path))}")
    what = ("the exact plan makes that choice" if policy != "thresholds"
            else "only best play (--policy best) has an objective")
    raise click.UsageError(f"{option_of(param_of(inert[0]), ctx)} does nothing under "
                           f"{where}: {what}")


def refuse_options_of_others(exp, command: str, takes: Sequence[str] | None = None,
                             also: Sequence[str] = ()) -> None:
    """Refuse an option given for a setup key that ``command`` does not pass to ``exp``.

    Commands that run any experiment (tune, sweep) have the options of all of them
    (``--enemy``, ``--enter``, ``--flee-at``...); one given for a key the chosen
    experiment does not take would do nothing. ``takes`` are the setup keys the command
    passes on (default: the experiment's ``option_keys``); ``also`` names more parameters
    of the command that ``exp`` does not read.
    """
    from sim.experiments import registry

    takes = exp.option_keys if takes is None else takes
    keys = dict.fromkeys(k for e in registry.experiments() for k in e.option_keys)
    params = [param_of(k) for k in keys if k not in takes] + list(also)
    for param in params:
        if given(param):
            hint = ("" if exp.card_key is not None else ": whole games play the scenario's "
                    "stalker, loadout and policy (give --scenario)")
            raise click.UsageError(f"{option_of(param)} is not an option of '{command}' for "
                                   f"the {exp.name} experiment{hint}")


def format_option(func: Callable) -> Callable:
    """``--format table|json|csv``."""
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table",
                        show_default=True, help="Output format.")(func)


def load_rules_or_exit(path: str | Path | None) -> Ruleset:
    """Load a ruleset; on problems print every one of them and exit with status 2."""
    try:
        return load_ruleset(resolve_ruleset(path))
    except RulesetError as error:
        exit_with_problems(error)


def exit_with_problems(error: RulesetError) -> NoReturn:
    """Print every problem of a ruleset or scenario and exit with status 2 (no traceback)."""
    report_problems(error)
    sys.exit(2)


def report_problems(error: RulesetError) -> None:
    """Print each ruleset problem on its own line to stderr, then a count."""
    for problem in error.problems:
        click.echo(str(problem), err=True)
    n = len(error.problems)
    click.echo(f"zonesim: {n} problem{'s' if n != 1 else ''} in the ruleset", err=True)


@contextmanager
def results_folder(out: Path | None, name: str) -> Iterator[tuple[Path, progress.Bar]]:
    """Open the results folder of a command that runs many points (sweep, levers).

    ``out``, or a new ``results/<name>-<timestamp>`` folder, is refused if it
    exists and probed for writing before any run starts; faults and stop
    signals are handled as in :func:`writing_results`. Yields the folder and
    the command's one progress bar over its points.
    """
    from sim.report.staging import probe
    from sim.report.writer import RESULTS_DIR, default_folder, refuse_existing

    folder = out if out is not None else default_folder(name, RESULTS_DIR)
    with writing_results():
        try:
            refuse_existing(folder)
        except FileExistsError as error:
            raise click.ClickException(str(error)) from None
        probe(folder)
        yield folder, bar()


@contextmanager
def writing_results() -> Iterator[None]:
    """Run a command that writes a results folder: file-system faults and stop signals
    become one line, with nothing left behind.

    A :class:`~sim.report.staging.WriteError` (read-only folder, permission
    denied, disk full) exits with status 1; SIGTERM or SIGHUP exit with
    128 + the signal number, after the temporary folder is removed.
    """
    from sim.report import staging

    try:
        with staging.stop_on_signals():
            yield
    except staging.WriteError as error:
        raise click.ClickException(str(error)) from None
    except staging.Stopped as stop:
        click.echo(f"zonesim: {stop}; no results folder was written", err=True)
        sys.exit(128 + stop.signum)


def shown_path(path: str | Path) -> str:
    """A path as a message line shows it: a file or folder name is the user's and may hold an
    ESC, a line break or a right-to-left override, each written as an escape
    (:func:`sim.errors.visible`).
    """
    return visible(str(path), lines=False)


def dumps(obj) -> str:
    """JSON text of a result dictionary: strict JSON, numpy scalars converted and NaN and
    infinities as null (:func:`sim.jsontext.dumps`).
    """
    return jsontext.dumps(obj)


def csv_text(frame: pd.DataFrame) -> str:
    """``frame`` as the text of ``--format csv``: six significant digits, and text cells a
    spreadsheet would run as formulas neutralised (:func:`sim.report.writer.to_csv`).
    """
    from sim.report.writer import to_csv

    return to_csv(frame, float_format="%.6g")


def emit_frame(frame: pd.DataFrame, fmt: str, json_obj: dict, title: str = "",
               table: pd.DataFrame | None = None, notes: Sequence[str] = ()) -> None:
    """Print a result as an aligned table, CSV, or the command's JSON document.

    ``table`` is an optional readable version of ``frame`` for the table format;
    ``notes`` are lines printed under it (the JSON and CSV hold them as fields).
    """
    if fmt == "json":
        click.echo(dumps(json_obj))
    elif fmt == "csv":
        click.echo(csv_text(frame), nl=False)
    else:
        if title:
            click.echo(visible(title))
        shown = frame if table is None else table
        click.echo(shown.to_string(index=False, float_format=lambda x: f"{x:.6f}"))
        for line in notes:
            click.echo(visible(line))


def emit_rows(frame: Callable[[], pd.DataFrame], fmt: str, json_obj: dict, title: str,
              rows: Sequence[Mapping[str, str]], notes: Sequence[str] = ()) -> None:
    """:func:`emit_frame` for a result whose readable table is ``rows`` of text cells.

    The JSON document and the table are printed without pandas (a fifth of
    a second to import, issue 13); only CSV builds the ``frame``. ``notes``
    are lines printed under the table (the JSON and CSV hold them as fields).
    """
    if fmt == "json":
        click.echo(dumps(json_obj))
    elif fmt == "csv":
        click.echo(csv_text(frame()), nl=False)
    else:
        if title:
            click.echo(visible(title))
        click.echo(text_table(rows))
        for line in notes:
            click.echo(line)


def text_table(rows: Sequence[Mapping[str, str]]) -> str:
    """Rows of text as ``pandas.DataFrame(rows).to_string(index=False)`` prints them.

    Columns in order of first appearance, each as wide as its longest entry
    (its name included), every entry right-aligned, one space between
    columns; a cell a row lacks reads ``NaN``.
    """
    names = list(dict.fromkeys(name for row in rows for name in row))
    columns = [[name, *(str(row.get(name, "NaN")) for row in rows)] for name in names]
    widths = [max(map(len, column)) for column in columns]
    return "\n".join(" ".join(column[i].rjust(width) for column, width
                               in zip(columns, widths, strict=True))
                      for i in range(len(rows) + 1))
