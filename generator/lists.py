"""Roles a request lists: list items, headings, table rows, bold names and enumerations.

"Title: duty", "Title (duty)", a heading with its duty on the lines below, "| Title | ... |
duty |", "l'**Agent RAG**", "agentes especializados (Suporte, Vendas e Gerente)". English titles
follow the open role rule; titles in other languages are read by generator/naming.py.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from itertools import pairwise

from a4a.generator.naming import AMPERSAND, read_title
from a4a.generator.rolewords import (
    BARE,
    PLACEHOLDER,
    PLURAL,
    ROLE_WORDS,
    Role,
    is_filler,
    is_role_word,
    slug,
    title_words,
)
from a4a.generator.text import Text, compile_terms, fold, normalize, table, terms

_MARKS = re.compile(r"^\s*(?:(?:[-•●>├└│─┬┌→]+|\*(?!\*)|\d{1,2}[.)、]|#{1,6})\s*){1,3}")
# (a bracket in the title is closed before the separator: "Agent 1 (Architect): ...", never
# "BugDetectionAgent (BUGS command - 4 sub-agents)")
_HEADER = re.compile(r"^(?P<title>(?:[^:：\n(（]|[(（][^()（）\n]*[)）]){2,60}?)\s*"
                     r"(?:[:：]|\s[-–—→]\s|\s?->\s)\s*(?P<duty>.*)$")
_PAREN = re.compile(r"^(?P<title>[^()（）\n]{2,60}?)\s*[(（](?P<duty>[^()（）]{2,200})[)）]\s*$")
# A label before a duty on the line under a heading ("**Aufgabe:** ...", "But :").
_LABEL = re.compile(r"^(?:\*\*|__)?[^\W\d_][^*:：\n]{0,20}?(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*")
_ARROW = re.compile(r"→|->|⟶|=>")
_BOLD = re.compile(r"^(?:\*\*|__)(?P<title>[^*_\n]{2,60}?)(?:\*\*|__)\s*[:：]?\s*(?P<duty>.*)$")

def header_roles(lines: list[str], offset: list[int], lang: str) -> list[Role]:
    """Roles of list items, headings and table rows.

    "Title: duty", "Title (duty)", a heading with the duty on the lines under it,
    "| Title | ... | duty |".
    """
    out = []
    cols = _duty_columns(lines)
    found = [None if _table_head(lines, i) else _line_role(line, lang, cols[i])
             for i, line in enumerate(lines)]
    for i in _siblings(lines, found):
        found[i] = _sibling_role(lines[i])
    for i in _counted_items(lines, found):
        found[i] = _sibling_role(lines[i], least=1)
    for i in _agent_rows(lines, found):
        found[i] = _row_role(lines[i], cols[i])
    for i, hit in enumerate(found):
        if hit is None:
            continue
        name, title, duty = hit
        duty = duty or _duty_below(lines, i, lang)
        members = _members(title, duty)
        out += [Role(slug(title_words(m)), m.lower(), "", "header", offset[i] + k)
                for k, m in enumerate(members)]
        if not members:
            out.append(Role(name, title, _first_sentence(duty), "header", offset[i]))
    return _distinct_titles(out)


def _distinct_titles(roles: list[Role]) -> list[Role]:
    """Items whose titles differ by a rank keep it: "Researcher", "Senior researcher" are two.

    Names drop leading adjectives ("senior", "lead"), so two items of one list can meet in one
    name; the later one is then named with all its words.
    """
    seen: dict[str, str] = {}
    out = []
    for r in roles:
        if r.name in seen and seen[r.name] != r.title.lower():
            full = slug(re.findall(r"[a-z][a-z0-9-]*", PLACEHOLDER.sub(" ", r.title.lower())))
            r = replace(r, name=full) if full and full not in seen else r
        seen.setdefault(r.name, r.title.lower())
        out.append(r)
    return out


_GROUP_TITLE = re.compile(r"(?:sub-?agents|agents|specialists|workers)$", re.IGNORECASE)
_MEMBER = re.compile(r"[a-z][\w-]*(?: [a-z][\w-]*)? agent", re.IGNORECASE)


def _members(title: str, duty: str) -> list[str]:
    """The agents a group item names in brackets, each one role.

    "**Domain Sub-Agents**: 专职子智能体（Order Agent, Product Agent）".
    """
    if not _GROUP_TITLE.search(title.strip()):
        return []
    m = re.search(r"[(（]([^()（）]{5,120})[)）]", duty)
    items = [i.strip() for i in re.split(r"[,，、]|\band\b", m.group(1))] if m else []
    return items if len(items) >= 2 and all(_MEMBER.fullmatch(i) for i in items) else []


def _key(line: str) -> str:
    """The form of a list item or heading ("###", "-**", "N.**:d"), "" for other lines.

    An item's form says whether a separator and a duty follow its title ("-**:d").
    """
    m = re.match(r"\s*(#{1,6}|[-*•]|\d{1,2}[.)])\s*(\*\*|__)?", line)
    if m is None or (m.group(1) == "*" and line.lstrip().startswith("**")):
        return ""
    key = re.sub(r"\d+", "N", m.group(1)) + (m.group(2) or "")
    if key.startswith("#"):
        return key
    rest = line[m.end():]
    sep = re.search(r"[:：]|\s[-–—]\s", rest)
    return key + (":" if sep else "") + ("d" if sep and rest[sep.end():].strip(" *_") else "")


def _siblings(lines: list[str], found: list[tuple[str, str, str] | None]) -> list[int]:
    """Items of a list (or headings of one level) between roles, twice as many as they.

    "### Food Inventory" between "### Recipe Suggester" and "### Grocery List Builder" is a
    member of the same team.
    """
    groups: dict[tuple[str, int], list[int]] = {}
    runs = [0] * 7  # per heading level: a higher heading starts a new run of lower ones
    bullets = 0
    for i, line in enumerate(lines):
        key = _key(line)
        if key.startswith("#"):
            level = len(key.rstrip("*_"))
            runs[level + 1:] = [r + 1 for r in runs[level + 1:]]
            groups.setdefault((key, runs[level]), []).append(i)
        elif key:
            if i == 0 or _key(lines[i - 1]) != key:
                bullets += 1  # a list starts here (its items are consecutive lines)
            groups.setdefault((key, bullets), []).append(i)
    out = []
    for items in groups.values():
        roles = [i for i in items if found[i] is not None]
        # Only an item between two roles is one ("## Installation" after them is not); a list
        # item also needs a duty that reads like theirs ("Tracks ingredients").
        between = [i for i in items if roles and roles[0] < i < roles[-1] and found[i] is None]
        if len(roles) >= 2 and 2 * len(between) <= len(roles):
            heading = _key(lines[items[0]]).startswith("#")
            out += [i for i in between if heading or _does(lines[i])]
            # ... and the list's last item, when its duty reads like theirs ("- **Audit &
            # Reporting**: Generates audit reports" after three agents)
            last = items[-1]
            if not heading and last > roles[-1] and found[last] is None and _does(lines[last]):
                out.append(last)
    return out


_DUTY_VERB = re.compile(r"(?:[:：]|\s[-–—]\s)\s*(?:\*\*|__)?\s*[a-z]{3,}(?<!s)s\b")


_NON_LATIN_DUTY = re.compile(r"(?:[:：]|\s[-–—]\s)\s*(?:\*\*|__)?[^\n]*"
                             r"[\u3040-\u30ff\u4e00-\u9fff\u0400-\u04ff]{4}")


def _does(line: str) -> bool:
    """Whether a list item's duty opens with a third-person verb ("Generates ...").

    A duty in a script whose verbs that test cannot read ("- 品質をチェック") counts too.
    """
    return bool(_DUTY_VERB.search(line.lower()) or _NON_LATIN_DUTY.search(line))


_SIBLING = re.compile(r"^(?:\*\*|__)?(?P<title>[^*_:：\n()]{2,40}?)(?:\*\*|__)?\s*"
                      r"(?:[:：]|\s[-–—]\s|$)\s*(?P<duty>.*)$")


_COUNTED_LIST = re.compile(r"\b(\d{1,2}|two|three|four|five|six|seven|eight|nine|ten)\b[^:\n]{0,40}"
                           r"\b(?:agents|sub-?agents|roles|bots|assistants|specialists|members)"
                           r"\b[^:\n]{0,40}[:：]\s*$", re.IGNORECASE)


def _counted_items(lines: list[str], found: list[tuple[str, str, str] | None]) -> list[int]:
    """Items of a list under a line that counts them as agents ("6 specialized agents:").

    Every item is one, whatever its title ("- Visual: Image generation"), when the count and
    the items agree and some of them already read as roles.
    """
    out = []
    for i, line in enumerate(lines[:-1]):
        m = _COUNTED_LIST.search(line) or _COUNTED_HEADING.match(line)
        if m is None:
            continue
        items = _items_under(lines, i, nested=m.re is _COUNTED_HEADING)
        word = m.group(1).lower()
        if len(items) == (int(word) if word.isdigit() else _NUMBER_WORDS[word]) and any(
                found[j] is not None for j in items):
            out += [j for j in items if found[j] is None]
    return out


# A heading that counts the agents listed under it ("## Agents (6)").
_COUNTED_HEADING = re.compile(r"\s*#{1,6}\s*(?:agents|sub-?agents|roles|team members|members)"
                              r"\s*\((\d{1,2})\)\s*$", re.IGNORECASE)


def _items_under(lines: list[str], i: int, nested: bool) -> list[int]:
    """The list items right under line `i`, all of the first item's form.

    Under a heading (`nested`), each item may carry lines of its own ("- Goal: ...") before
    the next; the list ends at the next heading.
    """
    key, items = _key(lines[i + 1]), []
    for j in range(i + 1, len(lines)):
        k = _key(lines[j])
        if k == key and key:
            items.append(j)
        elif not nested or k.startswith("#") or not key:
            break
    return items


def _sibling_role(line: str, least: int = 2) -> tuple[str, str, str] | None:
    """(name, title, duty) of a list item or heading whose siblings name roles."""
    body = line[m.end():] if (m := _MARKS.match(line)) else line
    hit = _SIBLING.match(body.strip())
    if hit is None:
        return None
    title = hit.group("title").strip(" *_-")
    words = title_words(title)
    # One word is too little to tell a member from a step ("**Loop**", "### Installation").
    if not least <= len(words) <= 4 or any(is_filler(w) for w in words):
        return None
    return slug(words), title, hit.group("duty").strip(" *_")


# A table's column of duties, by its heading in any of the eight languages.
_DUTY_HEADING = re.compile(
    r"responsib|dut(?:y|ies)|task|purpose|function|what it does|зона ответственности|"
    r"обязанност|задач|функци|职责|责任|任务|役割|担当|責務|funci[oó]n|responsabilit|"
    r"r[oô]le\b|tarea|aufgabe|verantwort|fun[cç][aã]o|tarefa", re.IGNORECASE)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")


def _table_head(lines: list[str], i: int) -> bool:
    """Whether line `i` is a table's heading row ("| Team | Folder | Agents |" over "|---|")."""
    return (lines[i].lstrip().startswith("|") and i + 1 < len(lines)
            and _TABLE_RULE.match(lines[i + 1]) is not None)


# A table whose first column holds the agents ("| Agent | Rôle | ... |").
_AGENT_HEADING = re.compile(r"(?:agent(?:e|es|s)?|agent name|role|r[oô]le|rol|papel|"
                            r"エージェント|智能体|代理|агент|роль|角色)$", re.IGNORECASE)


def _agent_rows(lines: list[str], found: list[tuple[str, str, str] | None]) -> list[int]:
    """The rows of a table headed "Agent" that no other rule read as a role.

    "| **Research** | Recherche Web |" names the research agent: the heading says what the
    column holds, so a name the role words do not know still counts.
    """
    out: list[int] = []
    inside = False
    for i, line in enumerate(lines):
        if not line.lstrip().startswith("|"):
            inside = False
        elif _table_head(lines, i):
            first = line.strip().strip("|").split("|")[0].strip(" *_`")
            inside = _AGENT_HEADING.match(first) is not None
        elif inside and found[i] is None and not _TABLE_RULE.match(line):
            out.append(i)
    return out


def _row_role(line: str, duty_col: int | None) -> tuple[str, str, str] | None:
    """(name, title, duty) of an agent table's row from its first cell (ASCII, 1-3 words)."""
    cells = [c.strip(" *_`") for c in line.strip().strip("|").split("|")]
    title = re.sub(r"[^\w &/-]", " ", cells[0]).strip()
    words = title_words(title)
    if not title.isascii() or not 1 <= len(words) <= 3 or len(cells) < 2:
        return None
    duty = cells[duty_col] if duty_col and duty_col < len(cells) else cells[1]
    return slug(words), title, duty


def _duty_columns(lines: list[str]) -> list[int | None]:
    """Per line, the index of its table's duty column (None outside tables or without one).

    "| Agent | Responsibility | Tools | Does not do |": the duty is the second cell, not
    the last.
    """
    out: list[int | None] = []
    col: int | None = None
    for i, line in enumerate(lines):
        if not line.lstrip().startswith("|"):
            col = None
        elif _table_head(lines, i):
            heads = [c.strip(" *_`") for c in line.strip().strip("|").split("|")]
            col = next((k for k, h in enumerate(heads) if k and _DUTY_HEADING.search(h)),
                       None)
        out.append(col)
    return out


# Pictographs and their joiners ("**🕵️‍♂️ Risk Analyst:**", "| 🚀 Performance Agent |"): decoration
# around a title, never a part of it.
_PICTOGRAPHS = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]+ ?")


def _line_role(line: str, lang: str, duty_col: int | None = None
               ) -> tuple[str, str, str] | None:
    """(name, title, duty) of a line that names a role, else None."""
    line = _PICTOGRAPHS.sub("", line)
    if line.lstrip().startswith("|"):
        return _table_role(line, lang, duty_col)
    elif len(_ARROW.findall(line)) >= 2:  # "Researcher → Writer → Reviewer" is a chain
        return None
    else:
        marked = _MARKS.match(line)
        body = _SEQUENCE.sub(r"\1", line[marked.end():] if marked else line)
        if hit := _step_role(body) or (_subject_role(body) if lang in ("ja", "zh") else None):
            return hit
        m = (_FILE_COMMENT.match(body.strip()) or _BOLD.match(body.strip())
             or _HEADER.match(PLACEHOLDER.sub(" ", body).strip()) or _PAREN.match(body.strip()))
        if m:
            title, duty = m.group("title"), m.group("duty")
        # A title alone: bold, a heading, or a short item ("- validador", never
        # "- Devuelve retroalimentación al redactor").
        elif body.startswith(("**", "__")) or line.lstrip().startswith("#") or (
                marked and len(body.split()) <= 3):
            title, duty = PLACEHOLDER.sub(" ", body), ""
        else:
            return None
    title = title.strip(" *_-:：")
    title = title[m.end():] if (m := _MARKS.match(title)) else title  # "**1. Agente X**"
    title = _ARTICLE.sub("", title)  # "The Best Financial Analyst"
    if label := _AGENT_LABEL.match(title):  # "Agent 1 (Architect)": the role is in brackets
        words = title_words(label.group("role"))
        if label.group("role").isascii() and 1 <= len(words) <= 3:
            return slug(words), label.group("role"), duty.strip(" *_")
    gloss = _EN_AFTER.match(title)  # "景点搜索智能体 (Attraction Agent)": the English name
    if gloss and not gloss.group(1).isascii() and (en := _title_name(gloss.group(2), "en")):
        return en, gloss.group(2), duty.strip(" *_")
    title = _PERSONA.sub("", title)  # "UX Designer (Alice)": the role, not the persona's name
    if _FILE.match(title):  # "`planner.py` - plans the steps", "`rag.py` - RAG агент для ..."
        return _file_role(title, duty, lang)
    # "Trader Agent 综合", "Portfolio Manager 决策": an English title, then a gloss
    gloss = _GLOSS.match(title)
    name = _title_name(gloss.group(1), "en") if gloss else ""
    if gloss and name:
        title = gloss.group(1)
    else:
        name = _title_name(title, lang)
    if not name and _IS_AGENT.match(duty) and 1 <= len(title.split()) <= 4:
        # "Lead Capture: A persuasive agent designed to ...": the duty says it is an agent
        name = (slug(re.findall(r"[a-z][a-z0-9-]*", title.lower())) if title.isascii()
                else read_title(title).name)
    return (name, title, duty.strip(" *_")) if name else None


# "需求分析 → Requirements Analyst", "并行开发 → 3x Developer (parallel)": a step, then the role
# that takes it.
_STEP_ROLE = re.compile(r"^(?P<duty>[^→\n]{2,80}?)\s*(?:→|->|⟶|=>)\s*(?:\d+\s*[x×]\s*)?"
                        r"(?P<title>[A-Za-z][A-Za-z -]{1,40}?)\s*(?:[(（][^()（）\n]*[)）])?\s*$")


def _step_role(body: str) -> tuple[str, str, str] | None:
    m = _STEP_ROLE.match(body.strip().strip("*_"))
    name = _title_name(m.group("title"), "en") if m else ""
    return (name, m.group("title"), m.group("duty").strip(" *_")) if m and name else None


# "**EmployerAgent（企業AI）が要件をもとに求人票を生成**", "Planner Agent 负责拆分任务": an English
# title as the subject of a Japanese or Chinese duty.
_SUBJECT_ROLE = re.compile(r"^(?P<title>[A-Za-z][A-Za-z -]{1,40}?)"
                           r"(?:\s*/\s*[A-Za-z][A-Za-z -]{1,40})?"
                           r"\s*(?:[(（][^()（）\n]*[)）])?\s*"
                           r"(?:が|は|负责|負責)(?P<duty>[^\n]{2,200})$")


def _subject_role(body: str) -> tuple[str, str, str] | None:
    m = _SUBJECT_ROLE.match(body.strip().strip("*_").strip())
    name = _title_name(m.group("title"), "en") if m else ""
    return (name, m.group("title"), m.group("duty").strip(" *_")) if m and name else None


# "### Part I: Issue Solver Agent", "**Step 2: Writer**": the place in a sequence before a
# title (eight languages' words for part, step, phase and stage).
_SEQUENCE = re.compile(r"^(\s*(?:#{1,6}\s*)?(?:\*\*|__)?)\s*(?:part|step|phase|stage|etapa|fase|"
                       r"paso|passo|schritt|teil|[ée]tape|partie|шаг|этап|часть|фаза)\s+"
                       r"(?:\d{1,2}|[ivx]{1,4})\s*[:.)\-–—]\s*(?=\S)", re.IGNORECASE)


# A duty that opens by saying what agent it is ("An agent focused on ...", "Un agente ...").
# No role noun of its own: at most an adjective before the agent word ("A persuasive agent").
_IS_AGENT = re.compile(r"\s*(?:an?|one|un|una|uno|ein|eine|einen|une|um|uma)\s+"
                       r"(?:[a-z]+(?:ive|ous|ful|ent)\s+)?"
                       r"(?:agent|agente|agenten|bot|assistant|asistente|assistent|assistente)\b",
                       re.IGNORECASE)


def _table_role(line: str, lang: str, duty_col: int | None) -> tuple[str, str, str] | None:
    """(name, title, duty) of a table row: the first cell that names a role.

    "| Vigil | `risk-flagger` | Legal risk analysis |"; the duty from the duty column.
    """
    cells = [c.strip(" *_`") for c in line.strip().strip("|").split("|")]
    for k, cell in enumerate(cells[:-1]):
        title = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", cell).strip()
        name = _cell_name(title, lang) if title else ""
        if name:
            duty = cells[duty_col] if duty_col and k < duty_col < len(cells) else cells[-1]
            return name, title, duty
    # "| Chair | Creative Director |": a tier first, the role's short title last.
    last = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", cells[-1]).strip()
    if len(cells) >= 2 and 0 < len(last.split()) <= 4 and (name := _cell_name(last, lang)):
        return name, last, ""
    return None


_NATIVE_EN = re.compile(r"^(?P<native>.+?)[*_ ]*\s[-–—]\s[*_ ]*(?P<en>[A-Za-z][A-Za-z ]{2,40})$")


def _cell_name(title: str, lang: str) -> str:
    """A table cell's role: "Поисковик билетов - Flight Searcher" by its English half."""
    pair = _NATIVE_EN.match(title) if lang != "en" else None
    if pair and (name := _title_name(pair.group("en").strip(), "en")):
        return name
    return _title_name(title, lang)


# "├── transcription.py   # Whisper ASR agent": a file tree's line, its comment the duty.
_FILE_COMMENT = re.compile(r"^(?P<title>[A-Za-z][\w-]{1,40}\.(?:py|js|ts|ipynb|go|rs|java|rb))"
                           r"\s+#\s*(?P<duty>\S.*)$")
_FILE = re.compile(r"^(?P<stem>[A-Za-z][\w -]{1,40})\.(?:py|js|ts|ipynb|go|rs|java|rb)$")
# Words glued to a role noun in a file name ("plannerllm", "table_agent").
_STEM_SUFFIX = re.compile(r"(?<=[a-z]{4})(?:llm|agent|bot)$")


def _file_role(title: str, duty: str, lang: str) -> tuple[str, str, str] | None:
    """The role of a source file in a list: named by the file, else by its duty's first words.

    "PlannerLLM.py" names a planner; "rag.py - RAG агент для поиска" the agent its line names.
    """
    stem = re.split(r"[\s_-]+", _FILE.match(title).group("stem").lower())  # type: ignore[union-attr]
    words = [_STEM_SUFFIX.sub("", w) for w in stem if w not in ("llm", "main", "app", "utils")]
    name = _title_name(" ".join(words), lang) if words else ""
    if name:
        return name, " ".join(words), duty.strip(" *_")
    stop = {fold(normalize(w)) for w in table(lang, "language").get("stopwords", ())}
    head = []
    for w in duty.split()[:4]:
        if fold(normalize(w)) in stop or not w[0].isalpha():
            break
        head.append(w)
    reading = read_title(" ".join(head))
    if head and reading.names_agent:
        return reading.name, " ".join(head), duty.strip(" *_")
    return None


_ARTICLE = re.compile(r"^(?:the|a|an)\s+(?=\S+\s)", re.IGNORECASE)
# An agent numbered or lettered, its role in brackets: "Agent 1 (Architect)", "Agent B (Security)".
_AGENT_LABEL = re.compile(r"^(?:agent|agente|bot|агент)\s*(?:\d{1,2}|[a-z])\s*"
                          r"[(（](?P<role>[^()（）]{2,40})[)）]$", re.IGNORECASE)
_EN_AFTER = re.compile(r"^(.+?)\s*[(（]\s*([A-Za-z][A-Za-z -]{2,40}?)\s*[)）]$")
_PERSONA = re.compile(r"\s*[(（][^()（）]{1,30}[)）]\s*$")
# A Latin title followed by a short gloss in Chinese or Japanese.
_GLOSS = re.compile(r"^([A-Za-z][A-Za-z -]{2,40}?)\s+([\u3040-\u30ff\u3400-\u9fff][^:：]{0,20})$")


# A Chinese or Japanese title is a few characters; a clause mark or a long run is prose.
_CJK_SENTENCE = re.compile(r"[，。；！？]|[\u3040-\u30ff\u3400-\u9fff][*_ ]*[,;!?]"
                           r"|[\u3040-\u30ff\u3400-\u9fff]{13}")


# Job titles whose head noun alone names no role ("owner" of a record, "member" of a list).
_JOB_TITLES = frozenset({"product owner", "process owner", "business owner", "team member",
                         "staff member", "board member"})


def _title_name(title: str, lang: str) -> str:
    """The ASCII name of a title that names a role, "" when it names none."""
    if len(title) > 60 or len(title.split()) > 6 or _CJK_SENTENCE.search(title):
        return ""
    words = re.findall(r"[a-z][a-z0-9-]*", AMPERSAND.sub(r"\1n\2", title.lower()))
    # "IT Setup Coordinator": a title opening with "it" and no other function word.
    acronym = len(words) >= 3 and words[0] == "it"
    english = (title.isascii() and 1 <= len(words) <= 5
               and (is_role_word(words[-1]) or " ".join(words[-2:]) in _JOB_TITLES)
               and words[-1] not in PLURAL and not _things(words[-1])
               and not any(is_filler(w) and w != "of" for w in words[acronym:]))
    # "Manager Agent" in a Chinese README is a manager, "Marketing Director" in a German one a
    # director: an English title keeps its English name ("Reservas Agent" is read as Spanish)
    if lang == "en" or (english and (lang in ("zh", "ja") or _english_job(words))):
        return slug(title_words(title)) if english else ""
    latin = re.findall(r"[A-Za-z][A-Za-z-]+", title)
    if lang not in ("zh", "ja") and len(latin) == 1 and not title.isascii() and is_role_word(
            latin[0].lower()):
        # "Управляет ими **Supervisor**, который решает": the one English role word names it
        return slug(title_words(latin[0]))
    reading = read_title(title)
    if not reading.words:
        return ""
    if reading.team:
        return ""
    if reading.role or (reading.names_agent and not english):
        return reading.name
    return slug(title_words(title)) if english else ""


# English job nouns a title in a Latin-script README of another language keeps ("Marketing
# Director", "Brand Guardian"); "Agente Investigador" or "Reservas Agent" read in that language.
_EN_JOBS = frozenset("director manager guardian lead officer designer engineer developer "
                     "strategist analyst specialist architect planner writer editor".split())
_NOT_ENGLISH = frozenset("agente agentes agenten agents de del da do dos das des der die le la "
                         "el los las".split())


def _english_job(words: list[str]) -> bool:
    return words[-1] in _EN_JOBS and not set(words) & _NOT_ENGLISH


def _things(word: str) -> bool:
    """A role noun in the plural ends a title of work on things ("Score Leads"), not a role."""
    return word.endswith("s") and word not in ROLE_WORDS and word[:-1] in ROLE_WORDS


def _duty_below(lines: list[str], i: int, lang: str) -> str:
    """The duty written on the lines under a heading, up to the next role or heading."""
    parts: list[str] = []
    for ln in lines[i + 1:i + 3]:
        if ln.lstrip().startswith(("#", "|")) or _line_role(ln, lang) is not None:
            break
        body = ln[m.end():] if (m := _MARKS.match(ln)) else ln
        labelled = _LABEL.sub("", body.strip(), count=1).strip(" *_")
        if labelled != body.strip(" *_") and not parts:  # "**Aufgabe:** ..." is the duty
            return labelled.rstrip(" .;")
        if labelled:
            parts.append(labelled.rstrip(" .;"))
    return "; ".join(parts)


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0][:240].strip()


_GROUP = re.compile(r"[(（](?P<p>[^()（）\n]{3,120})[)）]"
                    r"|[:：]\s*(?P<c>[^.!?;\n。！？；:：]{3,160})")
_ITEM_SPLIT = re.compile(r"\s*(?:[,，、;/]|\s(?:and|or|y|e|et|ou|o|und|oder|и|или)\s)\s*")
def chain_roles(lines: list[str], offset: list[int], lang: str) -> list[Role]:
    """"(Product Manager → Tech Lead → Developer → QA)": a chain of arrows between roles.

    Every item counts when most of them name a role; "error → cause → fix" names none.
    """
    out = []
    for i, line in enumerate(lines):
        if len(_ARROW.findall(line)) < 2:
            continue
        items = [_chain_item(it) for it in _ARROW.split(line)]
        # "Agente Buscador → Agente Redator → Resposta final": where the chain ends is no agent
        items = [it for it in items if not _CHAIN_END.fullmatch(it.lower())]
        names = [_title_name(it, lang) or _chain_name(it) for it in items]
        named = sum(bool(_title_name(it, lang)) for it in items)
        if len(items) > 8 or any(not n or len(it.split()) > 4 for n, it in zip(names, items,
                                                                               strict=True)):
            continue
        if named * 2 > len(items):
            out += [Role(n, it, "", "chain", offset[i] + k)
                    for k, (n, it) in enumerate(zip(names, items, strict=True))]
    return out


_WALL = "│┃║"


def _box_cells(line: str) -> list[tuple[int, int, str]]:
    """The text between two walls of a box-drawn line: (left wall, right wall, text)."""
    walls = [k for k, ch in enumerate(line) if ch in _WALL]
    return [(a, b, line[a + 1:b].strip()) for a, b in pairwise(walls)
            if re.search(r"\w", line[a + 1:b])]


def box_roles(raw: str, split: str, lang: str) -> list[Role]:
    """"│ Flight │" over "│ Agent  │": the boxes of a diagram drawn with box characters.

    A box's lines share its walls' columns; their words, joined, are its title. Two or more
    boxes that name roles name the team ("Tools" or "User" boxes name none).
    """
    open_: dict[tuple[int, int], list[str]] = {}
    titles: list[str] = []
    for line in raw.split("\n"):
        cells = {(a, b): text for a, b, text in _box_cells(line)}
        for key in [k for k in open_ if k not in cells]:
            titles.append(" ".join(open_.pop(key)))
        for key, text in cells.items():
            open_.setdefault(key, []).append(text)
    titles += [" ".join(words) for words in open_.values()]
    out = []
    for title in titles:
        item = _chain_item(title)
        if name := _title_name(item, lang):
            first = item.split()[0].lower() if item.split() else ""
            # the whole title, "Travel Coordinator (Root Agent)": what it holds is this role
            out.append(Role(name, title.lower(), "", "box", max(0, split.lower().find(first))))
    return out if len(out) >= 2 else []


_EDGE = re.compile(r"(?:\*\*|__)([^*_\n]{2,40})(?:\*\*|__)\s*(?:→|->|⟶|=>)\s*"
                   r"(?:\*\*|__)([^*_\n]{2,40})(?:\*\*|__)\s*[:：]?\s*(.*)$")
_TERMINALS = frozenset({"start", "end", "__start__", "__end__", "user", "human", "done"})


def edge_roles(lines: list[str], offset: list[int], lang: str) -> list[Role]:
    """"2. **Supervisor** → **Booking Node**: if the user asks to book": a graph's edges.

    Two or more lines that each join two bold nodes with an arrow name the nodes as roles
    (START and END are no agents); an edge out of START gives its target the duty after it.
    """
    edges = [(i, m) for i, line in enumerate(lines) if (m := _EDGE.search(line))]
    if len(edges) < 2:
        return []
    out: dict[str, Role] = {}
    for i, m in edges:
        start = m.group(1).strip().lower() in _TERMINALS
        for k, node in enumerate((m.group(1).strip(), m.group(2).strip())):
            name = _title_name(node, lang) or _chain_name(node)
            if not name or node.lower() in _TERMINALS or len(node.split()) > 4:
                continue
            duty = m.group(3).strip(" .") if k == 1 and start else ""
            old = out.get(name)
            if old is None or (duty and not old.duty):
                out[name] = Role(name, node, duty, "chain", old.position if old else offset[i] + k)
    return list(out.values()) if len(out) >= 2 else []


# A branch of a drawn tree ("├→ 闲聊 → 友好回复") or a condition ("если ... → отправить к ...",
# "If you're available → asks you to confirm"): each such line is one route.
_BRANCH = re.compile(r"^\W*?(?:[├└]\s*[─-]*\s*(?:→|->|⟶|=>)|"
                     r"(?:if|when|unless|si|wenn|falls|se|caso|quando|если|когда|иначе)\b"
                     r"[^→\n]{0,80}(?:→|->|⟶|=>)|(?:如果|若|もし|否则)[^→\n]{0,40}(?:→|->|⟶|=>))",
                     re.I)


def fans_out(lines: list[str]) -> bool:
    """Whether a graph's edges leave one node for two or more others.

    "**A** → **B**", "**A** → **C**": a router's branches, not a chain; so are two or more
    lines that each branch off a tree or open with a condition before their arrow.
    """
    if sum(bool(_BRANCH.match(line)) for line in lines) >= 2:
        return True
    targets: dict[str, set[str]] = {}
    for line in lines:
        if m := _EDGE.search(line):
            targets.setdefault(m.group(1).strip().lower(), set()).add(m.group(2).strip().lower())
    return any(len(t - _TERMINALS) >= 2 for s, t in targets.items() if s not in _TERMINALS)


_CHAIN_END = re.compile(
    r"(?:the )?(?:final )?(?:answer|response|output|result|reply|user|end|done)s?(?: final)?|"
    r"(?:resposta|respuesta|réponse|reponse|antwort|ответ|resultado|résultat)\b.*|"
    r"(?:最终)?(?:答案|回答|输出|结果|用户)|(?:最終)?(?:回答|出力|結果|ユーザー)")


def _chain_item(item: str) -> str:
    """An item of a chain without the text around the chain: "A team (Product Manager"."""
    item = re.sub(r"\([^()]*\)", " ", item)
    item = item.rsplit("(", 1)[-1].split(")", 1)[0].rsplit(": ", 1)[-1]
    return re.sub(r"[*_`]", " ", item).strip(" -:.")


def _chain_name(item: str) -> str:
    words = re.findall(r"[a-z][a-z0-9]*", item.lower())
    return slug(words) if words and len(item) <= 30 else ""


_BOLD_SPAN = re.compile(r"(?:\*\*|__)([^*_\n]{2,40})(?:\*\*|__)")


def bold_roles(split: str, lang: str) -> list[Role]:
    """Agents a request in another language names in bold prose ("l'**Agent RAG**")."""
    if lang == "en":
        return []
    out = []
    for m in _BOLD_SPAN.finditer(split):
        reading = read_title(m.group(1))
        if reading.agent and reading.words:
            out.append(Role(reading.name, m.group(1).strip(), "", "bold", m.start()))
    return out


# English: a list in parentheses or after a colon that follows a word for agents.
_EN_GROUP = re.compile(r"\b(?:agents|sub-?agents|personas|bots|assistants|roles|members|crew|"
                       r"workers|specialists)\b"
                       r"[^.;:()\n]{0,40}?(?:[(]\s*(?P<p>[^()\n]{3,120})[)]"
                       r"|:\s*(?P<c>[^.!?;:\n]{3,160})"
                       r"|\s[\u2013\u2014]\s*(?P<d>[^\u2013\u2014.;:()\n]{3,160}?)\s*"
                       r"(?:[\u2013\u2014]|(?=[.;\n]|$))"
                       r"|,\s*(?P<a>(?:an?|the)\s[^.;:()\n]{3,120}?)(?=,|\.|;|$|\s(?:that|who|which)\b))",
                       re.IGNORECASE | re.MULTILINE)
_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_EN_SPLIT = re.compile(r"\s*(?:,|\+|&|/|\s(?:and|or)\s)\s*(?:and\s+|or\s+)?")
_ARTICLE_ITEM = re.compile(r"^(?:an?|the)\s+(?=\S)", re.IGNORECASE)
_EXAMPLE = re.compile(r"^(?:e\.g\.|i\.e\.|such as|like|namely|including)\s*", re.IGNORECASE)


def english_enumerated_roles(raw: str) -> list[Role]:
    """Agents listed after a word for agents.

    "Two agents (Scientist and Philosopher)", "Sub-agents: Collector + Analyst", "four
    specialist agents — Triage, Diagnosis and Remediation —".

    Every item is a capitalised name or a role noun of one to three words; "agents (LLM-based,
    tool-using)" names none.
    """
    out = []
    for m in _EN_GROUP.finditer(raw):
        body = _EXAMPLE.sub("", (m.group("p") or m.group("c") or m.group("d")
                                 or m.group("a")).strip())
        items = [i.strip(" *_`") for i in _EN_SPLIT.split(body)]
        if m.group("p") and _counts_items(raw[max(0, m.start() - 30):m.start() + len(
                m.group(0)) - len(m.group("p")) - 1], len(items)):
            # "3 worker agents (search, code, math)": the count says each item is an agent
            if all(_named_item(i) or re.fullmatch(r"[a-z][a-z-]*(?: [a-z][a-z-]*)?", i)
                   for i in items):
                out += [Role(slug(title_words(i)), i.lower(), "", "list", m.start() + k)
                        for k, i in enumerate(items)]
            continue
        # "personas (a skeptic, an optimist and a realist)": an article marks each a member.
        if len(items) >= 2 and all(_ARTICLE_ITEM.match(i) for i in items):
            items = [_ARTICLE_ITEM.sub("", i) for i in items]
            if all(re.fullmatch(r"[a-z][a-z-]*(?: [a-z][a-z-]*)?", i.lower()) for i in items):
                out += [Role(slug(title_words(i)), i.lower(), "", "list", m.start() + k)
                        for k, i in enumerate(items)]
            continue
        if not 2 <= len(items) <= 8 or not all(_named_item(i) for i in items):
            continue
        lead = _LEAD_BEFORE.search(raw, max(0, m.start() - 30), m.start())
        if lead and is_role_word(lead.group(1)) and lead.group(1).lower() not in BARE:
            items.insert(0, lead.group(1))  # "Supervisor + Sub-agents: Collector + Analyst"
        out += [Role(slug(title_words(i)), i.lower(), "", "list", m.start() + k)
                for k, i in enumerate(items)]
    return out


_LEAD_BEFORE = re.compile(r"\b([A-Za-z][a-z-]+)\s*(?:\+|&|\band\b|\bwith\b)\s*$")


_WORD_RUN = r"[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2}"
# "Researcher, Writer, and Editor agents": names in series before a plural word for agents.
_SERIES_AGENTS = re.compile(rf"((?:{_WORD_RUN},\s+)+{_WORD_RUN},?\s+(?:and|or|&)\s+{_WORD_RUN})"
                            r"\s+(?:agents|bots|assistants)\b")
# "Agent 1: Researcher - gathers sources", "Agent B (Critic) critiques it".
_NUMBERED_AGENT = re.compile(r"\bAgent\s+(?:\d{1,2}|[A-Z])\b\s*(?:[:(–—-]\s*)(?:[Tt]he\s+)?"
                             r"([A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,2})\s*\)?\s*[:–—-]?\s*"
                             r"([^.;\n]{0,160}?)(?=[.;\n]|,?\s+(?:and\s+)?Agent\s+(?:\d|[A-Z])\b|$)")
# "Planner (breaks down tasks), Coder (writes code)": titles with their duty in parentheses.
_TITLE_DUTY = re.compile(r"\b([A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,2})\s*\(([^()\n]{3,100})\)")


# "Architecture、Coding、Testing、DevOpsエージェント", "Planner、Coder和Reviewer智能体": Latin names
# in series (CJK or Latin commas) before a CJK word for agents.
_SERIES_CJK = re.compile(rf"((?:{_WORD_RUN}\s*[、，,]\s*)+{_WORD_RUN})\s*"
                         r"(?:と|和|及び|および|以及)?\s*(?:の)?\s*(?:エージェント|智能体|代理)")


def cjk_series_roles(raw: str) -> list[Role]:
    """Latin role names in series before a Chinese or Japanese word for agents."""
    out = []
    for m in _SERIES_CJK.finditer(raw):
        items = [i.strip() for i in re.split(r"\s*[、，,]\s*|\s*(?:と|和|及び|および|以及)\s*",
                                             m.group(1)) if i.strip()]
        if len(items) >= 2 and all(_named_item(i) for i in items):
            out += [Role(slug(title_words(i)), i.lower(), "", "list", m.start() + k)
                    for k, i in enumerate(items)]
    return out


# "agents for orders, returns and billing": one agent per area of work.
# "agents for triaging, tracking, login management, and returns": areas of one to three words.
_AREA = r"[a-z][a-z-]*(?: [a-z][a-z-]*){0,2}"
_AGENTS_FOR = re.compile(r"\bagents (?:for|handling|covering|responsible for) "
                         rf"((?:{_AREA}, )+{_AREA},? (?:and|or) [a-z][a-z-]*)\b")


def inline_roles(raw: str) -> list[Role]:
    """Roles written inline in English prose.

    Names in series before "agents", numbered agents with a title, and two or more "Title
    (duty)" in one sentence.
    """
    out = []
    for m in _SERIES_AGENTS.finditer(raw):
        items = [i.strip() for i in _EN_SPLIT.split(m.group(1))]
        items[0] = " ".join(_trailing_name(items[0].split()))
        if len(items) >= 3 and all(_named_item(i) for i in items):
            out += [Role(slug(title_words(i)), i.lower(), "", "list", m.start() + k)
                    for k, i in enumerate(items)]
    for m in _AGENTS_FOR.finditer(raw):
        items = [i.strip() for i in _EN_SPLIT.split(m.group(1))]
        if all(i and not any(is_filler(w) for w in i.split()) for i in items):
            out += [Role(slug(i.split()), f"{i} agent", "", "list", m.start() + k)
                    for k, i in enumerate(items)]
    for m in _NUMBERED_AGENT.finditer(raw):
        title = m.group(1)
        if _named_item(title):
            out.append(Role(slug(title_words(title)), title.lower(),
                            m.group(2).strip(" ,").lower(), "list", m.start()))
    for sentence in re.finditer(r"[^.!?\n]+", raw):
        hits = [h for h in _TITLE_DUTY.finditer(sentence.group(0))
                if is_role_word(h.group(1).split()[-1]) and not h.group(2)[:1].isupper()]
        if len(hits) >= 2:
            out += [Role(slug(title_words(h.group(1))), h.group(1).lower(), h.group(2).lower(),
                         "list", sentence.start() + h.start()) for h in hits]
    return out


def _trailing_name(words: list[str]) -> list[str]:
    """The words that end a run and name someone: "We have Researcher" is "Researcher"."""
    kept: list[str] = []
    for w in reversed(words):
        if not (w[:1].isupper() or is_role_word(w.lower())) or is_filler(w.lower()):
            break
        kept.insert(0, w)
    return kept


def _counts_items(before: str, n: int) -> bool:
    """Whether the words before a list count exactly its `n` items ("3 worker agents")."""
    m = re.search(r"\b(\d|two|three|four|five|six|seven|eight)\b(?:\s+[\w-]+){1,3}\s*[(]?\s*$",
                  before, re.IGNORECASE)
    if m is None:
        return False
    word = m.group(1).lower()
    return (int(word) if word.isdigit() else _NUMBER_WORDS[word]) == n


def _named_item(item: str) -> bool:
    words = item.split()
    if not 1 <= len(words) <= 3 or not item.isascii() or not re.fullmatch(r"[A-Za-z][\w -]*", item):
        return False
    lowered = [w.lower() for w in words]
    if any(is_filler(w) for w in lowered) or re.search(r"-(?:based|powered|driven)$", lowered[-1]):
        return False
    return item[0].isupper() or is_role_word(lowered[-1])


def enumerated_roles(text: Text, lang: str) -> list[Role]:
    """"agentes especializados (Suporte, Vendas e Gerente)": a list after a word for agents."""
    if lang == "en":
        return []
    out = []
    for m in _GROUP.finditer(text.fold):
        if m.group("c") and _labelled(text.fold[max(0, m.start() - 24):m.start()]):
            continue  # "**Роль**: главный координатор и маршрутизатор": one role's card
        items = [i.strip(" *_-") for i in _ITEM_SPLIT.split(m.group("p") or m.group("c"))]
        if not 2 <= len(items) <= 8 or any(not i or len(i.split()) > 3 for i in items):
            continue
        readings = [read_title(i) for i in items]
        before = read_title(text.fold[max(0, m.start() - 60):m.start()])
        if not all(r.words for r in readings) or not (before.agents or all(r.names_agent
                                                                    for r in readings)):
            continue
        out += [Role(r.name, i, "", "list", m.start() + k) for k, (r, i) in
                enumerate(zip(readings, items, strict=True))]
    return out



# "l'Agent Réception", "el Agente de Reservas", "o Agente Financeiro": a capitalised word
# for "agent" and a capitalised name after it, in the languages that put the head first.
_HEAD_FIRST = ("fr", "es", "pt")
_LINK = r"(?:(?:de la|de|del|du|des|da|do|das|dos)\s+|d['\u2019])?"
_NAME = r"[A-ZÀ-ÖØ-Þ][^\W\d_]+(?:[ -][A-ZÀ-ÖØ-Þ][^\W\d_]+)?"


@cache
def _titled_agent(lang: str) -> re.Pattern[str] | None:
    words = sorted({t for _, t in terms("analysis", "agent").get("agent", ()) if _ == lang},
                   key=lambda t: (-len(t), t))
    if not words:
        return None
    heads = "|".join(re.escape(w[:1].upper() + w[1:]) for w in words)
    return re.compile(rf"(?<![^\W\d_])(?:{heads})\s+{_LINK}{_NAME}")


def titled_agent_roles(raw: str, lang: str) -> list[Role]:
    """Agents named "Agent <Name>" in French, Spanish or Portuguese, each with its clause."""
    pat = _titled_agent(lang) if lang in _HEAD_FIRST else None
    if pat is None:
        return []
    out, found = [], list(pat.finditer(raw))
    for m, nxt in zip(found, [*found[1:], None], strict=False):
        reading = read_title(m.group(0))
        if reading.words and reading.agent and not reading.team:
            rest = raw[m.end():nxt.start() if nxt else len(raw)]
            duty = _CLAUSE_END.split(rest, maxsplit=1)[0].strip(" -—")
            out.append(Role(reading.name, normalize(m.group(0)), normalize(duty)[:200],
                            "clause", m.start()))
    return out


_CLAUSE_END = re.compile(r"[,;.!?()\n:]")


@cache
def _label_terms() -> re.Pattern[str] | None:
    return compile_terms(t for _, t in terms("analysis", "duty").get("label", ()))


def _labelled(before: str) -> bool:
    """Whether the words before a colon are a field label of a role's card ("**Role**")."""
    words = re.findall(r"[^\W\d_]+", before)
    pat = _label_terms()
    return pat is not None and any(pat.fullmatch(" ".join(words[-k:])) is not None
                                   for k in (1, 2) if len(words) >= k)


_CARD_END = re.compile(r"[.!?;\n。！？；]")


def card_spans(folded: str) -> list[tuple[int, int]]:
    """Spans of a role card's fields ("**Role**: main coordinator and task router.").

    The text after a field label up to the sentence's end describes that card's role.
    """
    out = []
    for m in re.finditer(r"[:：]", folded):
        if _labelled(folded[max(0, m.start() - 24):m.start()]):
            end = _CARD_END.search(folded, m.end())
            out.append((m.end(), end.start() if end else len(folded)))
    return out
