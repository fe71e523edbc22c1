"""Control characters from archived text are shown, never executed by a terminal."""

from agentmetrology.edges.display import one_line, printable


def test_escapes_become_visible_and_plain_text_is_unchanged() -> None:
    assert printable("m\x1b[5m") == "m\\x1b[5m"
    assert printable("a\rb\x07\x9b2J\u202eevil") == "a\\x0db\\x07\\x9b2J\\u202eevil"
    text = "tab\tand\nnewline, Côte d’Ivoire, 日本, 😀"
    assert printable(text) == text


def test_one_line_shows_line_breaks_and_controls_as_escapes() -> None:
    assert one_line("no\nsuch: x\x1b[5m\tz\n") == "no\\nsuch: x\\x1b[5m\tz"
    assert one_line("a\r\nb") == "a\\x0d\\nb"
    assert one_line("plain text, kept") == "plain text, kept"
