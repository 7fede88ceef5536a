"""``zonesim studio``: a what-if page in the browser over the library (issue 49).

A thin layer: :mod:`sim.studio.app` (the ASGI app: routes, checks of every request, runs
per tab), :mod:`sim.studio.page` (the page, rendered from the settings table) and
``static/`` (its one script and style). Every number it shows comes from
:mod:`sim.workflows.whatif`; it does no arithmetic on them. Only this package imports
Starlette (``pyproject.toml``'s contracts).
"""
