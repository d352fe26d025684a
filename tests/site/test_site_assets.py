"""What the site ships for cells, from this course's settings in mkdocs.yml."""

from __future__ import annotations

from pathlib import Path

from mkdocs.config import load_config

from course_site.site_assets import packages_for

ROOT = Path(__file__).resolve().parents[2]


def test_site_loads_matplotlib_for_posenc_plot_reached_as_an_attribute():
    course = load_config(str(ROOT / "mkdocs.yml")).plugins["course"].config
    assert course.import_packages == {"posenc.plot": ["matplotlib"]}
    assert (course.package_source, course.preload) == ("src/posenc", ["numpy", "posenc"])
    by_import = {"numpy": "numpy", "posenc": "posenc", "matplotlib": "matplotlib"}
    plot = "import posenc\nposenc.plot.heatmap(posenc.sinusoidal(4, 4))"
    assert "matplotlib" in packages_for(plot, by_import, course.import_packages)
    assert "matplotlib" not in packages_for("import posenc\nposenc.sinusoidal(4, 4)", by_import, course.import_packages)
