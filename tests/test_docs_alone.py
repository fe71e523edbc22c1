"""The repository's docs stand alone: no file points at specification files kept outside the
repository, and every reference to a docs page (and to a section or anchor of it) resolves."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
SPECS = "specs"

# A path token with a component named exactly `specs` followed by more path: `x/specs/a.md`,
# `specs/a.md`; not `toolspecs/a` (the token starts at a non-path character) nor `specs.py`.
EXTERNAL_SPEC = re.compile(rf"(?<![\w./-])((?:[\w.-]+/)*{SPECS}/[\w.-]+(?:/[\w.-]+)*)")
# "spec: `audit.md`" / "specs: `stress.md`": a spec named by file name alone.
NAMED_SPEC = re.compile(r"\bspecs?\s*:\s*`([\w.-]+\.md)`", re.IGNORECASE)
DOC_REF = re.compile(r"(?<![\w./-])docs/([\w.-]+\.md)")
# `docs/x.md, "Section"` or `docs/x.md ("Section")`: the section a comment points to.
DOC_SECTION = re.compile(r"(?<![\w./-])docs/([\w.-]+\.md)(?:,\s*|\s*\(\s*|\s+)\"([^\"\n]+)\"")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):  # an unpacked tree without git
        skip = {".git", ".venv", "out", "node_modules", "__pycache__"}
        return [p for p in REPO.rglob("*") if p.is_file()
                and not skip.intersection(p.relative_to(REPO).parts)]
    return [REPO / name for name in out.decode().split("\0") if name]


def _texts() -> dict[Path, str]:
    texts = {}
    for path in _tracked_files():
        if not path.is_file() or path == Path(__file__).resolve():
            continue  # deleted but not yet committed; this file's examples are meant to fail
        data = path.read_bytes()
        if b"\0" not in data[:8192]:  # binary fixtures hold no references
            texts[path] = data.decode("utf-8", errors="replace")
    return texts


def _exists(ref: str, source: Path) -> bool:
    return (REPO / ref).exists() or (source.parent / ref).exists()


def spec_references(text: str) -> list[str]:
    """Return the spec paths and spec file names that `text` mentions."""
    return EXTERNAL_SPEC.findall(text) + NAMED_SPEC.findall(text)


def github_slug(heading: str) -> str:
    """Return the anchor GitHub gives a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _titles(doc: Path) -> list[str]:
    # Headings and bold run-in titles (`**Flips**`): what a comment may name as a section.
    text = doc.read_text()
    return (re.findall(r"^#+\s+(.*)$", text, re.MULTILINE)
            + re.findall(r"\*\*([^*\n]+)\*\*", text))


def test_the_spec_pattern_finds_what_it_should() -> None:
    assert spec_references(f"see {SPECS}/audit.md, or shared/{SPECS}/trace.md") == \
        [f"{SPECS}/audit.md", f"shared/{SPECS}/trace.md"]
    assert spec_references(f"(spec: `audit.md`) and ({SPECS}: `stress.md`)") == \
        ["audit.md", "stress.md"]
    assert spec_references(f"tool{SPECS}/x.md, task_{SPECS}, {SPECS}.py, a {SPECS} table") == []


def test_no_file_refers_to_specs_outside_the_repository() -> None:
    bad = []
    for path, text in _texts().items():
        for n, line in enumerate(text.splitlines(), 1):
            for ref in spec_references(line):
                named_only = "/" not in ref
                if named_only or not _exists(ref, path):
                    bad.append(f"{path.relative_to(REPO)}:{n}: {ref}")
    assert bad == [], "restate the content in docs/*.md and point there instead"


def test_every_docs_page_named_exists() -> None:
    bad = []
    for path, text in _texts().items():
        for n, line in enumerate(text.splitlines(), 1):
            bad += [f"{path.relative_to(REPO)}:{n}: docs/{page}"
                    for page in DOC_REF.findall(line) if not (DOCS / page).is_file()]
    assert bad == []


def test_every_section_named_beside_a_docs_page_exists() -> None:
    bad = []
    for path, text in _texts().items():
        for page, section in DOC_SECTION.findall(text):
            doc = DOCS / page
            if doc.is_file() and not any(section.lower() in t.lower() for t in _titles(doc)):
                bad.append(f"{path.relative_to(REPO)}: docs/{page} has no section {section!r}")
    assert bad == []


def test_markdown_links_resolve_with_their_anchors() -> None:
    bad = []
    for doc in [REPO / "README.md", *sorted(DOCS.glob("*.md"))]:
        for target in MD_LINK.findall(doc.read_text()):
            if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                continue
            file, _, anchor = target.partition("#")
            dest = (doc.parent / file) if file else doc
            if not dest.exists():
                bad.append(f"{doc.name}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in \
                    {github_slug(h) for h in re.findall(r"^#+\s+(.*)$", dest.read_text(),
                                                        re.MULTILINE)}:
                bad.append(f"{doc.name}: {target} (no such heading)")
    assert bad == []


def test_the_link_checks_can_fail() -> None:
    assert github_slug("The Ray backend") == "the-ray-backend"
    assert github_slug("`agm audit census`") == "agm-audit-census"
    assert DOC_SECTION.findall('x (docs/stats.md, "Flips") y') == [("stats.md", "Flips")]
    assert DOC_REF.findall("see docs/nowhere.md and mydocs/x.md") == ["nowhere.md"]
    assert not (DOCS / "nowhere.md").exists()
