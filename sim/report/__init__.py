"""Reports and results folders: tables, figures, Markdown and HTML pages, provenance.

- :mod:`sim.report.build`: ``run_report``, the battery behind ``zonesim report``.
- :mod:`sim.report.tables`: the battery's sections (deck tables, item comparisons,
  campaign statistics, targets) as tidy DataFrames.
- :mod:`sim.report.plots`: matplotlib figures (object API, no pyplot).
- :mod:`sim.report.markdown`, :mod:`sim.report.html`: the pages.
- :mod:`sim.report.writer`: all-or-nothing folders, CSV and Parquet, ``metadata.json``.

Nothing is imported here, so ``import sim.report`` stays cheap.
"""
