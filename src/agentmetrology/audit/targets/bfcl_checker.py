"""Lazy access to the installed bfcl-eval AST checker and the dataset it ships.

bfcl-eval's `ast_checker` module imports `bfcl_eval.constants.model_config` only to read one flag
per model (`underscore_to_dot`), yet that module imports every model handler and with them a
dozen provider SDKs (anthropic, openai, cohere, qwen-agent, boto3 ...): hundreds of megabytes and
about ten seconds of import time. So the checker file is executed here under a private module
name with a stand-in for `model_config` whose table is read from the installed `model_config.py`
by parsing it (no execution). Every checking function that runs is bfcl-eval's own, unchanged;
only the flag table is supplied. That lets `pip install --no-deps bfcl-eval` suffice.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.metadata
import importlib.util
import json
import re
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BFCL_EVAL_VERSION = "2026.3.23"  # the version this target is tested against
INSTALL_HINT = (
    "the bfcl target needs the optional extra: pip install 'agentmetrology[bfcl]' "
    f"(bfcl-eval=={BFCL_EVAL_VERSION}); its checker needs none of bfcl-eval's own "
    f"dependencies, so the light way is: pip install --no-deps 'bfcl-eval=={BFCL_EVAL_VERSION}'"
)
# A model whose config keeps dotted function names as they are declared (underscore_to_dot is
# False), so the oracle can emit the names exactly as the dataset declares them.
CHECKER_MODEL = "gorilla-openfunctions-v2"
_PRIVATE_NAME = "agentmetrology.audit.targets._bfcl_ast_checker"
_MODEL_CONFIG = "bfcl_eval.constants.model_config"

# Current (v4) category names and the older (v3) names for the same data.
OLD_NAMES: dict[str, str] = {
    "simple_python": "simple",
    "simple_java": "java",
    "simple_javascript": "javascript",
}
# Categories scored by the AST checker with Python typing (java/javascript convert strings with
# their own parsers and are not covered by this target's forgery rules).
PYTHON_AST_CATEGORIES: tuple[str, ...] = (
    "simple_python", "multiple", "parallel", "parallel_multiple",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
)


class BfclUnavailable(ImportError):
    """bfcl-eval (or a part of it this target needs) cannot be imported."""


@dataclass(frozen=True, slots=True)
class BfclChecker:
    """The loaded checker: its module, version, data folder and the calls the target makes."""

    module: types.ModuleType
    version: str
    data_dir: Path

    def check(self, functions: list[dict[str, Any]], output: Any,
              answers: list[dict[str, Any]], category: str) -> dict[str, Any]:
        """Return bfcl-eval's verdict dict ({"valid": bool, "error": [...], ...})."""
        language: Any = getattr(self.module, "Language", None)
        # Older releases took the language as a plain string.
        lang = language.PYTHON if language is not None else "Python"
        result: dict[str, Any] = self.module.ast_checker(
            functions, output, answers, lang, category, CHECKER_MODEL)
        return result

    @property
    def standardize(self) -> Callable[[str], str]:
        """Return the checker's own string normalisation (used to vet corruptions)."""
        fn: Callable[[str], str] = self.module.standardize_string
        return fn


@functools.lru_cache(maxsize=1)
def load_checker() -> BfclChecker:
    """Return the installed bfcl-eval AST checker, or raise BfclUnavailable."""
    try:
        package = importlib.import_module("bfcl_eval")
    except ImportError as exc:
        raise BfclUnavailable(INSTALL_HINT) from exc
    root = Path(package.__file__ or "").resolve().parent
    source = root / "eval_checker" / "ast_eval" / "ast_checker.py"
    if not source.is_file():
        raise BfclUnavailable(f"{INSTALL_HINT} (no AST checker at {source})")
    try:
        module = _exec_checker(source, root / "constants" / "model_config.py")
    except ImportError as exc:
        raise BfclUnavailable(f"{INSTALL_HINT} (importing the checker failed: {exc})") from exc
    try:
        version = importlib.metadata.version("bfcl-eval")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return BfclChecker(module, version, root / "data")


def _exec_checker(source: Path, model_config: Path) -> types.ModuleType:
    """Execute ast_checker.py privately, with the model-config stand-in only during the run."""
    spec = importlib.util.spec_from_file_location(_PRIVATE_NAME, source)
    if spec is None or spec.loader is None:
        raise BfclUnavailable(f"{INSTALL_HINT} (cannot load {source})")
    module = importlib.util.module_from_spec(spec)
    # If the real model_config is already imported (a full bfcl-eval install in use), use it.
    stand_in = None if _MODEL_CONFIG in sys.modules else model_config_stand_in(model_config)
    if stand_in is not None:
        sys.modules[_MODEL_CONFIG] = stand_in
    try:
        spec.loader.exec_module(module)
    finally:
        # Leave no trace: a later real `import bfcl_eval...model_config` must get the real one.
        if stand_in is not None and sys.modules.get(_MODEL_CONFIG) is stand_in:
            del sys.modules[_MODEL_CONFIG]
    return module


def model_config_stand_in(path: Path) -> types.ModuleType:
    """Return a module exposing MODEL_CONFIG_MAPPING {model: flags} parsed from model_config.py."""
    table = underscore_to_dot_table(path.read_text(encoding="utf-8"))
    if CHECKER_MODEL not in table:
        raise BfclUnavailable(f"{INSTALL_HINT} (model {CHECKER_MODEL!r} not in {path})")
    module = types.ModuleType(_MODEL_CONFIG)
    module.MODEL_CONFIG_MAPPING = {  # type: ignore[attr-defined]
        name: types.SimpleNamespace(underscore_to_dot=flag) for name, flag in table.items()}
    return module


def underscore_to_dot_table(source: str) -> dict[str, bool]:
    """Return {model key: underscore_to_dot} from the ModelConfig(...) literals in the source."""
    tree = ast.parse(source)
    default = False
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "ModelConfig":
            for stmt in node.body:
                if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                        and stmt.target.id == "underscore_to_dot" and stmt.value is not None):
                    default = bool(ast.literal_eval(stmt.value))
    table: dict[str, bool] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if (isinstance(key, ast.Constant) and isinstance(key.value, str)
                    and isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                    and value.func.id == "ModelConfig"):
                flag = default
                for kw in value.keywords:
                    if kw.arg == "underscore_to_dot":
                        flag = bool(ast.literal_eval(kw.value))
                table[key.value] = flag
    return table


def canonical_category(category: str) -> str:
    """Return the current (v4) name of a category given either its current or older name."""
    reverse = {old: new for new, old in OLD_NAMES.items()}
    return reverse.get(category, category)


def dataset_files(data_dir: Path, category: str) -> tuple[Path, Path, str]:
    """Return (questions file, possible-answer file, name as shipped) for a category."""
    current = canonical_category(category)
    for name in (current, OLD_NAMES.get(current, current)):
        # `BFCL_v*_multiple.json` would also match live_multiple etc.: match the name exactly.
        pattern = re.compile(rf"BFCL_v(\d+)_{re.escape(name)}\.json")
        found = sorted((p for p in data_dir.glob("BFCL_v*.json") if pattern.fullmatch(p.name)),
                       key=_version_of, reverse=True)
        for questions in found:
            answers = data_dir / "possible_answer" / questions.name
            if answers.is_file():
                return questions, answers, name
    raise ValueError(f"bfcl-eval ships no data for category {category!r} under {data_dir}")


def _version_of(path: Path) -> int:
    """Return the N of a BFCL_vN_ file name (newest data first)."""
    match = re.match(r"BFCL_v(\d+)_", path.name)
    return int(match.group(1)) if match else -1


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Return the JSON objects of a JSON-lines file (bfcl-eval's dataset format)."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
