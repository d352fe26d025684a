"""Which names a cell defines, found with ``ast`` at build time (never run).

A learner who runs cell 3 before cell 1 gets a ``NameError``; the page then says which
earlier cell defines the name (``cell.js``), from the list written here into each cell.
"""

from __future__ import annotations

import ast


def defined_names(*sources: str) -> list[str]:
    """The names that running ``sources`` in order binds at module level, sorted.

    Assignments (plain, annotated, augmented, walrus), ``import`` and ``from … import``,
    ``def``, ``class``, ``for`` and ``with … as`` targets, ``except … as``, and these inside
    ``if``/``for``/``while``/``try``/``with`` bodies; not names bound inside a
    function or class body, nor comprehension variables. Source that does not parse
    defines nothing (the build reports it elsewhere).

    >>> defined_names("import numpy as np\\nfrom posenc import rope", "pe = np.ones(3)\\nfor i, x in pe: pass")
    ['i', 'np', 'pe', 'rope', 'x']
    """
    found: set[str] = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        _ModuleNames(found).visit(tree)
    return sorted(found)


class _ModuleNames(ast.NodeVisitor):
    """Collects the module-level bindings of a tree into ``found``."""

    def __init__(self, found: set[str]) -> None:
        self.found = found

    def _bind(self, target: ast.AST) -> None:
        """The names a target binds: ``a``, ``a, *b``, ``(a, [b, c])``; not ``a.x`` or ``a[i]``."""
        if isinstance(target, ast.Name):
            self.found.add(target.id)
        elif isinstance(target, ast.Starred):
            self._bind(target.value)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._bind(element)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._bind(target)
        self.visit(node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._bind(node.target)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._bind(node.target)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._bind(node.target)
        self.visit(node.value)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.found.add(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name != "*":
                self.found.add(alias.asname or alias.name)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.found.add(node.name)  # its body binds names of its own scope

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._bind(node.target)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_withitem(self, node: ast.withitem) -> None:
        if node.optional_vars is not None:
            self._bind(node.optional_vars)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.found.add(node.name)
        self.generic_visit(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        return  # its parameters are its own

    def visit_ListComp(self, node: ast.AST) -> None:
        return  # comprehension variables are the comprehension's own (walrus inside is rare)

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp
