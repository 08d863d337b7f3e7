"""Helpers shared by the summary tests."""

from __future__ import annotations

import html
import re

from tensorboard import plugin_util


def rendered_table(markdown: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the one table TensorBoard's text plugin renders from ``markdown``
    (its own Markdown renderer and sanitizer)."""
    page = plugin_util.markdown_to_safe_html(markdown)
    assert page.count("<table>") == 1 and "<thead>" in page, page
    head, body = page.split("</thead>")
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    return (
        [html.unescape(c) for c in re.findall(r"<th>(.*?)</th>", head)],
        [[html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", r)] for r in rows],
    )
