"""Why a paired difference: the games a variant changed, told as they diverged.

``zonesim campaign --trace --variant`` (and ``zonesim explain``) read variants in the
compare grammar (:func:`sim.workflows.compare.parse_variant` on the ``campaign``
experiment): :func:`variant_games` compiles the scenario's game under each.
"""

from __future__ import annotations

from collections.abc import Sequence

from sim.campaign.compile import CampaignArrays
from sim.experiments.campaign_paired import compile_cases
from sim.experiments.registry import experiment
from sim.rules import Ruleset
from sim.rules.scenario import Scenario
from sim.workflows import compare as library

NAME = "campaign"
"""The experiment whose variants these are (whole games)."""


def variant_games(scenario: Scenario, texts: Sequence[str]) -> tuple[list[CampaignArrays],
                                                                      list[Ruleset],
                                                                      list[str]]:
    """The compiled games of ``scenario`` under each variant ``texts`` (compare grammar;
    ``""``: the scenario as it is), their rulesets and their labels.

    Raises
    ------
    CompareInputError
        A variant the compare grammar refuses, a card the ruleset lacks, or a
        multiplayer scenario (variants of whole games play one stalker).
    """
    exp = experiment(NAME)
    base = exp.from_scenario(scenario)
    variants = [library.parse_variant(text, exp) for text in texts]
    cases = library.cases(scenario.ruleset, base, variants)
    return compile_cases(cases), [case.ruleset for case in cases], [v.label for v in variants]


