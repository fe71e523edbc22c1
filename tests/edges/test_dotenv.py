"""`.env` files: parsed as most LLM tools read them, never overriding a set variable, and a
malformed line named by its number, never printed (moved from tests/cli/test_cli_conventions.py;
the CLI's own `.env` tests stay there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.edges.dotenv import DotenvError, load_dotenv, parse_dotenv


def test_dotenv_parsing() -> None:
    text = ("# keys\n\nexport A_KEY=abc\nB='x y # not a comment'\nC=\"line\\nnext\"\n"
            "D=plain value # a comment\nE=\n")
    assert parse_dotenv(text) == {"A_KEY": "abc", "B": "x y # not a comment",
                                  "C": "line\nnext", "D": "plain value", "E": ""}


@pytest.mark.parametrize(("text", "message"), [
    ("A=1\nsk-secret-value\n", ".env line 2: expected NAME=VALUE"),
    ("1A=x\n", ".env line 1: the variable name is not a valid name (letters, digits and _, "
     "not starting with a digit)"),
    ("A=\"sk-secret-value\n", ".env line 1: unterminated double quote"),
    ("\n\nA='sk-secret-value\n", ".env line 3: unterminated single quote"),
    ("A='x' sk-secret-value\n", ".env line 1: text after the closing quote"),
])
def test_a_malformed_dotenv_line_is_named_not_printed(text: str, message: str) -> None:
    with pytest.raises(DotenvError) as err:
        parse_dotenv(text)
    assert str(err.value) == message and "sk-secret" not in str(err.value)


def test_dotenv_never_overrides_a_set_variable(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("KEEP=from-file\nNEW=from-file\n")
    environ = {"KEEP": "from-shell"}
    assert load_dotenv(tmp_path, environ) == ["NEW"]
    assert environ == {"KEEP": "from-shell", "NEW": "from-file"}
    assert load_dotenv(tmp_path / "nowhere", environ) == []
