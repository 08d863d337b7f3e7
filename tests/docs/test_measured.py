"""The figures the README and the site state about the tests and the demo come from
scripts/measure_tests.py (docs/_generated/measured-*.md), never typed by hand: the README's
marked paragraphs are those files, word for word, and each names the machine it ran on."""

from __future__ import annotations

import re

import pytest

from tests.docs.markdown_blocks import REPO

GENERATED = REPO / "docs" / "_generated"


@pytest.mark.parametrize("name", ["tests", "demo"])
def test_the_readme_states_what_the_script_measured(name):
    measured = (GENERATED / f"measured-{name}.md").read_text(encoding="utf-8")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- measured:{name} -->\n(.*?)<!-- /measured:{name} -->", readme, re.S)
    assert found, f"README.md lacks the <!-- measured:{name} --> markers"
    assert found.group(1) == measured
    when_and_where = r"(measured|counted) \d{4}-\d\d-\d\d on .+, \d+ cores, load [\d.]+"
    assert re.search(when_and_where, measured), measured


def test_the_site_includes_the_measured_figures():
    pages = {"tests": "development.md", "demo": "getting-started.md"}
    for name, page in pages.items():
        text = (REPO / "docs" / page).read_text(encoding="utf-8")
        assert f'--8<-- "measured-{name}.md"' in text, page
