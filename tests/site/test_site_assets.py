"""What the site ships for cells, from this course's settings in mkdocs.yml."""

from __future__ import annotations

import pytest
from course_python import course_options

from course_site.errors import SettingsError
from course_site.shipped_python import packages_for
from course_site.worker_settings import _preload_wheels


def test_site_loads_matplotlib_for_posenc_plot_reached_as_an_attribute():
    course = course_options()
    assert course.import_packages == {"posenc.plot": ["matplotlib"]}
    assert (course.package_source, course.preload) == ("src/posenc", ["numpy", "posenc"])
    by_import = {"numpy": "numpy", "posenc": "posenc", "matplotlib": "matplotlib"}
    plot = "import posenc\nposenc.plot.heatmap(posenc.sinusoidal(4, 4))"
    assert "matplotlib" in packages_for(plot, by_import, course.import_packages)
    assert "matplotlib" not in packages_for("import posenc\nposenc.sinusoidal(4, 4)", by_import, course.import_packages)


def test_preloaded_wheels_are_the_packages_and_their_dependencies_by_lock_key():
    lock = {
        "packages": {
            "numpy": {"file_name": "numpy.whl", "sha256": "a" * 64, "depends": []},
            "posenc": {"file_name": "../wheels/posenc.whl", "sha256": "b" * 64, "depends": ["numpy"]},
            "python-dateutil": {"file_name": "dateutil.whl", "sha256": "c" * 64, "depends": ["six"]},
            "six": {"file_name": "six.whl", "sha256": "d" * 64, "depends": []},
            "pytz": {"file_name": "pytz.whl", "sha256": "e" * 64, "depends": []},
        }
    }
    assert _preload_wheels(lock, ["posenc", "Python_Dateutil"]) == {
        "numpy": {"file_name": "numpy.whl", "sha256": "a" * 64},
        "posenc": {"file_name": "../wheels/posenc.whl", "sha256": "b" * 64},
        "python-dateutil": {"file_name": "dateutil.whl", "sha256": "c" * 64},
        "six": {"file_name": "six.whl", "sha256": "d" * 64},
    }
    with pytest.raises(SettingsError, match="course: preload: package 'scipy' is not in the Pyodide lock"):
        _preload_wheels(lock, ["scipy"])
