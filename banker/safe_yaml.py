"""YAML that people write by hand (editions, settings): refuse what would hang or crash.

PyYAML's safe loader is safe from code execution, not from size: a "billion laughs" file
(anchors referring to anchors) builds a small graph that explodes into billions of items as
soon as anything walks it (a ``repr`` in an error message is enough), a file that refers to
itself has no end, and deeply nested brackets overflow Python's stack. ``safe_load`` measures
the document's expanded size and depth first, without expanding it, and raises
``YamlTooBig`` (a ``yaml.YAMLError``, so existing error handling reports it) instead.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_DEPTH = 100
MAX_NODES = 1_000_000


class YamlTooBig(yaml.YAMLError):
    """A document that nests too deeply, expands too much, or contains itself."""

    def __init__(self, why: str, node: yaml.Node | None = None) -> None:
        super().__init__(why)
        self.problem_mark = node.start_mark if node is not None else None


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def check_node(root: yaml.Node) -> None:
    """Raise ``YamlTooBig`` if ``root`` expands to too many nodes, too deep, or into itself."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    active: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            active.discard(key)
            if size[key] > MAX_NODES:
                raise YamlTooBig("the document expands to too many items", node)
            if depth[key] > MAX_DEPTH:
                raise YamlTooBig("the document nests too deeply", node)
            continue
        if key in size:
            continue
        if key in active:
            raise YamlTooBig("the document contains itself", node)
        active.add(key)
        stack.append((node, True))
        for kid in _children(node):
            if id(kid) in active:
                raise YamlTooBig("the document contains itself", kid)
            if id(kid) not in size:
                stack.append((kid, False))


def compose(text: str) -> yaml.Node | None:
    """The node tree of ``text``, checked."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except RecursionError:
        raise YamlTooBig("the document nests too deeply") from None
    if root is not None:
        check_node(root)
    return root


def safe_load(text: str) -> Any:
    """Like ``yaml.safe_load``, after ``compose`` found the document reasonable."""
    if compose(text) is None:
        return None
    try:
        return yaml.safe_load(text)
    except RecursionError:
        raise YamlTooBig("the document nests too deeply") from None
