"""The prompt-template worker: renders the Jinja templates `templating` sends, one per line.

It runs as its own isolated interpreter (`python -I templating_worker.py`), so a template
that loops, recurses or allocates without end costs this process only: its address space is
capped, each render has a wall-clock alarm, and the output is capped while it streams. The
environment is sandboxed with StrictUndefined and no globals but a `range` capped in total
items per render (no `lipsum`, `cycler`, `joiner`, `namespace` or `dict`); repeating a
sequence and raising to a power are capped before they compute. It imports only the
standard library and jinja2.

Protocol: a request line `{"source", "context", "max_output", "timeout_s", "lenient"}` gets a reply
line `{"text"}` or `{"code", "message"}`; a first line `{"ready": true}` says it started.
"""

from __future__ import annotations

import json
import resource
import signal
import sys
from functools import lru_cache
from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment

MEMORY_BYTES = 1 << 30
MAX_RANGE_ITEMS = 10_000
MAX_POWER_BITS = 100_000
MAX_CACHED_SOURCE = 65_536


class Budget(Exception):
    """A render went over one of its caps; `.code` is the error code to report."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class _Environment(SandboxedEnvironment):
    """The sandbox, with `*` and `**` checked before they build a value."""

    intercepted_binops = frozenset({"*", "**"})

    def __init__(self, lenient: bool = False) -> None:
        # lenient: NexAU's own semantics (unknown variables render empty, blocks trimmed)
        super().__init__(undefined=jinja2.Undefined if lenient else jinja2.StrictUndefined,
                         autoescape=False, trim_blocks=lenient, lstrip_blocks=lenient)
        self.max_output = 0  # set for each render, with the range items it has used
        self.range_items = 0
        self.globals = {"range": self._range}

    def _range(self, *args: int) -> range:
        values = range(*args)
        try:
            self.range_items += len(values)
        except OverflowError:
            self.range_items = MAX_RANGE_ITEMS + 1
        if self.range_items > MAX_RANGE_ITEMS:
            raise Budget("prompt.budget", f"range() asked for more than {MAX_RANGE_ITEMS} "
                         "items in one render")
        return values

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        """`left operator right`, refused when the result would exceed a cap."""
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if (isinstance(seq, str | list | tuple) and isinstance(times, int)
                        and len(seq) * times > self.max_output):
                    raise Budget("prompt.too_large", f"repeating a value {times} times "
                                 f"makes more than {self.max_output} items")
        if (operator == "**" and isinstance(left, int) and isinstance(right, int)
                and abs(left) > 1 and max(abs(left).bit_length(), 1) * right > MAX_POWER_BITS):
            raise Budget("prompt.budget", f"{left} ** {right} is too large to compute")
        return super().call_binop(context, operator, left, right)


def _alarm(signum: int, frame: Any) -> None:
    raise Budget("prompt.budget", "the template did not finish rendering in time")


# One environment per kind per worker; renders run one at a time, each setting its caps first.
_ENVS = {False: _Environment(), True: _Environment(lenient=True)}


@lru_cache(maxsize=256)
def _cached(source: str, lenient: bool) -> jinja2.Template:
    return _ENVS[lenient].from_string(source)


def _compiled(source: str, lenient: bool) -> jinja2.Template:
    """The template, compiled once when small (prompts repeat across turns and runs)."""
    if len(source) > MAX_CACHED_SOURCE:
        return _ENVS[lenient].from_string(source)
    return _cached(source, lenient)


def render(request: dict[str, Any]) -> dict[str, Any]:
    """Render one request; every failure becomes a `{"code", "message"}` reply."""
    max_output = int(request["max_output"])
    lenient = bool(request.get("lenient"))
    env = _ENVS[lenient]
    env.max_output, env.range_items = max_output, 0
    signal.setitimer(signal.ITIMER_REAL, float(request["timeout_s"]))
    try:
        template = _compiled(str(request["source"]), lenient)
        parts: list[str] = []
        size = 0
        for chunk in template.generate(request["context"]):
            size += len(chunk)
            if size > max_output:
                raise Budget("prompt.too_large", f"the prompt renders to more than "
                             f"{max_output} characters")
            parts.append(chunk)
        return {"text": "".join(parts)}
    except Budget as err:
        return {"code": err.code, "message": str(err)}
    except (MemoryError, RecursionError) as err:
        return {"code": "prompt.budget", "message": f"the template needs too much "
                f"{'memory' if isinstance(err, MemoryError) else 'recursion'} to render"}
    except jinja2.TemplateError as err:
        return {"code": "prompt.render", "message": str(err)}
    except Exception as err:  # what the template's own operations raise (1/0, bad types)
        return {"code": "prompt.render", "message": f"{type(err).__name__}: {err}"}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def main() -> None:
    """Serve requests from stdin until it closes."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    signal.signal(signal.SIGALRM, _alarm)
    out = sys.stdout.buffer
    out.write(b'{"ready": true}\n')
    out.flush()
    for line in sys.stdin.buffer:
        try:
            reply = render(json.loads(line))
        except (ValueError, KeyError, TypeError) as err:
            reply = {"code": "prompt.render", "message": f"bad request: {err}"}
        out.write(json.dumps(reply).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
