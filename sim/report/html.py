"""The report as one self-contained HTML page: inline CSS, figures embedded as base64 PNG.

The page needs nothing else to be read: no scripts, no external style sheets,
no image files (the PNGs beside it are the same images, for reuse).
"""

from __future__ import annotations

import base64
import html
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from sim.errors import visible
from sim.report import labels
from sim.report.tables import Section

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em;
       color: #222; line-height: 1.45; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; }
th { background: #f0f0f0; }
td.PASS, span.PASS { background: #d8f3dc; } td.FAIL, span.FAIL { background: #ffd6d6; }
td.UNDECIDED, span.UNDECIDED { background: #fff3c4; }
span.PASS, span.FAIL, span.UNDECIDED { font-weight: bold; padding: 0 0.2em; }
#verdict + p { font-size: 1.2em; }
figure { margin: 1em 0; } img { max-width: 100%; }
.meta { font-size: 0.85em; color: #555; }
code { background: #f4f4f4; padding: 0 0.2em; }
.glossary { font-size: 0.9em; color: #444; margin: 0 0 1em; }
.glossary dt { font-weight: bold; float: left; margin-right: 0.4em; }
.glossary dt::after { content: ":"; } .glossary dd { margin: 0 0 0.2em; }
nav.contents { font-size: 0.9em; margin: 0 0 1em; }
table.answers { font-size: 1em; } table.answers th { width: 16em; background: #f7f7f7; }
"""


def esc(text: str) -> str:
    """Text shown as written in the page: HTML's special characters as entities, and each
    character a terminal would not show (an ESC in a file name, a right-to-left override)
    as an escape (:func:`sim.errors.visible`).
    """
    return html.escape(visible(text))


def data_uri(png: bytes) -> str:
    """``data:image/png;base64,...`` for PNG bytes."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def table(frame: pd.DataFrame) -> str:
    """A DataFrame as an HTML table; verdict cells get a class for colour."""
    head = "".join(f"<th>{esc(str(c))}</th>" for c in frame.columns)
    rows = []
    for row in frame.itertuples(index=False, name=None):
        cells = []
        for value in row:
            text = _cell(value)
            css = f' class="{text}"' if text in ("PASS", "FAIL", "UNDECIDED") else ""
            cells.append(f"<td{css}>{esc(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


@dataclass(frozen=True)
class _Anchor:
    key: str
    title: str


_VERDICT = re.compile(r"\b(PASS|FAIL|UNDECIDED)\b")


def _verdicts(text: str) -> str:
    """Escaped text with each verdict word coloured like the verdict cells."""
    return _VERDICT.sub(r'<span class="\1">\1</span>', text)


def _figures(section: Section, images: Mapping[str, bytes]) -> list[str]:
    """The section's figures, embedded, each with its file name as caption."""
    return [f'<figure><img alt="{esc(name)}" src="{data_uri(images[name])}">'
            f"<figcaption>{esc(name)}.png</figcaption></figure>"
            for name in section.figures if name in images]


def render(title: str, meta: Mapping, sections: Sequence[Section], summary: pd.DataFrame,
           images: Mapping[str, bytes]) -> str:
    """The whole page. ``images`` maps a figure name to its PNG bytes (embedded).

    The contents come right under the title, then the glossary of the words
    win, reach, knock-out and lost (:data:`sim.report.labels.GLOSSARY`) and the
    first section (the verdict): its answers to a designer's questions first,
    one line each with a link to the section that details it
    (:mod:`sim.report.questions`), so the first screen answers in words it has
    defined; the summary table and the provenance close the page.
    """
    versions = ", ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items() if v)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        '<nav class="contents"><b>Contents:</b> ' + " &middot; ".join(
            f'<a href="#{esc(s.key)}">{esc(s.title)}</a>'
            for s in [*sections, _Anchor("summary", "Summary"),
                      _Anchor("provenance", "Provenance")]) + "</nav>",
        '<dl class="glossary">' + "".join(f"<dt>{esc(term)}</dt><dd>{esc(meaning)}</dd>"
                                          for term, meaning in labels.GLOSSARY) + "</dl>",
    ]
    titles = {s.key: s.title for s in sections}
    for section in sections:
        parts.append(f'<h2 id="{esc(section.key)}">{esc(section.title)}</h2>')
        if section.answers:
            parts.append('<table class="answers"><tbody>' + "".join(
                f"<tr><th>{esc(a.question)}</th><td>{_verdicts(esc(a.answer))}</td>"
                f'<td><a href="#{esc(a.section)}">{esc(titles.get(a.section, a.section))}'
                "</a></td></tr>" for a in section.answers) + "</tbody></table>")
            parts += _figures(section, images)  # the first screen's chart under its answers
        for paragraph in section.text:
            if isinstance(paragraph, str):
                parts.append(f"<p>{_verdicts(esc(paragraph))}</p>")
            else:
                parts.append("<ul>" + "".join(f"<li>{esc(line)}</li>" for line in paragraph)
                             + "</ul>")
        for caption, frame in section.shown.items():
            parts += [f"<h3>{esc(caption)}</h3>", table(frame)]
        if not section.answers:
            parts += _figures(section, images)
    parts += [
        '<h2 id="summary">Summary</h2>', table(summary),
        '<h2 id="provenance">Provenance</h2>',
        '<p class="meta">'
        f"scenario <code>{esc(str(meta.get('scenario')))}</code> "
        f"({esc(str(meta.get('scenario_path')))}); seed {esc(str(meta.get('seed')))}; "
        f"{esc(str(meta.get('trials')))} trials per encounter table, "
        f"{esc(str(meta.get('campaign_trials')))} games<br>"
        f"ruleset <code>{esc(str(meta.get('ruleset_path')))}</code>, digest "
        f"<code>{esc(str(meta.get('ruleset_digest')))}</code><br>"
        f"created {esc(str(meta.get('created')))}; wall time "
        f"{float(meta.get('wall_s', 0)):.1f} s; {esc(versions)}<br>"
        f"command: <code>{esc(' '.join(meta.get('command', [])))}</code></p>",
    ]
    parts.append("</body></html>")
    return "\n".join(parts)
