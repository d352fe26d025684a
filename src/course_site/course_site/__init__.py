"""MkDocs plugin for the course: runnable Pyodide cells, Markdown quizzes, build-time outputs."""
