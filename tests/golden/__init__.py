"""Byte-identical outputs of every command on the bundled configs, for a fixed seed.

A refactor changes no number. This module runs one command per command and
experiment of ``zonesim`` (small trial counts, seed 7) in-process and keeps
what each prints with ``--format json`` (for ``report`` and ``sweep`` also
the tables they write, without the folder's name, its timings and the
platform; the checkout's own path is written ``<root>``, so the file is the
same in every clone). ``tests/golden/outputs.json`` holds the outputs of the last
intended change; ``tests/golden/test_golden.py`` checks every command against it.

When numbers are meant to change (a rule fix, a new card value), regenerate
the file and let the diff show which commands moved::

    python -m tests.golden --update

``python -m tests.golden --check`` prints the commands whose output differs.
Every command of ``zonesim`` is here but those :data:`LEFT_OUT` names, with the reason.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

GOLDEN = Path(__file__).parent / "outputs.json"
ROOT = Path(__file__).resolve().parents[2]
"""The checkout's folder: written as ``<root>`` so the file holds no machine's path."""

STRELOK = ["--stalker", "Strelok", "--armor", "Stalker suit", "--weapon", "SVD sniper rifle",
           "--weapon", "Knife"]
FAST = ["--trials", "3000", "--seed", "7", "--format", "json"]

COMMANDS: dict[str, list[str]] = {
    "prob-pool": ["prob", "pool", "--dice", "4", "--need", "2", *FAST],
    "prob-armor": ["prob", "armor", "--wounds", "3", "--resist", "3", "--durability", "4",
                   "--tokens", "3", *FAST],
    "prob-event": ["prob", "event", "--avoid-on", "4", "--item", "Dosimeter", *FAST],
    "prob-escape": ["prob", "escape", "--reputation", "5", "--item", "Camouflage cloak", *FAST],
    "prob-reaction": ["prob", "reaction", "--skill", "4", "--covering", *FAST],
    "combat-all": ["combat", *STRELOK, "--item", "Stimulant", "--heal-at", "2", "--enemy", "all",
                   *FAST],
    "combat-flee": ["combat", "--stalker", "Scar", "--enemy", "Bloodsucker", "--sneak", "never",
                    "--flee-at", "2", "--weapon", "Grenade", "--weapon", "Shotgun", *FAST],
    "anomaly-all": ["anomaly", "--stalker", "Strelok", "--armor", "Ecolog suit", "--anomaly",
                    "all", *FAST],
    "anomaly-enter": ["anomaly", "--stalker", "Ghost", "--anomaly", "Burner", "--enter",
                      "--health", "2", *FAST],
    "event-all": ["event", "--stalker", "Ghost", "--event", "all", "--armor", "SEVA suit",
                  "--item", "Bag of nuts", *FAST],
    "campaign": ["campaign", *FAST],
    "compare-combat": ["compare", "combat", "--stalker", "Strelok", "--enemy", "Bloodsucker",
                       "--variant", "armor=Ecolog suit", "--variant", "armor=SEVA suit", *FAST],
    "compare-anomaly": ["compare", "anomaly", "--stalker", "Ghost", "--anomaly", "all",
                        "--variant", "armor=Ecolog suit", "--variant", "enter=1", *FAST],
    "compare-event": ["compare", "event", "--stalker", "Strelok", "--event", "all",
                      "--variant", "item=Bag of nuts", "--variant", "item=Torsion scanner",
                      *FAST],
    "compare-campaign": ["compare", "campaign", "--baseline", "", "--variant", "item=Dosimeter",
                         "--variant", "edit=enemies.Bloodsucker.endurance=6", *FAST],
    "compare-campaign-multiplayer": ["compare", "campaign", "four_stalkers", "--baseline", "",
                                     "--variant", "edit=rules.multiplayer.first_player=seat1",
                                     "--variant", "shopping_gear=Shotgun", *FAST],
    "tune-campaign-multiplayer": ["tune", "campaign", "three_stalkers", "--vary",
                                  "rules.multiplayer.new_character_items=1..3", "--target",
                                  "first_seat_advantage in -0.05..0.05", *FAST],
    "tune-combat": ["tune", "--stalker", "Strelok", "--enemy", "Bloodsucker",
                    "--vary", "enemies.Bloodsucker.endurance=1..8",
                    "--target", "knocked_out in 0.2..0.3", *FAST],
    "tune-event": ["tune", "--stalker", "Strelok", "--event", "Radiation spike",
                   "--vary", "events.Radiation spike.avoid_on=2..6", "--target",
                   "avoided >= 0.5", "--method", "scan", *FAST],
    "tune-campaign": ["tune", "campaign", "base", "--vary", "enemies.Bloodsucker.endurance=2..4",
                      "--target", "p_sarcophagus in 0.35..0.55", *FAST],
    "skirmish-street": ["skirmish", *FAST],
    "skirmish-duel": ["skirmish", "configs/skirmish/duel.toml", *FAST],
    "sweep-combat": ["sweep", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--weapon",
                     "AK-74", "--vary", "enemies.Bloodsucker.endurance=2..4", "--workers", "1",
                     *FAST],
    "sweep-campaign": ["sweep", "--experiment", "campaign", "--vary",
                       "enemies.Bloodsucker.endurance=3,4", "--workers", "1", *FAST],
    "readings": ["readings", "base", "--trials", "2000", "--seed", "7", "--format", "json"],
    "report": ["report", "--campaign-trials", "2000", *FAST],
    "settings": ["settings", "--format", "json"],
    "artifacts": ["artifacts", "--artifact", "Crystal", "--artifact", "Stone blood", "--games",
                  "300", *FAST],
    "balance-characters": ["balance", "characters", "four_stalkers", *FAST],
    "balance-seats": ["balance", "seats", "four_stalkers", *FAST],
    "optimize": ["optimize", "base", "--keys", "flee_at", "--trials", "200", "--budget", "2000",
                 "--fresh-trials", "500", "--seed", "7", "--format", "json"],
    "levers": ["levers", "base", "--experiment", "combat", "--card", "Bloodsucker", "--metric",
               "knocked_out", "--cards", "Bloodsucker", "--top", "5", *FAST],
    "explain": ["explain", "base", "--variant", "item+=Jetpack", "--trials", "2000", "--seed",
                "7", "--format", "json"],
    "rebalance": ["rebalance", "base", "--target", "combat:Bloodsucker:knocked_out in 0.2..0.4",
                  "--lever", "enemies.Bloodsucker.*", *FAST],
}
"""Every command and experiment; the key names the output in the golden file."""

LEFT_OUT = {
    "validate": "it prints the ruleset's problems, no number, and has no --format json; "
                "tests/cli/test_cli.py and tests/rules/ check its messages and exit status",
    "studio": "it serves an interactive page until stopped, with no output of its own; its "
              "answers are the library's, which the other commands here cover",
}
"""The commands the golden file leaves out, each with the reason (every other is in
:data:`COMMANDS`, ``tests/golden/test_golden.py`` checks it)."""

WRITES_FOLDER = ("report", "sweep", "levers")
VOLATILE_KEYS = ("folder", "wall_s", "created", "command", "versions", "platform", "cpu_count",
                 "timings", "out", "seconds")


def _strip(value):
    """The JSON without the keys that change from run to run (paths, clocks, versions)."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def run(name: str) -> str:
    """The normalised output of command ``name``: its JSON, plus written tables."""
    from click.testing import CliRunner

    from sim.cli import main

    argv = list(COMMANDS[name])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "out"
        if argv[0] in WRITES_FOLDER:
            argv += ["--out", str(folder)]
        result = CliRunner().invoke(main, argv, catch_exceptions=False)
        if result.exit_code != 0:
            raise RuntimeError(f"{name}: exit {result.exit_code}: {result.output}")
        parts = {"stdout": _strip(json.loads(result.stdout))}
        if folder.is_dir():
            parts["tables"] = {p.name: p.read_text() for p in sorted(folder.glob("*.csv"))}
    return json.dumps(parts, indent=1, sort_keys=True).replace(str(ROOT), "<root>")


def outputs(names=None) -> dict[str, str]:
    """Run the commands ``names`` (default: all) and return their outputs."""
    return {name: run(name) for name in (names or COMMANDS)}


def main(argv=None) -> int:
    """``--update`` rewrites the golden file; ``--check`` lists commands that differ."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    now = outputs()
    if args.update:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        print(f"wrote {GOLDEN} ({len(now)} commands)")
        return 0
    stored = json.loads(GOLDEN.read_text())
    differ = [n for n in now if stored.get(n) != now[n]]
    print("identical" if not differ else "differ: " + ", ".join(differ))
    return 1 if differ else 0

