"""The Python that runs the learner's cells, the same in the browser's worker and in the build.

The browser's worker and the build's Node script each write this package into Pyodide's
file system and import ``course_kernel.bridge``, which the one cell runner
(``assets/js/worker/run.js``) calls; the plugin and the tests import it from the installed
``course-site`` distribution. Its modules: ``cell_exec`` (a cell run as a notebook runs
it), ``figures`` (a figure's PNGs, alt text and layout), ``figure_style`` (the dark
scheme's colours), ``exercise_check``, ``stdlib_finder``, ``completion`` (Jedi, loaded on
first use) and ``bridge`` (what the runner calls, with one payload per run).
"""
