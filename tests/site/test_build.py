"""`mkdocs build` of small projects: outputs at build time, failures with file:line, the cache."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from site_project import (
    PYODIDE_INDEX,
    PYODIDE_VERSION,
    ROOT,
    SETTINGS,
    build,
    failing_build,
    lesson_html,
    lesson_text,
    make_project,
)

GOOD = """\
# Lesson

Math: $x_i^2$ and

$$
\\mathrm{PE}_{(pos,2i)} = \\sin\\left(pos / 10000^{2i/d}\\right)
$$

```pyodide
# --- setup ---
import numpy as np
# --- code ---
import posenc
x = posenc.sinusoidal(3, 4)
print("<b>not bold</b>", x.shape)
x.shape
```

!!! note "Inside an admonition"
    ```pyodide
    import matplotlib.pyplot as plt
    plt.plot([1, 2, 3])
    plt.title("A line")
    ```

=== "Tab"
    ```pyodide
    print(x.sum().round(3))
    ```
"""


@pytest.fixture(scope="module")
def good_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = make_project(tmp_path_factory.mktemp("good"), GOOD, precompile_stdlib=True, preload=["numpy"])
    done = build(project)
    assert done.returncode == 0, done.stderr
    (project / "build.log").write_text(done.stderr)  # for the test of the build's progress
    return project


def test_properdocs_and_mkdocs_build_the_same_site(good_project: Path):
    """ProperDocs (the site's builder) and MkDocs 1.6 (which the plugin's API comes from) agree byte for byte,
    but for the generator tag of each page."""
    done = subprocess.run(
        [sys.executable, "-m", "properdocs", "build", "--strict", "-f", "mkdocs.yml", "-d", "site-properdocs"],
        cwd=good_project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "course: lessons/lesson.md" not in done.stderr  # the cells ran once, for both builds
    by_mkdocs, by_properdocs = (site_files(good_project / name) for name in ("site", "site-properdocs"))
    assert sorted(by_mkdocs) == sorted(by_properdocs)
    tags = set()
    for name, content in by_mkdocs.items():
        other = by_properdocs[name]
        if content != other:
            assert name.endswith(".html"), name
            (mkdocs_tag,), (properdocs_tag,) = (GENERATOR.findall(page.decode()) for page in (content, other))
            assert GENERATOR.sub("", content.decode()) == GENERATOR.sub("", other.decode()), name
            tags.add((mkdocs_tag, properdocs_tag))
    assert len(tags) == 1 and "ProperDocs" in tags.pop()[1]


GENERATOR = re.compile(r'<meta name="generator" content="[^"]*">')


def site_files(site: Path) -> dict[str, bytes]:
    return {path.relative_to(site).as_posix(): path.read_bytes() for path in site.rglob("*") if path.is_file()}


def test_cells_render_with_precomputed_output_in_page_order(good_project: Path):
    html = lesson_html(good_project)
    assert html.count('class="course-cell"') == 3
    assert 'data-setup="import numpy as np"' in html
    # Output is escaped text; the namespace is shared from cell to cell, also across containers.
    assert "&lt;b&gt;not bold&lt;/b&gt; (3, 4)" in html
    assert '<pre class="course-out course-out--result">(3, 4)</pre>' in html
    assert '<pre class="course-out course-out--stdout">5.905\n</pre>' in html
    assert 'alt="Line plot titled “A line”"' in html
    # Figures are files named by content, beside the runner (not data: URLs inflating the page).
    source = html.split('alt="Line plot titled “A line”"')[0].rsplit('src="', 1)[1].split('"')[0]
    assert source.startswith("../../assets/course/figures/") and source.endswith(".png")
    assert (good_project / "site/lessons/lesson" / source).resolve().read_bytes().startswith(b"\x89PNG")


def test_cells_render_their_whole_structure_with_the_toolbar_hidden(good_project: Path):
    html = lesson_html(good_project)
    # The build writes the buttons, the status and the output region; the script only reveals the toolbar.
    assert html.count('<div class="course-cell__toolbar" hidden>') == 3
    for kind in ("run", "stop", "reset", "copy", "clear"):
        assert html.count(f'<button type="button" class="course-cell__button course-cell__button--{kind}"') == 3
    assert html.count('<span class="course-cell__status" role="status">') == 3
    assert html.count('class="course-cell__output" data-precomputed=') == 3
    assert 'role="log" aria-live="polite" aria-label="Output of cell 1"' in html
    # The DOM contract: each cell is a region named "Python cell N".
    for number in (1, 2, 3):
        assert f'id="cell-{number}" role="region" aria-label="Python cell {number}"' in html


def test_cells_list_the_names_they_define_and_show_their_setup_on_request(good_project: Path):
    html = lesson_html(good_project)
    assert 'data-defines="np posenc x"' in html and 'data-defines="plt"' in html and 'data-defines=""' in html
    setup = re.search(r'<details class="course-cell__setup"><summary[^>]*>(.*?)</summary>(.*?)</details>', html, re.S)
    assert setup and setup[1] == "setup: 1 line" and "numpy" in setup[2]
    assert html.count('class="course-cell__setup"') == 1  # only the cell that has setup code


def test_math_is_mathml_and_no_tex_is_left(good_project: Path):
    html = lesson_html(good_project)
    assert html.count("<math") == 2 and 'display="block"' in html
    assert "arithmatex" not in html


def test_site_serves_pyodide_posenc_and_worker_settings(good_project: Path):
    site = good_project / "site"
    settings = json.loads((site / SETTINGS).read_text())
    lock = json.loads((site / "assets/course" / settings["lock_file_url"]).read_text())
    posenc = lock["packages"]["posenc"]
    wheel = (site / "assets/course" / settings["pyodide_index_url"] / posenc["file_name"]).resolve()
    assert wheel.name == "posenc-0.1.0-py3-none-any.whl" and wheel.exists()
    assert (posenc["imports"], posenc["depends"]) == (["posenc"], ["numpy"])  # from the wheel's metadata
    shipped = sorted(p.name for p in (site / PYODIDE_INDEX).iterdir())
    assert "console.html" not in shipped and "pyodide-lock.json" not in shipped
    assert {"pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip"} <= set(shipped)
    assert all(lock["packages"][name]["file_name"] in shipped for name in lock["packages"] if name != "posenc")


def test_worker_settings_name_the_preloaded_wheels_as_the_lock_does(good_project: Path):
    """The worker starts the preloaded packages' wheels (and their dependencies') from these
    entries before it has read the lock, with the URLs and integrity that Pyodide then asks for."""
    settings = json.loads((good_project / "site" / SETTINGS).read_text())
    lock = json.loads((good_project / "site/assets/course" / settings["lock_file_url"]).read_text())
    assert settings["preload_packages"] == ["numpy"]
    expected = {
        name: {"file_name": lock["packages"][name]["file_name"], "sha256": lock["packages"][name]["sha256"]}
        for name in ("numpy",)
    }
    assert settings["preload_wheels"] == expected


def test_site_serves_a_boot_stdlib_beside_the_official_one(good_project: Path, build_cache: Path):
    site = good_project / "site"
    settings = json.loads((site / SETTINGS).read_text())
    manifest = json.loads((ROOT / "pyodide_assets/manifest.json").read_text())
    pinned = {entry["name"]: entry["sha256"] for entry in manifest["files"]}
    official = site / PYODIDE_INDEX / "python_stdlib.zip"
    assert hashlib.sha256(official.read_bytes()).hexdigest() == pinned["python_stdlib.zip"]  # byte-identical
    derived = (site / "assets/course" / settings["stdlib"]["url"]).resolve()
    digest = hashlib.sha256(derived.read_bytes()).hexdigest()
    assert settings["stdlib"]["sha256"] == digest and derived.name == f"python_stdlib-pyc-{digest[:16]}.zip"
    assert re.fullmatch(r"[0-9a-f]{64}", settings["pyodide_build_id"])
    with zipfile.ZipFile(official) as source, zipfile.ZipFile(derived) as made:
        sources = set(source.namelist())
        index = json.loads(made.read("course-stdlib-index.json"))
        compiled = set(made.namelist()) - {"course-stdlib-index.json"}
        # The boot's modules, as .pyc only: what booting, the worker and `import numpy, posenc` load.
        assert {"ast.pyc", "traceback.pyc", "zipfile/__init__.pyc", "numbers.pyc", "pickle.pyc"} <= compiled
        assert all(name.endswith(".pyc") and name[:-1] in sources for name in compiled)
        # Not what only a figure, Jedi or a learner's import needs: those come from the official zip.
        assert not {"difflib.pyc", "fractions.pyc", "statistics.pyc", "unittest/mock.pyc"} & compiled
        assert len(compiled) < len(sources) / 3
        assert index["official_sha256"] == pinned["python_stdlib.zip"]
        modules = {name.removesuffix(".py").removesuffix("/__init__") for name in sources if name.endswith(".py")}
        assert set(index["modules"]) == {name.replace("/", ".") for name in modules}
    # Made once per set of inputs: the (session's shared) build cache holds it.
    cached = [path for path in (build_cache / "derived").iterdir() if path.read_bytes() == derived.read_bytes()]
    assert len(cached) == 1


def test_the_download_note_counts_what_a_first_visit_fetches_as_served(good_project: Path):
    """The note's size: the files the worker fetches before a first output, gzipped where GitHub Pages gzips."""
    site = good_project / "site"
    settings = json.loads((site / SETTINGS).read_text())
    lock = json.loads((ROOT / "pyodide_assets/pyodide-lock.json").read_text())
    index, course = site / PYODIDE_INDEX, site / "assets/course"
    runner = course / settings["runner_folder"]
    files = [index / name for name in ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm")]
    files += [index / lock["packages"]["numpy"]["file_name"], *(course / "wheels").rglob("*.whl")]
    files += [(course / settings[key]["url"]).resolve() for key in ("stdlib", "package_bytecode")]
    files += [runner / "js/protocol.js", runner / "js/cache_policy.js", *sorted((runner / "js/worker").glob("*.js"))]
    files += [runner / "py" / name for name in settings["python_files"]]  # every one the worker fetches
    served = sum(
        len(gzip.compress(path.read_bytes(), compresslevel=6))
        if path.suffix in (".js", ".py", ".wasm")
        else path.stat().st_size
        for path in files
    )
    note = f"Python runs in your browser (Pyodide): about {served / 1e6:.1f} MB, downloaded as this page opens"
    assert note in lesson_html(good_project)
    assert "with Data Saver on, at your first Run" in lesson_html(good_project)


def test_site_serves_the_preloaded_packages_bytecode(good_project: Path):
    site = good_project / "site"
    settings = json.loads((site / SETTINGS).read_text())
    derived = (site / "assets/course" / settings["package_bytecode"]["url"]).resolve()
    digest = hashlib.sha256(derived.read_bytes()).hexdigest()
    assert settings["package_bytecode"]["sha256"] == digest and derived.name == f"site-packages-pyc-{digest[:16]}.zip"
    lock = json.loads((ROOT / "pyodide_assets/pyodide-lock.json").read_text())
    wheel = site / PYODIDE_INDEX / lock["packages"]["numpy"]["file_name"]
    with zipfile.ZipFile(wheel) as numpy_wheel, zipfile.ZipFile(derived) as made:
        sources = {name for name in numpy_wheel.namelist() if name.endswith(".py")}
        prefix = "lib/python3.12/site-packages/"
        for info in made.infolist():
            folder, _, file_name = info.filename.removeprefix(prefix).rpartition("/")
            assert info.filename.startswith(prefix) and file_name.endswith(".cpython-312.pyc"), info.filename
            assert f"{folder}/{file_name.removesuffix('.cpython-312.pyc')}.py" in sources  # numpy's only
            flags = int.from_bytes(made.read(info)[4:8], "little")
            assert flags == 0b01  # hash-based and unchecked (PEP 552): valid whatever the file dates
        assert {"numpy/__init__.py", "numpy/_core/numeric.py"} <= {
            name.removeprefix(prefix).replace(".cpython-312.pyc", ".py") for name in made.namelist()
        }
    # The worker's bytes at boot include it, so the progress bar and the download note count it.
    assert settings["download_bytes"]["core"] > derived.stat().st_size


def test_pages_with_cells_start_python_first_thing_in_head(good_project: Path):
    html = lesson_html(good_project)
    head = html.split("</head>")[0]
    starter = re.search(r'<script data-worker="([^"]+)" data-version="([^"]+)">(.*?)</script>', head, re.DOTALL)
    assert starter, "no starter script in <head>"
    # Before every stylesheet and script of the theme, right after the CSP.
    assert starter.start() < head.index("<link") and head.index("Content-Security-Policy") < starter.start()
    digest = base64.b64encode(hashlib.sha256(starter[3].encode()).digest()).decode()
    assert f"'sha256-{digest}'" in head
    worker, version = starter[1].split("?v=")
    site = good_project / "site"
    settings = json.loads((site / SETTINGS).read_text())
    runner = f"assets/course/{settings['runner_folder']}"
    assert (site / "lessons/lesson" / worker).resolve() == site / runner / "js/worker/main.js"
    assert version == starter[2] == settings["version"]
    assert "data-worker" not in (good_project / "site/index.html").read_text()


def test_unchanged_rebuild_runs_no_cell(good_project: Path, build_cache: Path):
    outputs = build_cache / "outputs"
    before = {p.name: p.stat().st_mtime_ns for p in outputs.iterdir()}
    done = build(good_project)
    assert done.returncode == 0
    assert {p.name: p.stat().st_mtime_ns for p in outputs.iterdir()} == before
    assert "running" not in done.stderr


def test_a_checkout_elsewhere_reuses_the_cache(good_project: Path, tmp_path: Path):
    """The cache key holds no absolute path: the same lesson in another folder runs nothing."""
    elsewhere = make_project(tmp_path, lesson_text(good_project), preload=["numpy"])  # as good_project
    done = build(elsewhere)
    assert done.returncode == 0, done.stderr
    assert "course: lessons/lesson.md: running" not in done.stderr
    assert lesson_html(elsewhere).count("course-out--stdout") == lesson_html(good_project).count("course-out--stdout")


def test_progress_of_each_page_is_logged(good_project: Path):
    log = (good_project / "build.log").read_text()
    assert "course: lessons/lesson.md: running 3 cell(s) in Pyodide" in log
    took = r"3 cell\(s\) ran in \d+\.\d s \(of execute_timeout 60 s\), after \d+\.\d s to start Python"
    assert re.search(rf"course: lessons/lesson.md: {took}", log)


@pytest.mark.parametrize("options", ["", ' height="10"'])
def test_a_misspelled_fence_fails_a_strict_build_at_its_own_line(tmp_path: Path, options: str):
    lesson = f"# L\n\nText.\n\n```pyodid{options}\nprint(1)\n```\n\n```pyodide\nprint(2)\n```\n"
    errors = failing_build(make_project(tmp_path, lesson, execute=False))
    assert "lessons/lesson.md:5: ```pyodid fence: did you mean `pyodide`?" in errors
    assert "lessons/lesson.md:9" not in errors


def test_cell_that_raises_fails_the_build_with_file_line_and_traceback(tmp_path: Path):
    lesson = "# L\n\n```pyodide\ndef f(n):\n    return 1 / n\n\nf(0)\n```\n"
    errors = failing_build(make_project(tmp_path, lesson))
    assert "lessons/lesson.md:5: cell 1 of the page raised" in errors
    assert 'File "lessons/lesson.md", line 7' in errors
    assert "ZeroDivisionError: division by zero" in errors


def test_endless_cell_fails_the_build_at_that_cell_after_the_time_limit(tmp_path: Path):
    lesson = "# L\n\n```pyodide\nx = 1\n```\n\n```pyodide\nprint(x)\nwhile True:\n    x += 1\n```\n"
    errors = failing_build(make_project(tmp_path, lesson, execute_timeout=3))
    assert "lessons/lesson.md:8: cell 2 of the page was still running after 3 s at build time" in errors
    assert "raise `execute_timeout` under `plugins: - course:` in mkdocs.yml" in errors
    assert "Traceback" not in errors


def test_cdn_option_serves_pyodide_from_the_cdn_and_posenc_from_the_site(tmp_path: Path):
    cdn = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"
    project = make_project(tmp_path, "# L\n\n```pyodide\n1 + 1\n```\n", pyodide_base_url=cdn)
    config = json.loads((project / "mkdocs.yml").read_text())
    config["site_url"] = "https://example.org/course/"
    (project / "mkdocs.yml").write_text(json.dumps(config))
    done = build(project)
    assert done.returncode == 0, done.stderr
    site = project / "site"
    settings = json.loads((site / SETTINGS).read_text())
    assert settings["pyodide_index_url"] == cdn
    assert not (site / PYODIDE_INDEX / "pyodide.asm.wasm").exists()
    lock = json.loads((site / "assets/course" / settings["lock_file_url"]).read_text())
    assert lock["packages"]["posenc"]["file_name"].startswith("https://example.org/course/assets/course/wheels/")
    policy = lesson_html(project).split('http-equiv="Content-Security-Policy" content="')[1].split('"')[0]
    assert "connect-src 'self' https://cdn.jsdelivr.net" in policy


def test_corrupt_asset_without_network_fails_the_build_naming_the_file(tmp_path: Path):
    cache = tmp_path / "files"
    shutil.copytree(ROOT / "pyodide_assets/files", cache)
    wheel = next(cache.glob("numpy-*.whl"))
    data = bytearray(wheel.read_bytes())
    data[100] ^= 0xFF
    wheel.write_bytes(bytes(data))
    (tmp_path / "p").mkdir()
    project = make_project(tmp_path / "p", "# L\n", pyodide_cache=str(cache))
    offline = {  # every source unreachable: npm and pip registries on a dead port, no DNS for the CDN
        "npm_config_registry": "http://127.0.0.1:9/",
        "npm_config_fetch_retries": "0",
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": "",
        "PIP_RETRIES": "0",
    }
    errors = failing_build(project, env=offline)
    assert "Traceback" not in errors
    assert "course: Pyodide assets:" in errors
    assert wheel.name in errors


def test_fence_added_by_another_extension_renders_without_build_time_output(tmp_path: Path):
    lesson = '# L\n\n--8<-- "included.md"\n\n```pyodide\nprint("tagged")\n```\n'
    project = make_project(tmp_path, lesson)
    (project / "included.md").write_text('```pyodide height="5"\nprint("included")\n```\n')
    config = json.loads((project / "mkdocs.yml").read_text())
    config["markdown_extensions"].append({"pymdownx.snippets": {"base_path": [str(project)], "check_paths": True}})
    (project / "mkdocs.yml").write_text(json.dumps(config))
    done = build(project)
    assert done.returncode == 0, done.stderr
    included, tagged = lesson_html(project).split('<div class="course-cell" ')[1:]
    # Numbered after the cells the page's Markdown had; its options are read when it is rendered.
    assert 'id="cell-2"' in included and 'data-height="5"' in included
    assert 'data-code="print(&quot;included&quot;)"' in included
    assert 'data-precomputed="true"' not in included  # the page's cells ran before the include existed
    assert 'id="cell-1"' in tagged and '<pre class="course-out course-out--stdout">tagged\n</pre>' in tagged


def test_top_level_await_and_terminal_colours_at_build_time(tmp_path: Path):
    lesson = (
        "# L\n\n```pyodide\nimport asyncio\nawait asyncio.sleep(0.01)\n"
        "print('\\x1b[31mred\\x1b[0m')\nawait asyncio.sleep(0, result=42)\n```\n"
    )
    project = make_project(tmp_path, lesson)
    done = build(project)
    assert done.returncode == 0, done.stderr
    html = lesson_html(project)
    assert '<pre class="course-out course-out--result">42</pre>' in html
    # The escape codes stay in the precomputed output; cell.js renders them as ansi.js does.
    assert '<pre class="course-out course-out--stdout">\x1b[31mred\x1b[0m\n</pre>' in html


# --- each authoring mistake: the build names file:line and says how to fix it --------------------


def test_unquoted_option_values_are_accepted(tmp_path: Path):
    lesson = "# L\n\n```pyodide height=10 autorun=true execute=false\nx = 1\n```\n"
    done = build(make_project(tmp_path, lesson))
    assert done.returncode == 0, done.stderr
    html = lesson_html(tmp_path)
    assert 'data-height="10"' in html and 'data-autorun="true"' in html
    assert 'data-precomputed="true"' not in html  # execute=false: nothing ran at build time


@pytest.mark.parametrize(
    ("lesson", "message"),
    [
        pytest.param(
            "# L\n\n```pyodide\nimport os\nos._exit(3)\n```\n",
            "lessons/lesson.md:3: cell 1 of the page ended Python (exit status 3, as os._exit does)",
            id="a cell that ends Python",
        ),
        pytest.param(
            "# L\n\n```pyodide autorun=maybe\nx = 1\n```\n",
            'lessons/lesson.md:3: autorun="maybe" must be "true" or "false"',
            id="a bad option",
        ),
        pytest.param(
            "---\ntitle: L\n---\n\n# L\n\n```pyodide autorun=maybe\nx = 1\n```\n",
            'lessons/lesson.md:7: autorun="maybe" must be "true" or "false"',
            id="a bad option, its line counting the front matter",
        ),
        pytest.param(
            "# L\n\n```quiz\nQ?\n\n- [x] a\n    why a\n- [x] b\n    why b\n```\n",
            "lessons/lesson.md:8: a quiz needs exactly one right option marked '- [x]', found 2 (lines 6, 8)",
            id="a quiz with two right options",
        ),
        pytest.param(
            "# L\n\nA function: $\\softmax(x)$.\n",
            "lessons/lesson.md:3: unknown TeX command \\softmax in `\\softmax(x)`",
            id="an unknown TeX command",
        ),
    ],
)
def test_a_mistake_fails_the_build_at_its_file_and_line(tmp_path: Path, lesson: str, message: str):
    assert message in failing_build(make_project(tmp_path, lesson))


def test_tex_that_cannot_be_rendered_fails_at_its_line_with_the_snippet(tmp_path: Path):
    errors = failing_build(make_project(tmp_path, "# L\n\nFine: $x^2$.\n\nBroken: $\\frac{1}{$ here.\n"))
    assert "lessons/lesson.md:5: the TeX `\\frac{1}{` cannot be rendered:" in errors
    assert "Traceback" not in errors


def test_lesson_missing_from_nav_fails_the_strict_build(tmp_path: Path):
    project = make_project(tmp_path, "# L\n")
    (project / "lessons/forgotten.md").write_text("# Forgotten\n")
    assert "lessons/forgotten.md: this lesson is not in `nav` in mkdocs.yml" in failing_build(project)
