"""``python -m sim.cli``: the same as the ``zonesim`` console command."""

from sim.cli import main

main(prog_name="zonesim")
