"""Safe XML parsing shared by the JATS, TEI and HTML readers.

Entities are never resolved or expanded, no DTD is loaded and nothing is fetched from the network.
A document whose DOCTYPE declares entities (internal or external: the way to "billion laughs" and
``file:///etc/passwd``) is refused outright with an InputError.
"""

from __future__ import annotations

import html.entities
import re
from collections.abc import Callable

from lxml import etree

from claimtrace.errors import InputError

# the internal subset of a DOCTYPE: <!DOCTYPE name ... [ ... ]>
_DOCTYPE_SUBSET = re.compile(rb"<!DOCTYPE[^>\[]*\[(.*?)\]\s*>", re.S | re.I)
_ENTITY_DECL = re.compile(rb"<!ENTITY", re.I)


def check_entities(data: bytes, path: str) -> None:
    """Refuse a document that declares entities in its DOCTYPE (never expand or resolve them)."""
    head = _prolog(data)
    if _ENTITY_DECL.search(head):
        m = re.search(rb"<!ENTITY\s+%?\s*\S+\s+(SYSTEM|PUBLIC)", head, re.I)
        what = "an external entity" if m else "entities"
        raise InputError(path, f"XML declares {what} in its DOCTYPE; refused (entities are never expanded)")
    if _DOCTYPE_SUBSET.search(head) and re.search(rb"<!ATTLIST|%\w+;", head):
        raise InputError(path, "XML DOCTYPE has an internal subset with declarations; refused")


def _prolog(data: bytes) -> bytes:
    """The bytes before the root element (where a DOCTYPE and its internal subset live)."""
    pos = 0
    n = len(data)
    while pos < n:
        lt = data.find(b"<", pos)
        if lt < 0 or lt + 1 >= n:
            return data
        nxt = data[lt + 1 : lt + 2]
        if nxt == b"?":
            end = data.find(b"?>", lt)
            pos = n if end < 0 else end + 2
        elif data.startswith(b"<!--", lt):
            end = data.find(b"-->", lt)
            pos = n if end < 0 else end + 3
        elif nxt == b"!":
            # DOCTYPE: skip to its end, honouring an internal subset in brackets
            depth = 0
            i = lt + 2
            while i < n:
                c = data[i : i + 1]
                if c == b"[":
                    depth += 1
                elif c == b"]":
                    depth -= 1
                elif c == b">" and depth <= 0:
                    break
                i += 1
            pos = i + 1
        else:
            return data[:lt]
    return data


def safe_parser(*, recover: bool = False) -> etree.XMLParser:
    """An lxml parser that never resolves entities, loads DTDs or touches the network."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        recover=recover,
    )


def parse_xml(data: bytes, path: str, *, recover: bool = False) -> etree._Element:
    """Parse XML bytes safely; malformed XML and entity declarations raise InputError (one line)."""
    check_entities(data, path)
    try:
        root = etree.fromstring(data, parser=safe_parser(recover=recover))
    except etree.XMLSyntaxError as exc:
        msg = re.sub(r"\s*\(<string>, line \d+\)$", "", " ".join(str(exc).split()))
        raise InputError(path, f"malformed XML: {msg}") from None
    if root is None:
        raise InputError(path, "malformed XML: no root element")
    _replace_named_entities(root)
    return root


def _replace_named_entities(root: etree._Element) -> None:
    """Turn references to undeclared standard entities (``&nbsp;`` from an unloaded DTD) into text.

    Nothing the document declares itself gets here (such documents are refused); only the names of
    the HTML/ISO character entities are mapped, anything else becomes an empty string.
    """
    for ent in list(root.iter(etree.Entity)):
        name = str(getattr(ent, "name", ""))
        text = html.entities.html5.get(f"{name};", "")
        parent = ent.getparent()
        if parent is None:
            continue
        tail = ent.tail or ""
        prev = ent.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + text + tail
        else:
            parent.text = (parent.text or "") + text + tail
        parent.remove(ent)


def local(tag: object) -> str:
    """The local name of an element tag ('' for comments and processing instructions)."""
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def children(el: etree._Element, name: str) -> list[etree._Element]:
    """The direct children of an element with a local name."""
    return [c for c in el if local(c.tag) == name]


def first(el: etree._Element | None, *path: str) -> etree._Element | None:
    """The first child along a path of local names (None where the path breaks)."""
    cur = el
    for name in path:
        if cur is None:
            return None
        cur = next((c for c in cur if local(c.tag) == name), None)
    return cur


def inline_text(el: etree._Element, visit: Callable[[etree._Element, str], str | None]) -> str:
    """The running text of an element in reading order: ``visit(child, local_name)`` gives a child's text
    (``""`` to skip it), or None for inline markup whose own text is walked the same way."""
    parts: list[str] = []

    def walk(e: etree._Element) -> None:
        if e.text:
            parts.append(e.text)
        for child in e:
            got = visit(child, local(child.tag))
            if got is None:
                walk(child)
            else:
                parts.append(got)
            if child.tail:
                parts.append(child.tail)

    walk(el)
    return "".join(parts)
