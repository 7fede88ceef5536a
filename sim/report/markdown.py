"""The report as Markdown: headings, pipe tables and links to the PNG files beside it."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import pandas as pd

from sim.report.tables import Section

_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MARKUP = re.compile(r"([\\`*_\[\]|~])")


def escape(text: str) -> str:
    """Text shown literally in Markdown: HTML entities for ``&<>``, a backslash before markup.

    Card names come from the designer's CSV files, so a name like
    ``<img src=x onerror=...>`` or ``**Bloodsucker**`` must not become markup.
    """
    text = "".join(_HTML.get(c, c) for c in text)
    return _MARKUP.sub(r"\\\1", text).replace("\n", " ")


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return escape(str(value))


def table(frame: pd.DataFrame) -> str:
    """A DataFrame as a GitHub-flavoured pipe table (no index)."""
    head = "| " + " | ".join(_cell(c) for c in frame.columns) + " |"
    rule = "| " + " | ".join("---" for _ in frame.columns) + " |"
    rows = ["| " + " | ".join(_cell(v) for v in row) + " |"
            for row in frame.itertuples(index=False, name=None)]
    return "\n".join([head, rule, *rows])


def provenance(meta: Mapping) -> list[str]:
    """Bullet lines: scenario, seed, trials, ruleset digest, versions, wall time."""
    versions = ", ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items() if v)
    return [
        f"- scenario: `{meta.get('scenario')}` ({meta.get('scenario_path')})",
        f"- seed {meta.get('seed')}; {meta.get('trials')} trials per encounter table, "
        f"{meta.get('campaign_trials')} games",
        f"- ruleset `{meta.get('ruleset_path')}`, digest `{meta.get('ruleset_digest')}`",
        f"- created {meta.get('created')}; wall time {meta.get('wall_s', 0):.1f} s",
        f"- versions: {versions}",
        f"- command: `{' '.join(meta.get('command', []))}`",
    ]


def render(title: str, meta: Mapping, sections: Sequence[Section], summary: pd.DataFrame,
           images: Mapping[str, str]) -> str:
    """The whole page. ``images`` maps a figure name to its PNG file name.

    The sections come first (the first one is the verdict, so the page opens
    with the answers), then the summary table and the provenance.
    """
    out = [f"# {title}", ""]
    for section in sections:
        out += [f"## {section.title}", ""]
        for paragraph in section.text:
            if isinstance(paragraph, str):
                out += [paragraph, ""]
            else:
                out += [*(f"- {escape(line)}" for line in paragraph), ""]
        for caption, frame in section.shown.items():
            out += [f"**{caption}**", "", table(frame), ""]
        for name in section.figures:
            if name in images:
                out += [f"![{name}]({images[name]})", ""]
        if section.tables:
            files = ", ".join(f"`{n}.csv`" for n in section.tables)
            out += [f"Tables: {files} (and `.parquet`).", ""]
    out += ["## Summary", "", table(summary), "", "## Provenance", "", *provenance(meta), ""]
    return "\n".join(out)
