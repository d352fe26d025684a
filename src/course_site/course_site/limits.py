"""The browser's default limits on a run (output caps, time limit), as the build reads them.

They are written once, in ``assets/js/contract.json`` (``limits``): the plugin's options default
to them, and worker-settings.json carries a site's own values to the page.
"""

from __future__ import annotations

from .contract import CONTRACT

MAX_LINES: int = CONTRACT["limits"]["maxLines"]
MAX_CHARS: int = CONTRACT["limits"]["maxChars"]
TIME_LIMIT_S: int = CONTRACT["limits"]["timeLimitS"]
