"""The HTML report in a real browser (headless Chromium): hostile text stays
text, a full comparison report renders (screenshot checked non-blank), and a
4-setting conv-net report stays small and opens fast."""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import time
from pathlib import Path

import chromium
from png_image import read_png

SCRIPT = "</script><img src=x onerror=alert(1)>"
QUOTES = '"\'><svg onload=alert(2)><a href="javascript:alert(3)">x</a>'
BYTES = b"bad\xff\xfe bytes\xc0\xbc overlong\xe0\x80\xbc surrogate\xed\xa0\x80 end"
MARKUP = "<!-- --><style>body{display:none}</style><iframe src=x></iframe>&lt;b&gt;"

# Elements the report itself is made of; anything else in the DOM was injected.
REPORT_ELEMENTS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "header",
    "h1",
    "h2",
    "h3",
    "p",
    "nav",
    "a",
    "main",
    "section",
    "div",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "span",
    "i",
    "b",
    "br",
    "wbr",
    "small",
    "code",
    "pre",
    "details",
    "summary",
    "figure",
    "figcaption",
    "svg",
    "rect",
    "text",
    "line",
    "polyline",
    "circle",
    "footer",
    "ul",
    "li",
}


def hostile(field: str) -> str:
    """What make_hostile_report put in `field`, as a browser must show it (bad bytes become U+FFFD)."""
    return f"{field}: {SCRIPT} {QUOTES} {BYTES.decode('utf-8', errors='replace')} {MARKUP}"


def assert_inert(dom: chromium.Dom) -> None:
    injected = sorted({tag for tag, _ in dom.elements} - REPORT_ELEMENTS)
    assert not injected, f"elements that are not the report's own: {injected}"
    assert not dom.tags("script") and not dom.tags("img") and not dom.tags("iframe")
    handlers = [
        (tag, name)
        for tag, attrs in dom.elements
        for name in attrs
        if name.lower().startswith("on")
    ]
    assert not handlers, f"event handler attributes in the DOM: {handlers[:5]}"
    links = [attrs.get("href") or "" for attrs in dom.tags("a")]
    assert all(href.startswith("#") for href in links), [h for h in links if not h.startswith("#")][
        :5
    ]
    assert len(dom.tags("style")) == 1, "only the report's own stylesheet"
    policies = [
        m
        for m in dom.tags("meta")
        if (m.get("http-equiv") or "").lower() == "content-security-policy"
    ]
    assert policies and "default-src 'none'" in (policies[0].get("content") or "")


def render_cli_html(cli: Path, report: Path, html: Path) -> Path:
    result = subprocess.run(
        [str(cli), "html", str(report), str(html)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return html


def test_hostile_strings_from_a_live_run_render_as_text(
    hostile_tool: Path, out_dir: Path, reports_dir: Path, chromium_binary: str
) -> None:
    made = subprocess.run(
        [str(hostile_tool), str(out_dir)], capture_output=True, text=True, timeout=120
    )
    assert made.returncode == 0, made.stderr
    page = out_dir / "hostile.html"
    shutil.copy(out_dir / "hostile.json", reports_dir / "hostile.json")  # for the schema check
    dom = chromium.Dom(chromium.dump_dom(chromium_binary, page))
    assert_inert(dom)
    text = dom.text
    shown = [
        "model spec",
        "model name",
        "input",
        "python",
        "torch",
        "cuda",
        "device",
        "cpu",
        "host",
        "platform",
        "created",
        "generator",
        "error kind",
        "error message",
        "traceback",
        "break reason",
        "break type",
        "frame file",
        "frame function",
        "source line",
        "library file",
        "library line",
        "graph function",
        "graph file",
        "compile id",
        "node name",
        "node target",
        "node shape",
        "node dtype",
        "node module",
        "node file",
        "node input",
        "recompile function",
        "guard",
        "input shapes",
        "compile phase",
        "phase source",
        "phase",
        "peak phase",
        "stats phase",
        "stats edge",
        "kernel name",
        "cost kernel",
        "cost kind",
        "code part",
        "cost source",
        "cost note",
        "cost line code",
        "eager code",
        "log warning",
        "log error",
        "console",
        "console long line",
        "parse problem",
        "probe device",
        "mode",
        "autocast",
    ]
    missing = [field for field in shown if hostile(field) not in text]
    assert not missing, f"not shown literally: {missing}"
    # The 1 MB break reason is shown whole, hostile tail included.
    assert "R" * (1 << 20) + SCRIPT in text
    # Text that looks like an entity stays that text.
    assert "&lt;b&gt;" in text


def _hostile_everywhere(value: object, path: str = "") -> object:
    """Every free-text string of a report replaced by markup; enums and numbers kept valid."""
    keep = {"format", "status", "dynamic", "label", "level", "op", "kind", "edge", "name"}
    if isinstance(value, dict):
        return {
            k: (v if k in keep and isinstance(v, str) else _hostile_everywhere(v, k))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_hostile_everywhere(v, path) for v in value]
    if isinstance(value, str):
        return f"{path}: {SCRIPT} {QUOTES} {MARKUP}"
    return value


def test_hostile_strings_from_a_json_report_render_as_text(
    cli: Path, fixtures: Path, out_dir: Path, chromium_binary: str
) -> None:
    report = json.loads((fixtures / "reports" / "v1_print_break.json").read_text())
    evil = _hostile_everywhere(report)
    evil["runs"][1]["graph_breaks"][0]["reason"] = "reason: " + SCRIPT + "x" * (1 << 20)
    source = out_dir / "hostile_input.json"
    source.write_text(json.dumps(evil))
    page = render_cli_html(cli, source, out_dir / "hostile_from_json.html")
    dom = chromium.Dom(chromium.dump_dom(chromium_binary, page))
    assert_inert(dom)
    for field in ("spec", "torch", "code", "function", "message", "console"):
        assert f"{field}: {SCRIPT} {QUOTES} {MARKUP}" in dom.text, field
    assert "reason: " + SCRIPT + "x" * (1 << 20) in dom.text


def _swatch_colours(html: str) -> set[tuple[int, int, int]]:
    found = re.findall(r'class="swatch" style="background:#([0-9a-f]{6})"', html)
    return {(int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)) for c in found}


def test_full_comparison_report_screenshot_is_not_blank(
    cli: Path, fixtures: Path, out_dir: Path, chromium_binary: str
) -> None:
    page = render_cli_html(
        cli, fixtures / "reports" / "convnet_4settings.json", out_dir / "convnet_4settings.html"
    )
    png = chromium.screenshot(chromium_binary, page, out_dir / "convnet_4settings.png", 1280, 6000)
    image = read_png(png)
    assert (image.width, image.height) == (1280, 6000)
    mean, variance = image.luminance_stats()
    colours = image.distinct_colours()
    print(
        f"screenshot {png}: luminance mean {mean:.1f}, variance {variance:.1f}, {colours} colours"
    )
    assert 100 < mean < 254, "mostly one colour: blank, or black"
    assert variance > 200, "almost no contrast: the page did not render"
    assert colours > 50
    # Every setting's colour (its swatch in the tables, its line in the charts) is on screen.
    seen = set()
    c = image.channels
    for row in image.rows[::2]:
        for x in range(0, image.width * c, c):
            seen.add((row[x], row[x + 1], row[x + 2]))
    wanted = _swatch_colours(page.read_text())
    assert len(wanted) == 4
    assert wanted <= seen, f"setting colours not on screen: {wanted - seen}"


def test_four_setting_convnet_report_is_small_and_opens_fast(
    cli: Path, fixtures: Path, out_dir: Path, chromium_binary: str
) -> None:
    page = render_cli_html(
        cli, fixtures / "reports" / "convnet_4settings.json", out_dir / "convnet_speed.html"
    )
    size = page.stat().st_size
    assert size < 5 * 1024 * 1024, f"{size} bytes"
    # The page's own Navigation Timing (navigation start to the end of the load event), read over
    # DevTools from a browser already running, so the browser's start-up is not counted.
    timings = [chromium.page_load_timing(chromium_binary, page) for _ in range(3)]
    load_ms = statistics.median(t["load_ms"] for t in timings)
    measured = {
        "html_bytes": size,
        "load_event_end_ms": [round(t["load_ms"], 1) for t in timings],
        "dom_content_loaded_ms": [round(t["dom_content_loaded_ms"], 1) for t in timings],
        "median_load_ms": round(load_ms, 1),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    (out_dir / "convnet_speed.json").write_text(json.dumps(measured, indent=1))
    print(measured)
    assert load_ms < 2000, measured
