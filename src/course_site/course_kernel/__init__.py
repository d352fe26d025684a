"""The Python that runs the learner's cells, the same in the browser's worker and in the build.

The browser's worker writes this package into Pyodide's file system and imports
``course_kernel.worker_bridge``; the build's Python under Node imports it beside
``node/build_python.py``; the plugin and the tests import it from the installed
``course-site`` distribution. Its modules: ``cell_exec`` (a cell run as a notebook runs
it), ``figures`` (a figure's PNGs, alt text and layout), ``figure_style`` (the dark
scheme's colours), ``exercise_check``, ``stdlib_finder``, ``completion`` (Jedi, loaded on
first use) and ``worker_bridge`` (the worker's side only).
"""
