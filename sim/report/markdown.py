"""The report as Markdown: headings, pipe tables and links to the PNG files beside it."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import pandas as pd

from sim.errors import visible
from sim.report import labels
from sim.report.tables import Section

_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MARKUP = re.compile(r"([\\`*_\[\]|~#])")
_BLOCK = re.compile(r"^(\s*)(?:([+-])|(\d{1,9})([.)]))(?=\s|$)")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_TICKS = re.compile(r"`+")


def escape(text: str) -> str:
    """Text shown literally in Markdown, in a paragraph, a heading or a table cell.

    Names come from the designer's CSV and TOML files, so a name like
    ``<img src=x onerror=...>``, ``**Bloodsucker**`` or ``a | b`` must not
    become HTML, emphasis, a link or a new table column: ``&<>`` become HTML
    entities, a backslash goes before each inline markup character
    (``\\ ` * _ [ ] | ~ #``) and before a list marker the text starts with
    (``+``, ``-``, the ``.`` of ``1.``), and a line break becomes a space, so the
    text stays on its line (a heading, a table row, a list item). A character
    a terminal would not show (an ESC in a file name, a right-to-left override)
    is written as an escape first (:func:`sim.errors.visible`).
    """
    text = "".join(_HTML.get(c, c) for c in _LINE_BREAK.sub(" ", visible(text)))
    text = _MARKUP.sub(r"\\\1", text)
    return _BLOCK.sub(lambda m: m.group(1) + (f"\\{m.group(2)}" if m.group(2)
                                              else f"{m.group(3)}\\{m.group(4)}"), text)


def code(text: str) -> str:
    """Text as a Markdown code span (shown literally, in a fixed-width font).

    Backslash escapes do not work inside a code span and a backtick would
    close it, so the span is fenced by one backtick more than the longest run
    of backticks in the text, padded with a space where the text starts or
    ends with a backtick or a space (CommonMark strips one such space from
    each side). A line break becomes a space; a character a terminal would not
    show is written as an escape (:func:`sim.errors.visible`).
    """
    text = _LINE_BREAK.sub(" ", visible(text))
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in _TICKS.findall(text)), default=0) + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text}{pad}{fence}"


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
    """Bullet lines: scenario, seed, trials, ruleset digest, versions, wall time.

    Every value is data (a scenario's name, a path, the command line), so each
    is escaped or set as a code span (:func:`escape`, :func:`code`).
    """
    versions = ", ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items() if v)
    return [
        f"- scenario: {code(str(meta.get('scenario')))} "
        f"({escape(str(meta.get('scenario_path')))})",
        f"- seed {escape(str(meta.get('seed')))}; {escape(str(meta.get('trials')))} trials per "
        f"encounter table, {escape(str(meta.get('campaign_trials')))} games",
        f"- ruleset {code(str(meta.get('ruleset_path')))}, digest "
        f"{code(str(meta.get('ruleset_digest')))}",
        f"- created {escape(str(meta.get('created')))}; wall time "
        f"{float(meta.get('wall_s', 0)):.1f} s",
        f"- versions: {escape(versions)}",
        f"- command: {code(' '.join(meta.get('command', [])))}",
    ]


_NOT_SLUG = re.compile(r"[^a-z0-9 _-]")


def slug(title: str) -> str:
    """The anchor a Markdown viewer gives the heading ``title`` (GitHub's rule): lower case,
    every character but letters, digits, spaces, ``-`` and ``_`` left out, spaces as ``-``;
    only those characters, so a name in a title never becomes markup in a link.
    """
    return _NOT_SLUG.sub("", title.lower()).replace(" ", "-")


def _figures(section: Section, images: Mapping[str, str]) -> list[str]:
    """Links to the section's PNG figures, each followed by a blank line."""
    return [line for name in section.figures if name in images
            for line in (f"![{escape(name)}]({images[name]})", "")]


def render(title: str, meta: Mapping, sections: Sequence[Section], summary: pd.DataFrame,
           images: Mapping[str, str]) -> str:
    """The whole page. ``images`` maps a figure name to its PNG file name.

    The contents (links to every section) come first, then the glossary of the
    words win, reach, knock-out and lost (:data:`sim.report.labels.GLOSSARY`),
    then the sections (the first one is the verdict, so the page opens with the
    answers to a designer's questions, each linked to its section), then the
    summary table and the provenance. Links point at each heading's own anchor
    (:func:`slug`), so the page holds no HTML. Every text (title, headings,
    paragraphs, list lines, captions, cells) is plain text, escaped as in the HTML
    page: a card, stalker or scenario name is never markup.
    """
    anchors = [*((s.key, s.title) for s in sections), ("summary", "Summary"),
               ("provenance", "Provenance")]
    titles = dict(anchors)
    out = [f"# {escape(title)}", "",
           "Contents: " + " · ".join(f"[{escape(t)}](#{slug(t)})" for _, t in anchors), "",
           *(f"- **{escape(term)}**: {escape(meaning)}" for term, meaning in labels.GLOSSARY),
           ""]
    for section in sections:
        out += [f"## {escape(section.title)}", ""]
        if section.answers:
            out += ["| question | answer | details |", "| --- | --- | --- |",
                    *(f"| {escape(a.question)} | {escape(a.answer)} | "
                      f"[{escape(titles.get(a.section, a.section))}]"
                      f"(#{slug(titles.get(a.section, a.section))}) |"
                      for a in section.answers), "", *_figures(section, images)]
        for paragraph in section.text:
            if isinstance(paragraph, str):
                out += [escape(paragraph), ""]
            else:
                out += [*(f"- {escape(line)}" for line in paragraph), ""]
        for caption, frame in section.shown.items():
            out += [f"**{escape(caption)}**", "", table(frame), ""]
        if not section.answers:
            out += _figures(section, images)
        if section.tables:
            files = ", ".join(code(f"{n}.csv") for n in section.tables)
            out += [f"Tables: {files} (and `.parquet`).", ""]
    out += ["## Summary", "", table(summary), "", "## Provenance", "", *provenance(meta), ""]
    return "\n".join(out)
