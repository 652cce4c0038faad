"""YAML read safely and with line numbers: a loader whose mappings and lists remember
where they were written, and that refuses documents whose aliases expand past
:data:`~.bounds.MAX_YAML_VALUES` values or :data:`~.bounds.MAX_YAML_DEPTH` levels
(a "billion laughs" is one line at once).
"""

from __future__ import annotations

from typing import Any

import yaml

from harness.plugins import (
    shown,
)
from harness.tourney.config.bounds import MAX_YAML_DEPTH, MAX_YAML_VALUES


# -- YAML with line numbers ------------------------------------------------------------
class LineMap(dict):
    """A YAML mapping that remembers the line of each key (1-based)."""

    line: int = 0
    lines: dict[Any, int]


class LineSeq(list):
    """A YAML sequence that remembers the line of each item (1-based)."""

    line: int = 0
    lines: list[int]


class LineLoader(yaml.SafeLoader):
    """SafeLoader (no arbitrary objects) that refuses documents that expand too far."""

    _depth = 0

    def compose_document(self) -> Any:
        node = super().compose_document()
        _check_expansion(node)  # before anything is constructed from it
        return node

    def compose_node(self, parent: Any, index: Any) -> Any:
        # Refuse deep nesting as soon as it is read: the composer recurses per level.
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                mark = self.peek_event().start_mark
                raise YamlProblem(mark.line + 1, f"values nested more than {MAX_YAML_DEPTH} deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _check_expansion(root: yaml.Node | None) -> None:
    """Refuse a document of more than MAX_YAML_VALUES values once aliases are expanded,
    nested deeper than MAX_YAML_DEPTH, or with an alias inside itself.

    An alias is the node it names (the composer shares it), so each node's expanded size
    is computed once: a 1 kB alias bomb of 9^9 values costs a few dozen steps here.
    """
    if root is None:
        return
    problem = expansion_problem(root, _node_children)
    if problem:
        node, message = problem
        raise YamlProblem(node.start_mark.line + 1, message)


def _node_children(node: Any) -> list[Any]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def value_children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [v for pair in dict.items(value) for v in pair]
    if isinstance(value, (list, tuple)):
        return list(value)
    return []


def expansion_problem(root: Any, children: Any) -> tuple[Any, str] | None:
    """(where, why) if ``root`` expands to too many values, too deep or into itself.

    Shared parts (aliases; the same list twice in a mapping given from Python) are
    counted as often as they appear but walked once, so the cost is the number of
    distinct parts, however far they expand.
    """
    size: dict[int, int] = {}  # id(part) -> values it expands to (capped)
    depth: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    open_parts: set[int] = set()  # the parts on the path from the root: a cycle's test
    keep = []  # every part walked stays alive, so no id() is reused meanwhile
    while stack:
        part, done = stack.pop()
        key = id(part)
        if done:
            open_parts.discard(key)
            kids = children(part)
            size[key] = min(1 + sum(size[id(k)] for k in kids), MAX_YAML_VALUES + 1)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            if size[key] > MAX_YAML_VALUES:
                return part, (
                    f"the document expands to more than {MAX_YAML_VALUES:,} values "
                    "(aliases repeat what they name); a config needs a few dozen"
                )
            if depth[key] > MAX_YAML_DEPTH:
                return part, f"values nested more than {MAX_YAML_DEPTH} deep"
            continue
        if key in size:
            continue
        if key in open_parts:
            return part, "a value that contains itself (an alias inside what it names)"
        open_parts.add(key)
        keep.append(part)
        stack.append((part, True))
        stack.extend((k, False) for k in children(part) if id(k) not in size)
    return None


def _construct_map(loader: LineLoader, node: yaml.MappingNode) -> LineMap:
    loader.flatten_mapping(node)
    data = LineMap()
    data.line = node.start_mark.line + 1
    data.lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if not isinstance(key, (str, int, float, bool)) and key is not None:
            raise YamlProblem(line, f"a key must be a plain word, got {shown(key)}")
        if key in data:
            raise YamlProblem(
                line, f"{shown(key)}: duplicate key (first on line {data.lines[key]})"
            )
        data[key] = loader.construct_object(value_node, deep=True)
        data.lines[key] = line
    return data


def _construct_seq(loader: LineLoader, node: yaml.SequenceNode) -> LineSeq:
    data = LineSeq(loader.construct_object(child, deep=True) for child in node.value)
    data.line = node.start_mark.line + 1
    data.lines = [child.start_mark.line + 1 for child in node.value]
    return data


def _construct_int(loader: LineLoader, node: yaml.ScalarNode) -> int:
    # No bound here is above 20 digits; reading a longer one can cost a lot (Python refuses
    # decimal ones past 4,300 digits; "1:1:1:..." base 60 is quadratic), so it is not read.
    if len(node.value) > 100:
        line = node.start_mark.line + 1
        raise YamlProblem(line, f"a number of {len(node.value):,} characters; far too large")
    return yaml.SafeLoader.construct_yaml_int(loader, node)


LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_map)
LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_seq)
LineLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


class YamlProblem(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
