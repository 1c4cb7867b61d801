"""Safe YAML in and canonical YAML out.

Loading is `safe_load` only, behind caps checked on the event stream before anything is
constructed: size, nesting depth, no anchors or aliases (YAML bombs), no explicit tags.
Dumping is canonical: sorted keys, block style, so the same data gives the same bytes.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from a4a.runtime.errors import SpecError
from a4a.runtime.loader import fsaccess

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_BYTES = 1_000_000
MAX_DEPTH = 32
_STANDARD_TAGS = frozenset(
    f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "map", "seq")
)


def _fail(code: str, message: str, hint: str, source: str) -> SpecError:
    return SpecError(code, message, hint, source=source)


def _check_events(text: str, source: str, max_depth: int) -> None:
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise _fail(
                    "yaml.alias",
                    f"{source}: anchors and aliases are not allowed",
                    "Write the repeated value out in full.",
                    source,
                )
            tag = getattr(event, "tag", None)
            if tag and tag not in _STANDARD_TAGS and tag != "!":
                raise _fail(
                    "yaml.tag",
                    f"{source}: explicit tag {tag!r} is not allowed",
                    "Remove the tag; a4a reads plain YAML data only.",
                    source,
                )
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > max_depth:
                    raise _fail(
                        "yaml.too_deep",
                        f"{source}: nesting deeper than {max_depth} levels",
                        "Flatten the document.",
                        source,
                    )
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError as err:
        raise _fail("yaml.syntax", f"{source}: {err}", "Fix the YAML syntax.", source) from err


def load_yaml_text(
    text: str | bytes, source: str = "<text>", max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH, *, trusted: bool = False,
) -> Any:
    """Parse YAML text safely; raises SpecError with a yaml.* code.

    `trusted` (the package's own data files only) skips the event-stream caps; the
    safe loader is used either way.
    """
    if len(text) > max_bytes:
        raise _fail(
            "yaml.too_large",
            f"{source}: {len(text)} bytes exceeds the {max_bytes}-byte cap",
            "Split the file or remove bulk data.",
            source,
        )
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise _fail("yaml.encoding", f"{source}: not UTF-8", "Save as UTF-8.", source) from err
    if not trusted:
        _check_events(text, source, max_depth)
    loader = _Loader(text)  # the (C) safe loader, only after the caps above held
    try:
        return loader.get_single_data()
    except yaml.YAMLError as err:
        raise _fail("yaml.syntax", f"{source}: {err}", "Fix the YAML syntax.", source) from err
    finally:
        loader.dispose()


def load_yaml_file(path: Path, max_bytes: int = MAX_BYTES, *, root: Path | None = None,
                   trusted: bool = False) -> Any:
    """Read and parse a YAML file with the same caps, through `fsaccess`.

    Only a regular file is read (never a device, FIFO or socket), its size is checked before
    reading, and with `root` it must resolve inside `root` unless `trusted`.

    Raises:
        SpecError: yaml.* as `load_yaml_text`; file.missing, file.not_regular,
            file.outside_root, file.unreadable (see `fsaccess.read_bytes`).
    """
    try:
        # `path` is as the caller opens it; fsaccess reads a relative path against `root`.
        data = fsaccess.read_bytes(Path(path).absolute(), root=root, max_bytes=max_bytes,
                                   trusted=trusted)
    except SpecError as err:
        if err.code != "file.too_large":
            raise
        raise _fail("yaml.too_large", err.message, "Split the file or remove bulk data.",
                    str(path)) from err
    return load_yaml_text(data, str(path), max_bytes)


def dump_yaml(data: Any) -> str:
    """Canonical YAML of JSON-like data: sorted keys, block style, literal multi-line strings.

    A small emitter of our own (PyYAML's representer dominated build time); a property test
    checks that the safe loader reads back exactly what was dumped.
    """
    out: list[str] = []
    _emit(data, 0, out)
    return "".join(out)


_PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9_./-]*$")
_RESERVED = frozenset("y n yes no on off true false null".split())


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    return _string(str(value))


@lru_cache(maxsize=8192)
def _string(text: str) -> str:
    if _PLAIN.fullmatch(text) and text.lower() not in _RESERVED:
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    if quoted.isprintable():
        return quoted
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in quoted)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else (
        f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")


def _float(value: float) -> str:
    if not math.isfinite(value):
        return ".nan" if value != value else ("-.inf" if value < 0 else ".inf")
    mant, _, exp = repr(value).partition("e")
    mant = mant if "." in mant else mant + ".0"  # YAML 1.1 floats need a dot...
    if exp and exp[0] not in "+-":
        exp = "+" + exp  # ...and a signed exponent
    return f"{mant}e{exp}" if exp else mant


def _literal_ok(text: str) -> bool:
    return ("\n" in text and not text.startswith((" ", "\n")) and not text.endswith("\n\n")
            and text.replace("\n", "").isprintable()
            and " \n" not in text and not text.endswith(" "))


def _emit(value: Any, indent: int, out: list[str]) -> None:
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            out.append(f"{pad}{{}}\n")
        for key in sorted(value):
            _item(f"{pad}{_string(str(key))}:", value[key], indent, out, False)
    elif isinstance(value, list | tuple):
        if not value:
            out.append(f"{pad}[]\n")
        for item in value:
            _item(f"{pad}-", item, indent, out, True)
    else:
        out.append(f"{pad}{_scalar(value)}\n")


def _item(head: str, value: Any, indent: int, out: list[str], in_list: bool) -> None:
    if isinstance(value, dict | list | tuple):
        if not value:
            out.append(f"{head} {{}}\n" if isinstance(value, dict) else f"{head} []\n")
        elif in_list and isinstance(value, dict):
            inner: list[str] = []
            _emit(value, indent + 2, inner)
            out.append(head + " " + inner[0].lstrip(" "))
            out.extend(inner[1:])
        else:
            out.append(head + "\n")
            _emit(value, indent + (2 if isinstance(value, dict) or in_list else 0), out)
    elif isinstance(value, str) and "\n" in value and _literal_ok(value):
        chomp = "" if value.endswith("\n") else "-"
        body = value[:-1] if value.endswith("\n") else value
        lines = "".join(f"{' ' * (indent + 2)}{line}\n" if line else "\n"
                        for line in body.split("\n"))
        out.append(f"{head} |{chomp}\n{lines}")
    else:
        out.append(f"{head} {_scalar(value)}\n")
