"""The README a newcomer meets: the two commands on its first screen, a quick start whose printed output is the
output pasted below it, and commands and links that point at files that exist."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DATA_SUFFIXES = (".jsonl", ".json", ".csv", ".parquet", ".yaml", ".yml")


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


def test_the_two_commands_are_in_the_first_60_lines():
    head = README.splitlines()[:60]
    assert any(line.startswith("make demo") for line in head) and any(line.startswith("make test") for line in head)


def test_the_quick_start_prints_the_output_pasted_below_it():
    code = _blocks(README, "python")[0]
    pasted = _blocks(README, "text")[0]
    assert len([line for line in code.splitlines() if line.strip()]) <= 10, "the quick start is ten lines"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == pasted.strip()


def _inputs(text: str) -> list[str]:
    """File paths given to ``rafs`` commands in the text's bash blocks (the positional input, ``--problems``,
    ``--config``), and ``make``/``python`` script paths."""
    found = []
    for block in _blocks(text, "bash"):
        for line in block.replace("\\\n", " ").splitlines():
            tokens = line.split("#", 1)[0].split()
            if len(tokens) >= 3 and tokens[0] == "rafs":
                args = tokens[2:]
                for i, tok in enumerate(args):
                    before = args[i - 1] if i else ""
                    if tok.startswith("-") or before.startswith("--") and before not in ("--problems", "--config"):
                        continue
                    if tok.endswith(DATA_SUFFIXES) or before in ("--problems", "--config"):
                        found.append(tok)
    return found


def test_every_file_a_readme_or_guide_command_reads_exists(shared_data):
    """The README's screen example read a results.csv that does not exist; the commands a newcomer copies (README,
    docs/guide.md) read files that do (the data under ../shared/data, the examples and recipes here)."""
    for doc in ("README.md", "docs/guide.md"):
        for path in _inputs((ROOT / doc).read_text(encoding="utf-8")):
            where = shared_data / path.removeprefix("../shared/data/") if path.startswith("../shared/data/") \
                else ROOT / path
            assert where.exists(), f"{doc}: {path} does not exist"


def test_every_local_link_of_the_readme_and_docs_exists():
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert (doc.parent / target).exists(), f"{doc.relative_to(ROOT)} links to {target}, which does not exist"
