"""Control characters from archived text are shown, never executed by a terminal."""

from agentmetrology.edges.display import printable


def test_escapes_become_visible_and_plain_text_is_unchanged() -> None:
    assert printable("m\x1b[5m") == "m\\x1b[5m"
    assert printable("a\rb\x07\x9b2J\u202eevil") == "a\\x0db\\x07\\x9b2J\\u202eevil"
    text = "tab\tand\nnewline, Côte d’Ivoire, 日本, 😀"
    assert printable(text) == text
