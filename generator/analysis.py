"""Request analysis: sentences, roles with their duty clauses, stage order, counts, cues.

The backbone every later decision reads. Roles are found by an open rule (list headers such as
"Research Analyst: gathers news", agentive nouns after an article, "<noun> agent") and, for
every language, by the role nouns of templates/lang/<code>/analysis.yaml. Words inside a
role's name are masked before the control-flow cues are matched, so "Strategy Planner Agent"
never reads as a planning cue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from a4a.generator.domains import domain_hits
from a4a.generator.naming import read_title
from a4a.generator.text import TermIndex, Text, fold, normalize, table
from a4a.runtime import knowledge

MAX_ROLES = 8
# Nouns that name an agent even without an agentive suffix.
_ROLE_WORDS = frozenset(
    "agent agents assistant bot expert specialist analyst advisor adviser editor critic judge "
    "guide clerk coach tutor mentor chef ceo cto cfo coo manager developer engineer designer "
    "architect scientist strategist auditor proofreader copywriter curator concierge secretary "
    "moderator facilitator officer proposer verifier validator triager liaison scout "
    "philosopher economist historian librarian technician physician consultant accountant "
    "participant representative rep lead pro con opponent proponent referee host "
    "psychologist therapist nutritionist journalist novelist artist".split())
# Words with an agentive ending that are not agents (or not agents of the system).
_NOT_ROLES = frozenset(
    "user users customer customers order orders number paper other after under water letter "
    "member owner server computer folder filter chapter matter power layer rather whether "
    "either never ever over later answer offer manner error color colour vendor sector factor "
    "door floor minor major senior junior prior better faster summer winter center centre "
    "border corner river weather shelter character register trigger buffer header footer "
    "cluster parameter barrier banner poster sticker container browser reminder master cancer "
    "partner provider supplier seller buyer tenant restaurant relevant important significant "
    "constant instant variant plant grant want elephant merchant applicant median guardian "
    "christian italian brazilian canadian australian indian asian boolean meridian mirror "
    "motor tensor vector cursor sensor visitor investor ledger dinner super proper upper lower "
    "cover tower flower player timer speaker founder newsletter twitter docker pointer marker "
    "tier cheaper deeper together further whatever however another consider wonder remember "
    "enter deliver discover gather render transfer prefer refer suffer alter latter former "
    "winner printer calendar doctor patient client student person people human "
    "humans team teams crew employee employees candidate candidates author authors reader "
    "readers viewer viewers traveler traveller travelers shopper shoppers subscriber "
    "subscribers caller callers sender recipient requester requestor borrower lender "
    "best first second third final same single simple many several each every all some "
    "flow workflow system framework process project example tool tools model llm api "
    "november october september december winter quarter dollar euro calculator scheduler "
    "tracker planner orchestrator coordinator".split()) - frozenset(
    "scheduler tracker planner orchestrator coordinator".split())
_ADJECTIVES = frozenset(
    "the a an one each best staff senior junior private lead chief head principal top expert "
    "experienced seasoned skilled dedicated specialized specialised ai llm smart helpful "
    "friendly professional main final virtual digital personal new another second third "
    "first other separate single simple multi central general overall".split())
_AGENTIVE = re.compile(r"[a-z]{3,}(?:er|or|ist|ant|ian)s?$")
_BULLET = re.compile(r"^\s*(?:[-*•●>]|\d{1,2}[.)、]|#{1,4})?\s*")
_MARKS = re.compile(r"^\s*(?:(?:[-•●>├└│─┬┌]+|\*(?!\*)|\d{1,2}[.)、]|#{1,6})\s*){1,3}")
_HEADER = re.compile(r"^(?P<title>[^:：\n]{2,60}?)\s*(?:[:：]|\s[-–—→]\s|\s?->\s)\s*"
                     r"(?P<duty>.*)$")
_PAREN = re.compile(r"^(?P<title>[^()（）\n]{2,60}?)\s*[(（](?P<duty>[^()（）]{2,200})[)）]\s*$")
# A label before a duty on the line under a heading ("**Aufgabe:** ...", "But :").
_LABEL = re.compile(r"^(?:\*\*|__)?[^\W\d_][^*:：\n]{0,20}?(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*")
_BOLD = re.compile(r"^(?:\*\*|__)(?P<title>[^*_\n]{2,60}?)(?:\*\*|__)\s*[:：]?\s*(?P<duty>.*)$")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")
# Words before a role noun that describe the system or a choice, not a member of the team.
_DESCRIBES = re.compile(r"\b(?:as|is|be|becomes?|acts? as|like|appropriate|right|relevant|"
                        r"correct|specific|next|proper|suitable|respective)\s+(?:an?\s+|the\s+)?$")
_PLACEHOLDER = re.compile(r"\{[^}]*\}|\*\*|__|`")
_CLAUSE_SPLIT = re.compile(r",\s*(?:and\s+|then\s+)?(?=(?:a|an|the|one)\s)|;\s*|\.\s+|\band\s+"
                           r"(?=(?:a|an|the)\s)")
_AGENT_NOUN = re.compile(r"\b((?:[a-z][a-z-]*\s+){1,3})(agent|assistant|bot)\b")
_FOLLOWERS = frozenset("who that which to will should must can then and or , . ; : agent "
                       "agents is are also first takes uses".split())
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "a pair of": 2, "a couple of": 2, "several": 3}
_NUM = r"(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|a pair of|a couple of)"
_COUNT = re.compile(rf"\b{_NUM}\s+(?:[a-z-]+\s+){{0,2}}?"
                    r"([a-z]+?(?:ers|ors|ists|ants|ges|ts|es|s))\b")
_CAP = re.compile(rf"\b(?:at most|up to|max(?:imum)?(?: of)?|no more than)\s+{_NUM}\s+"
                  r"(retries|iterations|rounds|attempts|times|revisions|passes|loops|turns)\b")
_TIMES = re.compile(rf"\b{_NUM}\s+times\b")


@dataclass(frozen=True)
class Role:
    """A role the request names: an ASCII slug, the words as written and its duty clause."""

    name: str
    title: str
    duty: str
    source: str  # header | clause | agent_noun | lexicon
    position: int


@dataclass(frozen=True)
class Cue:
    """One control-flow cue found in the request, with the pattern it supports."""

    pattern: str
    phrase: str
    weight: float


@dataclass(frozen=True)
class RequestAnalysis:
    """What the request says, with the evidence for each reading."""

    lang: str
    sentences: tuple[str, ...]
    roles: tuple[Role, ...]
    steps: tuple[str, ...]
    counts: dict[str, int] = field(default_factory=dict)
    caps: dict[str, int] = field(default_factory=dict)
    cues: tuple[Cue, ...] = ()
    masked: str = ""
    not_understood: tuple[str, ...] = ()

    def scores(self) -> dict[str, float]:
        """Summed cue weight per pattern."""
        out: dict[str, float] = {}
        for c in self.cues:
            out[c.pattern] = round(out.get(c.pattern, 0.0) + c.weight, 2)
        return out


def _num(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS.get(word, 0)


def is_role_word(word: str) -> bool:
    """Whether `word` names an agent (a role noun or an agentive noun)."""
    w = word.lower()
    if w in _ROLE_WORDS or w.rstrip("s") in _ROLE_WORDS:
        return True
    return bool(_AGENTIVE.fullmatch(w)) and w not in _NOT_ROLES and w.rstrip("s") not in _NOT_ROLES


def slug(words: list[str]) -> str:
    """An ASCII snake_case name from words (at most the last three)."""
    ascii_words = [re.sub(r"[^a-z0-9]+", "", w.lower()) for w in words]
    kept = [w for w in ascii_words if w][-3:]
    return "_".join(kept)[:40]


def _title_words(title: str) -> list[str]:
    words = re.findall(r"[a-z][a-z0-9-]*", _PLACEHOLDER.sub(" ", title.lower()))
    while words and words[0] in _ADJECTIVES:
        words = words[1:]
    if len(words) > 1 and words[-1] in ("agent", "agents"):
        words = words[:-1]
    return [w.rstrip("s") if w.endswith("ers") or w.endswith("ists") else w for w in words]


def _header_roles(lines: list[str], offset: list[int], lang: str) -> list[Role]:
    """Roles of list items, headings and table rows.

    "Title: duty", "Title (duty)", a heading with the duty on the lines under it,
    "| Title | ... | duty |".
    """
    out = []
    for i, line in enumerate(lines):
        found = _line_role(line, lang)
        if found is None:
            continue
        name, title, duty = found
        duty = duty or _duty_below(lines, i, lang)
        out.append(Role(name, title, _first_sentence(duty), "header", offset[i]))
    return out


def _line_role(line: str, lang: str) -> tuple[str, str, str] | None:
    """(name, title, duty) of a line that names a role, else None."""
    if line.lstrip().startswith("|"):
        cells = [c.strip(" *_`") for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0]:
            return None
        title, duty = cells[0], cells[-1]
    else:
        marked = _MARKS.match(line)
        body = line[marked.end():] if marked else line
        m = (_BOLD.match(body.strip()) or _HEADER.match(_PLACEHOLDER.sub(" ", body).strip())
             or _PAREN.match(body.strip()))
        if m:
            title, duty = m.group("title"), m.group("duty")
        elif marked or body.startswith(("**", "__")):
            title, duty = _PLACEHOLDER.sub(" ", body), ""
        else:
            return None
    title = title.strip(" *_-:：")
    name = _title_name(title, lang)
    return (name, title, duty.strip(" *_")) if name else None


def _title_name(title: str, lang: str) -> str:
    """The ASCII name of a title that names a role, "" when it names none."""
    if len(title) > 60 or len(title.split()) > 6:
        return ""
    words = re.findall(r"[a-z][a-z0-9-]*", title.lower())
    english = (title.isascii() and 1 <= len(words) <= 5 and is_role_word(words[-1])
               and words[-1] not in _PLURAL and not any(is_filler(w) and w != "of" for w in words))
    if lang == "en":
        return slug(_title_words(title)) if english else ""
    reading = read_title(title)
    if not reading.words:
        return ""
    if reading.role or (reading.names_agent and not english):
        return reading.name
    return slug(_title_words(title)) if english else ""


def _duty_below(lines: list[str], i: int, lang: str) -> str:
    """The duty written on the lines under a heading, up to the next role or heading."""
    parts = []
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


def _clause_roles(norm: str) -> list[Role]:
    """"a research analyst gathers news": an article, up to two modifiers, a role noun."""
    out = []
    for m in _ARTICLE.finditer(norm):
        if _DESCRIBES.search(norm, max(0, m.start() - 30), m.end()):
            continue
        stop = _PUNCT.search(norm, m.end(), m.end() + 60)
        words = [(w.start(), w.group(0))
                 for w in _WORDS.finditer(norm, m.end(), stop.start() if stop else m.end() + 60)]
        for i, (_, noun) in enumerate(words[:3]):
            if not is_role_word(noun) or (i == 0 and noun in _BARE):
                continue
            nxt = words[i + 1][1] if i + 1 < len(words) else ""
            gap = i + 1 == len(words)  # punctuation or the end follows the noun
            known = noun in _ROLE_WORDS or noun.rstrip("s") in _ROLE_WORDS
            follows = bool(gap) or nxt in _FOLLOWERS or (nxt.endswith("s") and len(nxt) > 3)
            mods = [w for _, w in words[:i]]
            if any(is_filler(w) for w in mods):
                break
            if not (known or follows):
                continue
            title = " ".join([*(w for w in mods if w not in _ADJECTIVES), noun])
            rest = norm[words[i][0] + len(noun):]
            duty = first_clause(rest).strip(" ,")
            duty = re.sub(r"^(?:who|that|which|is to|to|will|should|must)\s+", "", duty)[:200]
            out.append(Role(slug(_title_words(title)), title, duty, "clause", m.start()))
            break
    return out


def first_clause(rest: str) -> str:
    """The clause `rest` opens with, never cut inside parentheses.

    "over three workers (an order lookup agent, a refunds agent). It ..." keeps its
    parenthesis whole; a parenthesis left open is dropped, and so is the end of one the
    clause started in ("a billing agent). The ...").
    """
    depth, last, end = 0, 0, len(rest)
    for m in _CLAUSE_SPLIT.finditer(rest):
        depth += rest.count("(", last, m.start()) - rest.count(")", last, m.start())
        last = m.start()
        if depth <= 0:
            end = m.start()
            break
    return _balanced(rest[:end])


def _balanced(clause: str) -> str:
    depth = 0
    for i, ch in enumerate(clause):
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return clause[:i].rstrip()
    return clause if depth == 0 else clause[:clause.rfind("(")].rstrip()


_ARTICLE = re.compile(r"\b(?:a|an|the|one|each|another)\s+")
_WORDS = re.compile(r"[a-z][a-z-]*")
_PUNCT = re.compile(r"[,.;:!?()\n]")


def is_filler(word: str) -> bool:
    """Function words that never belong in a role's name."""
    return word in _FILLER


_PLURAL = frozenset("agents assistants workers members bots experts".split())
_BARE = frozenset("agent agents assistant assistants worker workers member members bot bots "
                  "expert experts".split())
_FILLER = frozenset("a an the one and or of for with in on at by from into as is are be it its "
                    "this these "
                    "that which who to then also both among between across within via".split())


def _agent_noun_roles(norm: str) -> list[Role]:
    out = []
    for m in _AGENT_NOUN.finditer(norm):
        words = [w for w in m.group(1).split() if w not in _ADJECTIVES]
        while words and is_filler(words[0]):
            words = words[1:]
        if not words or any(is_filler(w) for w in words) or words[-1] in _NOT_ROLES:
            continue
        rest = norm[m.end():]
        duty = first_clause(rest).strip(" ,:")
        duty = re.sub(r"^(?:who|that|which|to|will|should|must)\s+", "", duty)[:200]
        title = " ".join([*words, m.group(2)])
        out.append(Role(slug(_title_words(title)), title, duty, "agent_noun", m.start()))
    return out


@cache
def _lexicon() -> TermIndex:
    return TermIndex("analysis", ("roles", "cues"))


def _lexicon_roles(text: Text) -> tuple[list[Role], list[Cue]]:
    roles, cues = [], []
    hits = _lexicon().find(text)
    # The longest term wins: "プロダクト マネージャー" is a product manager, not a manager.
    spans = [(h.start, h.end) for h in hits if h.cls.startswith("roles.")]
    for hit in hits:
        section, _, cls = hit.cls.partition(".")
        if section != "roles":
            cues.append(Cue(cls, hit.text, 1.0))
        elif not any(s <= hit.start and hit.end <= e and e - s > hit.end - hit.start
                     for s, e in spans):
            nxt = min((s for s, _ in spans if s >= hit.end), default=len(text.fold))
            roles.append(Role(cls, hit.text, _clause_after(text.fold, hit.end, nxt), "lexicon",
                              hit.start))
    return roles, cues


_CLAUSE_END = re.compile(r"[,;.!?()\n:，、；。！？（）：]")


def _clause_after(fold: str, end: int, limit: int) -> str:
    """What follows a role noun up to the clause's end or the next role ("负责搜集资料")."""
    stop = _CLAUSE_END.search(fold, end, limit)
    duty = fold[end:stop.start() if stop else limit].strip(" -—")
    return duty[:200] if len(duty) >= 4 else ""


def _native(roles: list[Role], lang: str) -> list[Role]:
    """English-rule roles of a request in another language, less prose.

    Its function words show a title to be prose ("un custom agent", "was empfiehlt der agent").
    """
    if lang == "en":
        return roles
    stop = {fold(normalize(w)) for w in table(lang, "language").get("stopwords", ())}
    return [r for r in roles if not stop & set(r.title.split())]


_GROUP = re.compile(r"[(（](?P<p>[^()（）\n]{3,120})[)）]"
                    r"|[:：]\s*(?P<c>[^.!?;\n。！？；:：]{3,160})")
_ITEM_SPLIT = re.compile(r"\s*(?:[,，、;/]|\s(?:and|or|y|e|et|ou|o|und|oder|и|или)\s)\s*")


_BOLD_SPAN = re.compile(r"(?:\*\*|__)([^*_\n]{2,40})(?:\*\*|__)")


def _bold_roles(split: str, lang: str) -> list[Role]:
    """Agents a request in another language names in bold prose ("l'**Agent RAG**")."""
    if lang == "en":
        return []
    out = []
    for m in _BOLD_SPAN.finditer(split):
        reading = read_title(m.group(1))
        if reading.agent and reading.words:
            out.append(Role(reading.name, m.group(1).strip(), "", "bold", m.start()))
    return out


def _enumerated_roles(text: Text, lang: str) -> list[Role]:
    """"agentes especializados (Suporte, Vendas e Gerente)": a list after a word for agents."""
    if lang == "en":
        return []
    out = []
    for m in _GROUP.finditer(text.fold):
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


def _sentence_at(fold: str, pos: int) -> str:
    starts = [m.start() for m in re.finditer(r"[^.!?。！？\n]+", fold)]
    begin = max((s for s in starts if s <= pos), default=0)
    end = re.search(r"[.!?。！？\n]", fold[pos:])
    return fold[begin:pos + (end.start() if end else len(fold) - pos)].strip()[:200]


def _merge(groups: list[list[Role]]) -> tuple[Role, ...]:
    """Roles in request order; a name (or a name inside another) counts once."""
    seen: dict[str, Role] = {}
    for role in sorted((r for g in groups for r in g), key=lambda r: r.position):
        # "expert" alone is no name in English prose; a role noun of the tables is one.
        if not role.name or (role.name in _BARE and role.source != "lexicon"):
            continue
        twin = next((k for k in seen if _same(k, role.name)), None)
        if twin is None:
            seen[role.name] = role
        elif not seen[twin].duty and role.duty:
            seen[twin] = Role(twin, seen[twin].title, role.duty, seen[twin].source,
                              seen[twin].position)
    return tuple(seen.values())[:MAX_ROLES]


def _same(a: str, b: str) -> bool:
    wa, wb = set(a.split("_")), set(b.split("_"))
    return a == b or wa <= wb or wb <= wa


def _steps(lines: list[str]) -> tuple[str, ...]:
    items = [_BULLET.sub("", ln, count=1) for ln in lines
             if re.match(r"\s*(\d{1,2}[.)]|[-*•])", ln)]
    return tuple(i[:120] for i in items if i)[:12]


def _counts(norm: str) -> tuple[dict[str, int], dict[str, int]]:
    counts: dict[str, int] = {}
    for num, noun in _COUNT.findall(norm):
        n = _num(num)
        if 1 <= n <= 12 and noun not in ("times",):
            counts.setdefault(noun, n)
    caps = {noun: _num(num) for num, noun in _CAP.findall(norm) if 1 <= _num(num) <= 20}
    for num in _TIMES.findall(norm):
        if 2 <= _num(num) <= 12:
            caps.setdefault("times", _num(num))
    return counts, caps


@cache
def _cue_table() -> tuple[tuple[str, re.Pattern[str], float], ...]:
    rows = []
    for pid, p in knowledge.patterns().items():
        rows += [(pid, re.compile(c), 1.0) for c in p.get("cues", ())]
        rows += [(pid, re.compile(c), 0.4) for c in p.get("weak_cues", ())]
    return tuple(rows)


def mask_roles(norm: str, roles: tuple[Role, ...]) -> str:
    """The text with every role's written name replaced by a neutral token."""
    from a4a.generator.plan import archetype_of

    out = norm
    for r in sorted(roles, key=lambda r: -len(r.title)):
        # A one-word role ("a planner lays out the steps") is itself the cue; a coordinator
        # ("each with a team lead") shapes the team whatever it is called.
        if (r.source != "lexicon" and len(r.title.split()) > 1
                and archetype_of(r.name) != "coordinator"):
            out = re.sub(rf"\b{re.escape(r.title.lower())}\b", "member", out)
    return out


def _cues(masked: str) -> list[Cue]:
    out = []
    for pid, pat, weight in _cue_table():
        m = pat.search(masked)
        if m:
            out.append(Cue(pid, m.group(0)[:60], weight))
    return out


def analyse(raw: str) -> RequestAnalysis:
    """Analyse a request (already checked by the security policy)."""
    text = Text.of(raw[:20_000])
    lined = normalize(raw[:20_000], keep_lines=True)
    norm = text.norm
    lex_roles, lex_cues = _lexicon_roles(text)
    lang = text.detection.main
    split = normalize(_CAMEL.sub(" ", raw[:20_000]), keep_lines=True)  # "AgentManager"
    lines = split.split("\n")
    offsets, pos = [], 0
    for ln in lines:
        offsets.append(pos)
        pos += len(ln) + 1
    headers = _header_roles(lines, offsets, lang)
    # A list of roles is the strongest evidence; prose around it mostly describes the system.
    prose = [] if len(headers) >= 2 else [
        _native(_clause_roles(split), lang), _native(_agent_noun_roles(split), lang),
        lex_roles, _enumerated_roles(text, lang)]
    roles = _merge([headers, _bold_roles(split, lang), *prose])
    masked = mask_roles(norm, roles)
    counts, caps = _counts(norm)
    sentences = tuple(s.strip() for s in re.split(r"(?<=[.!?。！？])\s*|\n", lined) if s.strip())
    cues = tuple(_cues(masked) + lex_cues)
    return RequestAnalysis(lang, sentences[:200], roles, _steps(lines), counts, caps, cues,
                           masked, _not_understood(text, sentences, lang))


def _not_understood(text: Text, sentences: tuple[str, ...], lang: str) -> tuple[str, ...]:
    """Sentences of a non-English request in which no role, cue or domain term was found."""
    if lang == "en":
        return ()
    out = []
    for s in sentences[:40]:
        t = Text.of(s)
        if not _lexicon().find(t) and not any(domain_hits(t).values()):
            out.append(s[:80])
    return tuple(out)
