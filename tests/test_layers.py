"""The package's layers run one way, and no import circle runs through them.

From the bottom: config, extensions, models, database, catalog, roles, draft_links, commands,
markup and fulltext; then web (HTTP plumbing); then media (images, resized copies, drawings,
previews); then reading and authoring, which never import each other; transfer, cli and the
app factory on top. Every
import counts, those inside functions and under TYPE_CHECKING included: a lazy import up a
layer is still a reader of the code climbing the wrong way.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "blog"

# Each top-level name of blog/ and the layer it sits on: a module may import its own layer and
# those below it. Every name in blog/ must be listed (test_every_module_has_a_layer).
LAYERS: dict[str, int] = {
    "config": 0,
    "extensions": 0,
    "models": 0,
    "database": 0,
    "catalog": 0,
    "roles": 0,
    "draft_links": 0,
    "commands": 0,
    "markup": 0,
    "fulltext": 0,
    "web": 1,
    "media": 2,
    "reading": 3,
    "authoring": 3,
    "transfer": 4,
    "cli": 4,
    "": 5,  # blog/__init__.py: the app factory registers every area
}
# Areas on one layer that must not lean on each other: what both need lives below them.
APART = {frozenset({"reading", "authoring"})}


def module_name(path: Path, root: Path) -> str:
    """The dotted name of a source file under `root` (a package's __init__ is the package)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules_of(root: Path) -> dict[str, Path]:
    """Every module of the package at `root`, by dotted name."""
    return {module_name(path, root): path for path in sorted(root.rglob("*.py"))}


def imports_of(name: str, path: Path, known: Iterable[str]) -> set[str]:
    """The package's own modules that the module imports, wherever the import sits."""
    known = set(known)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, up level - 1 parents
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in known:
                    found.add(submodule)
                elif base in known:
                    found.add(base)
    found.discard(name)
    return found


def area_of(name: str) -> str:
    """The top-level name under the package that a module belongs to ("" for the factory)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def wrong_imports(graph: Mapping[str, set[str]]) -> list[str]:
    """Each import that climbs to a higher layer or crosses between areas kept apart."""
    found = []
    for importer, imported in sorted(graph.items()):
        for target in sorted(imported):
            lower, upper = area_of(target), area_of(importer)
            if LAYERS[lower] > LAYERS[upper]:
                found.append(f"{importer} imports {target}: up from layer {LAYERS[upper]}")
            elif lower != upper and frozenset({lower, upper}) in APART:
                found.append(f"{importer} imports {target}: {upper} and {lower} stay apart")
    return found


def is_inside(module: str, package: str) -> bool:
    """Whether `module` is `package` itself or sits inside it."""
    return module == package or module.startswith(package + ".")


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The import circles (strongly connected groups of two or more modules).

    A view module importing the package that holds it (for the blueprint its __init__ owns)
    is no circle: Python runs a package's __init__ before any module inside it, always.
    """
    edges = {
        name: {target for target in targets if not is_inside(name, target)}
        for name, targets in graph.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def import_graph(root: Path) -> dict[str, set[str]]:
    """Which of the package's modules each module imports."""
    modules = modules_of(root)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_every_module_has_a_layer():
    names = {area_of(name) for name in modules_of(PACKAGE)}
    assert names <= LAYERS.keys(), f"give these a layer in LAYERS: {names - LAYERS.keys()}"


def test_imports_run_down_the_layers():
    assert wrong_imports(import_graph(PACKAGE)) == []


def test_no_import_circle():
    assert circles(import_graph(PACKAGE)) == []


def test_every_area_says_what_it_holds_and_may_import():
    for area in ("markup", "web", "media", "reading", "authoring", "transfer"):
        doc = ast.get_docstring(ast.parse((PACKAGE / area / "__init__.py").read_text("utf-8")))
        assert doc and "import" in doc, f"blog/{area}/__init__.py says nothing of its imports"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small package laid out like blog/, with one import per layer, all of them down."""
    root = tmp_path / "blog"
    for name, text in {
        "__init__.py": "from blog.reading import views\nfrom blog import cli\n",
        "cli.py": "from blog.transfer import files\n",
        "models.py": "",
        "web/__init__.py": "",
        "web/htmx.py": "from blog.models import Post\n",
        "media/__init__.py": "",
        "media/images.py": "from blog.web import htmx\n",
        "reading/__init__.py": "",
        "reading/views.py": "from blog.media.images import url\nfrom . import listing\n",
        "reading/listing.py": "from ..models import Post\n",
        "authoring/__init__.py": "bp = None\nfrom blog.authoring import posts\n",
        "authoring/posts.py": "from blog.authoring import bp\n",
        "transfer/__init__.py": "",
        "transfer/files.py": "def f():\n    from blog.authoring import posts\n",
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_tree_that_imports_down_passes(tree):
    graph = import_graph(tree)
    assert graph["blog.reading.views"] == {"blog.media.images", "blog.reading.listing"}
    assert graph["blog.reading.listing"] == {"blog.models"}
    assert wrong_imports(graph) == [] and circles(graph) == []


@pytest.mark.parametrize(
    ("module", "line", "problem"),
    [
        ("models.py", "from blog.web import htmx\n", "up from layer 0"),
        ("web/htmx.py", "def f():\n    from blog.media import images\n", "up from layer 1"),
        ("media/images.py", "from blog.reading.views import x\n", "up from layer 2"),
        ("reading/listing.py", "from blog.authoring import posts\n", "stay apart"),
        ("authoring/posts.py", "if 1:\n    import blog.reading.views\n", "stay apart"),
        ("reading/listing.py", "from ...blog.cli import x\n", "up from layer 3"),
    ],
)
def test_an_import_up_or_across_fails(tree, module, line, problem):
    path = tree / module
    path.write_text(path.read_text() + line)
    found = wrong_imports(import_graph(tree))
    assert len(found) == 1 and problem in found[0]


def test_a_circle_fails(tree):
    (tree / "reading/listing.py").write_text("from blog.reading import views\n")
    assert circles(import_graph(tree)) == [["blog.reading.listing", "blog.reading.views"]]
