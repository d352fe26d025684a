"""The home page's "Your work": where the learner's work is kept, and the controls that take it along.

``assets/js/work.js`` enhances this markup (``hidden`` without JavaScript, which keeps no work);
it relies on these classes and attributes:

``section.course-work`` (``aria-labelledby`` its heading, ``data-site-name``: the site's name, which a work file
names and is checked against)
    ``button[data-action="save-work"]`` saves ``<site name>-work-<date>.json``;
    ``button[data-action="load-work"]`` opens the file picker, ``input.course-work__file`` (``hidden``);
    ``button[data-action="start-over"]`` asks, then clears the learner's work on this site;
    ``p.course-work__status`` (``role="status"``) says what each did, or why a file was not loaded.
"""

from __future__ import annotations

from .markup import tag, void
from .strings import s

WORK_ID = "course-work"


def render_work(site_name: str) -> str:
    """The "Your work" section of the home page, for the site named ``site_name``."""
    title = f"{WORK_ID}-title"
    actions = tag(
        "div",
        {"class": "course-work__actions"},
        tag("button", {"type": "button", "data-action": "save-work"}, s("work.save")),
        tag("button", {"type": "button", "data-action": "load-work"}, s("work.load")),
        void(
            "input",
            {
                "type": "file",
                "class": "course-work__file",
                "accept": ".json,application/json",
                "aria-label": s("work.file_label"),
                "hidden": True,
            },
        ),
        tag("button", {"type": "button", "data-action": "start-over"}, s("work.start_over")),
    )
    return tag(
        "section",
        {"class": WORK_ID, "id": WORK_ID, "aria-labelledby": title, "data-site-name": site_name, "hidden": True},
        tag("h2", {"id": title}, s("work.heading")),
        tag("p", {}, s("work.where")),
        actions,
        tag("p", {"class": "course-work__status", "role": "status", "aria-live": "polite"}),
    ).html


def insert_work(html: str, site_name: str) -> str:
    """The home page's HTML with "Your work" after its progress, else after its title (else first)."""
    work = render_work(site_name)
    for end in ("</p>", "</h1>"):
        anchor = 'class="course-progress"' if end == "</p>" else "<h1"
        start = html.find(anchor)
        if start >= 0:
            at = html.index(end, start) + len(end)
            return html[:at] + work + html[at:]
    return work + html
