"""`analyze` writes a report that reads top to bottom: key figures first, each table with a
sentence, links to the CSVs, self-contained and escaped; checked in a headless browser."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.analyses import run_analyses

HOSTILE = "<img src=x onerror=alert(1)> & co"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sense7_coder.project.demo import build_demo

    folder = tmp_path_factory.mktemp("report")
    demo = build_demo(folder)
    with Project.open(demo, backup=False) as project:
        project.set_coder(HOSTILE)
        project.set_value(Unit("101", 2), "overall", 4)
        project.set_coder("dana")
        out = run_analyses(project, folder / "out", source="users")
    assert out.index is not None
    return out.index


def test_report_reads_top_to_bottom_with_key_figures_first(report: Path) -> None:
    text = report.read_text(encoding="utf-8")
    order = ["Agreement among the coders", "The coders against the users",
             "How the levels are spread", "Means by assistant", "Ratings over the course"]
    at = [text.index(f">{h}") for h in order]
    assert at == sorted(at)
    # each table and figure says what it shows and how it was computed, with its CSV
    assert "Krippendorff's α per code among the coders" in text
    assert ("95% bootstrap interval over units (1,000 draws, seed 0; BCa below 100 units, "
            "percentile from 100; each interval names its method)") in text
    assert "] BCa</td>" in text  # the demo's codes rest on fewer than 100 units
    assert "with a 95% t-interval; n counts conversations" in text
    for name in ("distribution.csv", "means_by_assistant.csv", "course.csv"):
        assert f'<a href="{name}">' in text
    assert "sense7-coder " in text and "pandas " in text  # the versions used
    assert "conversations: all" in text  # the filters used


def test_report_is_self_contained_and_escaped(report: Path) -> None:
    text = report.read_text(encoding="utf-8")
    sources = re.findall(r'src="([^"]*)"', text)
    assert len(sources) >= 8 and all(s.startswith("data:image/png;base64,") for s in sources)
    assert "http://" not in text and "https://" not in text  # nothing fetched
    assert HOSTILE not in text and "&lt;img src=x onerror=alert(1)&gt; &amp; co" in text
    assert "<script" not in text


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed")
def test_report_renders_in_a_headless_browser(report: Path, tmp_path: Path) -> None:
    from PIL import Image

    shot = tmp_path / "report.png"
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", "--window-size=1000,1400",
                    f"--screenshot={shot}", report.as_uri()],
                   check=True, capture_output=True, timeout=120)
    assert _png_size(shot) == (1000, 1400)
    with Image.open(shot) as image:
        grey = image.convert("L")
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20) or []
        low, high = grey.getextrema()
        # not blank: dark text on a light page, and the figure's colours
        assert high > 240 and low < 60 and len(colours) > 200
        dark = sum(grey.histogram()[:128])
        assert dark > 1000


def test_report_without_coders_says_why_and_without_agreement_on_request(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sense7_coder.cli import main
    from sense7_coder.resources import demo_dir

    path = tmp_path / "users-only.sense7"
    assert main(["init", str(path)]) == 0
    assert main(["import", str(path), str(demo_dir() / "Tasks.csv"),
                 str(demo_dir() / "Messages.csv")]) == 0
    assert main(["analyze", str(path), "--out", str(tmp_path / "a"), "--no-figures"]) == 0
    text = (tmp_path / "a" / "index.html").read_text(encoding="utf-8")
    assert "<li>Agreement not computed: " in text and "Agreement among the coders" not in text
    assert "How the levels are spread" in text  # the users' tables still read
    demo = tmp_path / "demo"
    demo.mkdir()
    from sense7_coder.project.demo import build_demo

    coded = build_demo(demo)
    assert main(["analyze", str(coded), "--out", str(tmp_path / "b"), "--no-figures",
                 "--no-agreement"]) == 0
    text = (tmp_path / "b" / "index.html").read_text(encoding="utf-8")
    assert "Agreement among the coders" not in text and "<img" not in text
    assert "read the report: " in capsys.readouterr().out
