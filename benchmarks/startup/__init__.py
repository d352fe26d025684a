"""How long a learner waits for a cell's first output, against the bare Pyodide floor.

Run:  .venv/bin/python benchmarks/first_output.py [--pairs N] [--only ab,d,cf] [--gzip] [--site DIR]

Builds the site into ``.cache/bench-site`` when its inputs changed, serves it on
127.0.0.1 (threaded, in memory, ``Cache-Control: max-age=600`` and ETags like
GitHub Pages; ``--gzip`` also gzips text and wasm when the browser accepts it)
and drives headless Chromium.  Every cold run gets a new browser context (its
own empty HTTP cache, code cache and service-worker registry); the warm visit
uses a persistent profile in a fresh temporary folder.  Nothing may leave
127.0.0.1: a dead proxy and a host-resolver rule block it, and any such request
is reported as an error.  (No ``context.route``: Playwright turns the HTTP cache
off while a route is installed, which would void the warm visit, and it adds a
round trip to every request.)

Each round runs, in alternating order within each pair, so that machine noise
hits both sides alike:

(a)  floor: ``bench/bare.html``, the same Pyodide in a Web Worker, numpy loaded
     and imported; navigation start -> "numpy imported" reaches the page.
(b)  lesson 32, Run on cell 1 clicked as soon as the page has loaded and the
     button exists; navigation start -> first live output node in the cell.
(d)  the heatmap cell (site_layout.FIGURE_CELL, cell 4) likewise -> live figure
     ``img``; against its own floor: the bare page with numpy + matplotlib +
     posenc, the font list, ``import matplotlib.pyplot``, then that cell's own
     code run with ``exec`` and its figure saved to PNG.
(e)  in the same page as (d): Run on the heatmap cell again once it is done ->
     figure; its floor (floor_e): in the floor_d page, its code run and saved again.
(c)  persistent profile, first visit: Run on cell 1 after 8 s of reading;
     click -> first output.
(f)  the same profile and tab, second visit (warm HTTP cache, service worker if
     registered): navigation start -> first output of cell 1, as in (b).
(g)  bytes by file for (b) and (d), counted by the server (body + headers, as
     sent on the wire; this includes the page, its Web Workers and the
     service worker), cross-checked once against Chromium's own
     ``request.sizes()``; files the cell does not need are flagged.

Diagnostics, once at the end (``--no-diagnostics`` skips them): floor_d without
the font list; the floor's own repeat visits in fresh profiles, plain and with
Pyodide loaded the way the site's worker once did (responses re-wrapped to count
bytes, pyodide.asm.js run from a blob: URL), to see what V8's code caches give;
Chromium's byte count for one cold (d).

Times are taken in the page (``performance.now()``, 0 = navigation start) by an
init script that wraps ``Worker`` to time its messages and watches the cell's
output with a MutationObserver; clicks are made in the page too, so no
Playwright round trip sits inside a measurement.  Ratios are medians of the
per-round ratios.  Results go to ``benchmarks/results/first_output.json``.
This is a report, not a test: it exits 0 unless the benchmark itself broke.

Modules: ``site_layout`` (what the benchmark relies on in the built site: paths,
file names, the cells' markup), ``built_site`` (build, worker settings, lock),
``server`` (the static server and its log), ``browser`` (the Chromium driver;
``in_page.js`` times the page, ``worker_probe.py`` asks the Python worker),
``scenarios`` (rounds, diagnostics, figures, goals), ``figures``, ``analysis``
(bytes, timelines), ``observations``, ``report``, ``cli``.
"""
