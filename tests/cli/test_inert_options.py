"""Options that cannot change a number are refused, not silently ignored (issue 43).

Under best play the exact plan makes the threshold choices itself (P-16 avoid, P-21 flee,
Z-12..Z-14 stimulants, P-36 enter), and the thresholds never read ``--objective``; a
command that runs any experiment (``tune``, ``sweep``) has options the chosen experiment
does not take; ``levers`` has options of one method only. Each of these, given on the
command line, used to run to the end with the option ignored (exit 0). Each is now refused
before any work, naming the option and why, exit status 2. The checks run before a kernel
is touched, so these tests compile nothing.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sim.cli import main

FAST = ("--trials", "100", "-q")

REFUSED = [
    (["combat", "--scenario", "base", "--enemy", "Bloodsucker", "--policy", "best",
      "--flee-at", "3"], "--flee-at does nothing under --policy best"),
    (["combat", "--scenario", "base", "--enemy", "all", "--policy", "best", "--sneak",
      "never"], "--sneak does nothing under --policy best"),
    (["combat", "--stalker", "Strelok", "--enemy", "all", "--policy", "best", "--heal-at",
      "2"], "--heal-at does nothing under --policy best"),
    (["combat", "--scenario", "base", "--enemy", "Bloodsucker", "--objective", "kill"],
     "--objective does nothing under policy.encounters = \"thresholds\""),
    (["anomaly", "--scenario", "base", "--anomaly", "all", "--policy", "best", "--enter"],
     "--enter does nothing under --policy best"),
    (["event", "--stalker", "Ghost", "--event", "all", "--objective", "value"],
     "--objective does nothing under --policy thresholds"),
    (["artifacts", "--objective", "kill", "--games", "0"], "--objective does nothing"),
    (["levers", "--experiment", "combat", "--card", "Bloodsucker", "--trajectories", "5"],
     "--trajectories is for --method morris"),
    (["levers", "--experiment", "combat", "--card", "Bloodsucker", "--max-steps", "3"],
     "--max-steps is for --target"),
    (["sweep", "--experiment", "anomaly", "--stalker", "Strelok", "--enemy", "Bloodsucker",
      "--vary", "anomalies.Burner.damage=1,2"],
     "--enemy is not an option of 'sweep' for the anomaly experiment"),
    (["sweep", "--experiment", "campaign", "--stalker", "Scar", "--vary",
      "enemies.Bloodsucker.endurance=2,3"],
     "--stalker is not an option of 'sweep' for the campaign experiment"),
    (["sweep", "--experiment", "campaign", "--artifact", "Crystal", "--vary",
      "enemies.Bloodsucker.endurance=2,3"],
     "--artifact is not an option of 'sweep' for the campaign experiment"),
    (["tune", "--stalker", "Strelok", "--enemy", "Bloodsucker", "--enter", "--vary",
      "enemies.Bloodsucker.endurance=1..8", "--target", "knocked_out <= 0.5"],
     "--enter is not an option of 'tune' for the combat experiment"),
]


@pytest.mark.parametrize(("args", "message"), REFUSED,
                         ids=[" ".join(args[:1] + [a for a in args if a.startswith("--")])
                              for args, _ in REFUSED])
def test_an_option_that_does_nothing_is_refused(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a command that got through would write its folder here
    result = CliRunner().invoke(main, [*args, *FAST])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not list(tmp_path.iterdir()), "nothing is written when an option is refused"


def test_inert_keys_follow_the_policy():
    from sim.experiments.setups import PLAN_CHOICES, inert_keys

    thresholds = {"policy": "thresholds", "objective": "survive", "sneak": "always",
                  "flee_at": 0, "heal_at": 0}
    assert inert_keys(thresholds) == ("objective",)
    best = {**thresholds, "policy": "best", "enter": False}
    assert inert_keys(best) == PLAN_CHOICES
    assert inert_keys({"sneak": "always", "flee_at": 2}) == ()  # whole games: no policy key


def test_an_option_that_acts_is_still_taken():
    """Guard: the refusals do not catch options that change the numbers."""
    result = CliRunner().invoke(main, ["combat", "--stalker", "Strelok", "--enemy",
                                       "Bloodsucker", "--flee-at", "3", "--format", "json",
                                       *FAST])
    assert result.exit_code == 0, result.output
