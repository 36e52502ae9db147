"""Device code out of a mixed module's text, the host part left unparsed.

A frontend's module holds host code (in dialects neither gpuc nor xDSL may
know: `async.execute`, `vector.print`, ...) around its `gpu.module`s. The host
part is not gpuc's business, so when the whole text does not parse,
`device_text` keeps only the gpu.modules and the alias definitions and blanks
out the rest, keeping every line and column where it was, so locations in the
gpu.modules stay those of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_GPU_MODULE = re.compile(r'"gpu\.module"\s*\(\s*\)|\bgpu\.module\s+@')
_ALIAS = re.compile(r"^[#!][\w.$-]+\s*=", re.MULTILINE)
_CLOSE = {"{": "}", "(": ")", "[": "]"}


@dataclass(frozen=True)
class Span:
    start: int
    end: int


def _skip_string(text: str, pos: int) -> int:
    """The position after the string literal starting at `pos`."""
    pos += 1
    while pos < len(text) and text[pos] != '"':
        pos += 2 if text[pos] == "\\" else 1
    return pos + 1


def _code_positions(text: str) -> list[bool]:
    """For each character, whether it is code (not in a string or a comment;
    a string's opening quote counts as code, as a generic op's name starts
    with one)."""
    code = [True] * len(text)
    pos = 0
    while pos < len(text):
        if text[pos] == '"':
            end = _skip_string(text, pos)
            code[pos + 1 : end] = [False] * (end - pos - 1)
            pos = end
        elif text.startswith("//", pos):
            end = text.find("\n", pos)
            end = len(text) if end == -1 else end
            code[pos:end] = [False] * (end - pos)
            pos = end
        else:
            pos += 1
    return code


def _group_end(text: str, code: list[bool], pos: int) -> int:
    """The position after the bracket group opening at `pos`."""
    stack = [_CLOSE[text[pos]]]
    pos += 1
    while pos < len(text) and stack:
        c = text[pos]
        if code[pos]:
            if c in "{([":
                stack.append(_CLOSE[c])
            elif c in "})]" and c == stack[-1]:
                stack.pop()
        pos += 1
    return pos


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _module_end(text: str, code: list[bool], match: re.Match[str]) -> int:
    """The position after the gpu.module whose name `match` found."""
    if match.group().startswith('"'):
        # Generic: `"gpu.module"() <{props}>? ({...}) {attrs}? : () -> ()`,
        # to the end of the line.
        pos = _skip_space(text, match.end())
        if text.startswith("<{", pos):
            pos = _skip_space(text, _group_end(text, code, pos + 1)) + 1
        pos = _skip_space(text, pos)
        pos = _group_end(text, code, pos) if text[pos : pos + 1] == "(" else pos
        line_end = text.find("\n", pos)
        return len(text) if line_end == -1 else line_end
    # Custom: `gpu.module @name [targets]? attributes {...}? {body}`.
    pos = match.end()
    while pos < len(text) and (text[pos].isalnum() or text[pos] in "_.$-"):
        pos += 1
    if text[pos : pos + 1] == '"':
        pos = _skip_string(text, pos)
    while True:
        pos = _skip_space(text, pos)
        if text[pos : pos + 1] in ("[", "<"):
            pos = _group_end(text, code, pos) if text[pos] == "[" else pos + 1
        elif text.startswith("attributes", pos):
            pos = _skip_space(text, pos + len("attributes"))
            pos = _group_end(text, code, pos)
        elif text[pos : pos + 1] == "{":
            return _group_end(text, code, pos)
        else:
            return pos  # not a gpu.module after all: an empty span


def gpu_module_spans(text: str) -> list[Span]:
    """Where the text's gpu.modules are, in order."""
    code = _code_positions(text)
    spans: list[Span] = []
    for match in _GPU_MODULE.finditer(text):
        if not code[match.start()] or (spans and match.start() < spans[-1].end):
            continue
        spans.append(Span(match.start(), _module_end(text, code, match)))
    return spans


def device_text(text: str, spans: list[Span]) -> str:
    """`text` with everything but `spans` and alias definitions blanked out."""
    keep = [False] * len(text)
    for span in spans:
        keep[span.start : span.end] = [True] * (span.end - span.start)
    for alias in _ALIAS.finditer(text):
        if not any(s.start <= alias.start() < s.end for s in spans):
            line_end = text.find("\n", alias.start())
            line_end = len(text) if line_end == -1 else line_end
            keep[alias.start() : line_end] = [True] * (line_end - alias.start())
    return "".join(c if keep[i] or c == "\n" else " " for i, c in enumerate(text))


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1
