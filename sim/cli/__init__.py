"""The ``zonesim`` command line: a thin click layer over the library.

Each command lives in its own module and only parses options, calls the
library and formats what it returns; it does no arithmetic of its own.
"""

from __future__ import annotations

import click

from sim import __version__
from sim.cli.anomaly import anomaly
from sim.cli.campaign import campaign
from sim.cli.combat import combat
from sim.cli.compare import compare
from sim.cli.event import event
from sim.cli.prob import prob
from sim.cli.report import report
from sim.cli.skirmish import skirmish
from sim.cli.sweep import sweep
from sim.cli.tune import tune
from sim.cli.validate import validate
from sim.report import staging


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="zonesim")
def main() -> None:
    """zonesim: Monte Carlo balance simulator for the Zone board game.

    Every number comes with its exact value where one exists and a 95 %
    confidence interval. Results depend only on --seed and the ruleset, never
    on the thread count.

    \b
    Example:
      zonesim validate configs/base
      zonesim prob armor --wounds 3 --resist 3 --durability 4 --tokens 3
    """
    staging.clean_stale(staging.RESULTS_DIR)  # folders of runs killed before they could clean


main.add_command(validate)
main.add_command(prob)
main.add_command(skirmish)
main.add_command(combat)
main.add_command(campaign)
main.add_command(anomaly)
main.add_command(event)
main.add_command(compare)
main.add_command(tune)
main.add_command(sweep)
main.add_command(report)
