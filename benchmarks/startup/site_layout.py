"""What the benchmark relies on in the built site: paths, file names, the worker's name, the cells' markup.

Where a site file has had two names, both are listed, the current one first, and
the benchmark takes whichever the build has, so that an older commit's build
(``--site DIR``) is read too.
"""

LESSON = "lessons/32-positional-encoding/"
TEXT_CELL = "#cell-1"  # prints text, for (b), (c) and (f)
FIGURE_CELL = "#cell-4"  # the heatmap, for (d) and (e) (cell 3 is an exercise since lesson 32 was revised)
FIGURE_CELL_LABEL = FIGURE_CELL.lstrip("#").replace("-", " ") + " (heatmap)"  # for the report

COURSE_FOLDER = "assets/course"
WORKER_SETTINGS = ("worker-settings.json", "runtime.json")
"""Where the Python worker reads its settings, under ``COURSE_FOLDER``; paths in it are relative to it."""
SETTINGS_LOCK = "lock_file_url"  # keys of the worker settings
SETTINGS_PYODIDE_INDEX = "pyodide_index_url"
SETTINGS_PYODIDE_VERSION = "pyodide_version"
PYTHON_WORKER_SCRIPTS = (f"/{COURSE_FOLDER}/js/worker/", f"/{COURSE_FOLDER}/js/worker.js")
"""URL paths (or their folder) of the Python worker's script."""
PYTHON_WORKER_NAME = "course-python"  # the name the page gives the Python worker
RUNNER_FOLDERS = tuple(f"{COURSE_FOLDER}/{name}/" for name in ("js", "vendor", "py", "css"))
SERVICE_WORKER = "course-sw.js"
THEME_SEARCH = ("search/", "assets/javascripts/workers/")
FONT_LIST = "matplotlib-fontlist.json"  # in the Pyodide folder

RUNNER_SCRIPTS_TIMED = ("enhance.js", "loader.js", "kernel.js", "cell.js", "codemirror.js", *WORKER_SETTINGS)
"""The runner's files whose fetch "where the time goes" shows (substrings of the file name)."""

CELL_MARKUP = {
    "output": ".course-cell__output",
    "liveOutput": ".course-out, .course-cell__notice",
    "figure": "figure img",
    "liveCell": ".course-cell--live",
    "runButton": ".course-cell__button--run",
    "status": ".course-cell__status",
    "precomputedAttribute": "data-precomputed",
    "stateAttribute": "data-state",
}
"""What the in-page script and the driver look for in a cell."""
