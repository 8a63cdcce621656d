"""Names, tests and docs speak of what they hold, never of a round of work, a session or a date: no file is named
after one, no doc narrates one (the history is in CHANGELOG.md), and no test points at a file outside the
repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROUND_NAME = re.compile(r"(_s\d+[a-z]?|_\d+[a-d]|\d{4}-\d\d-\d\d|_round\d*|_session\d*)\.(py|md|ipynb|json)$")
HISTORY = re.compile(r"\bsession (?:one|two|three|four|five|six|seven|eight|nine|ten|\d+)\b|\bsession-\w+\b|"
                     r"\bround (?:one|two|three|\d+)\b|\bissue[- ]\d+\b|\b20\d\d-\d\d-\d\d\b|\bperf\d+[a-d]?\b")


def _files(*patterns: str) -> list[Path]:
    return sorted(p for pattern in patterns for p in ROOT.glob(pattern) if ".venv" not in p.parts)


def test_no_file_is_named_after_a_round_of_work_or_a_date():
    named = [str(p.relative_to(ROOT)) for p in _files("tests/**/*", "rewards/**/*", "trainers/**/*", "docs/*",
                                                      "benchmarks/*", "scripts/*") if ROUND_NAME.search(p.name)]
    assert named == []


def test_readme_and_docs_narrate_no_history():
    found = []
    for doc in _files("README.md", "docs/*.md"):
        rel = str(doc.relative_to(ROOT))
        for i, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            m = HISTORY.search(line)
            if m:
                found.append(f"{rel}:{i}: {m.group(0)!r}")
    assert found == [], "history belongs in CHANGELOG.md:\n" + "\n".join(found)
    assert (ROOT / "CHANGELOG.md").is_file()


def test_no_test_points_at_a_file_outside_the_repository():
    pointing = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in _files("tests/**/*.py")
                for m in re.finditer(r"/tmp/[\w./-]+", p.read_text(encoding="utf-8"))]
    assert pointing == []
