"""The site's override of Material's templates (overrides/, mkdocs.yml theme.custom_dir) stays a one-line change."""

from __future__ import annotations

import re
from pathlib import Path

import material
from mkdocs.config import load_config

ROOT = Path(__file__).resolve().parents[2]
OVERRIDE = ROOT / "overrides" / "partials" / "search.html"
MATERIAL_PARTIAL = Path(material.__file__).parent / "templates" / "partials" / "search.html"
DIALOG_NAME = " aria-label=\"{{ lang.t('search') }}\""
LEADING_COMMENT = re.compile(r"\A\{#-.*?-#\}\n", re.DOTALL)


def test_the_site_uses_the_overrides_folder():
    assert load_config(str(ROOT / "mkdocs.yml")).theme.custom_dir == str(ROOT / "overrides")


def test_search_partial_is_materials_own_with_the_dialog_named():
    override = OVERRIDE.read_text()
    assert f'role="dialog"{DIALOG_NAME}>' in override
    unnamed = LEADING_COMMENT.sub("", override).replace(DIALOG_NAME, "", 1)
    assert unnamed == LEADING_COMMENT.sub("", MATERIAL_PARTIAL.read_text()), (
        f"{OVERRIDE} no longer matches {MATERIAL_PARTIAL} of the installed Material: copy it again and "
        "add the dialog's aria-label"
    )
