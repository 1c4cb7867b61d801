"""Request analysis: sentences, roles with their duty clauses, stage order, counts, cues.

The backbone every later decision reads. Roles are found by an open rule (list headers such as
"Research Analyst: gathers news", agentive nouns after an article, "<noun> agent") and, for
every language, by the role nouns of templates/lang/<code>/analysis.yaml. Words inside a
role's name are masked before the control-flow cues are matched, so "Strategy Planner Agent"
never reads as a planning cue.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import cache

from a4a.generator.domains import domain_hits
from a4a.generator.lists import (
    bold_roles,
    box_roles,
    card_spans,
    chain_roles,
    cjk_series_roles,
    edge_roles,
    english_enumerated_roles,
    enumerated_roles,
    fans_out,
    header_roles,
    inline_roles,
    titled_agent_roles,
)
from a4a.generator.prose import (
    agent_noun_roles,
    clause_roles,
    code_roles,
    each_task_roles,
    listed_kind_roles,
    one_another,
    one_each_roles,
    ordinal_roles,
)
from a4a.generator.prose import first_clause as first_clause
from a4a.generator.rolewords import BARE, Role
from a4a.generator.rolewords import is_role_word as is_role_word
from a4a.generator.text import TermIndex, Text, compile_terms, fold, normalize, table, terms
from a4a.runtime import knowledge

MAX_ROLES = 8
_BULLET = re.compile(r"^\s*(?:[-*•●>]|\d{1,2}[.)、]|#{1,4})?\s*")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "a pair of": 2, "a couple of": 2, "several": 3}
_NUM = r"(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|a pair of|a couple of)"
_COUNT = re.compile(rf"\b{_NUM}\s+(?:[a-z-]+\s+){{0,2}}?"
                    r"([a-z]+?(?:ers|ors|ists|ants|ges|ts|es|s))\b")
_CAP = re.compile(rf"\b(?:at most|up to|max(?:imum)?(?: of)?|no more than)\s+{_NUM}\s+"
                  r"(retries|iterations|rounds|attempts|times|revisions|passes|loops|turns)\b")
_TIMES = re.compile(rf"\b{_NUM}\s+times\b")


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
    numbered: tuple[str, ...] = ()  # the steps of one numbered list ("1. Generate an outline")
    series: tuple[str, ...] = ()  # verbs in series: "to write, edit, and compile a novel"
    counts: dict[str, int] = field(default_factory=dict)
    caps: dict[str, int] = field(default_factory=dict)
    cues: tuple[Cue, ...] = ()
    masked: str = ""
    not_understood: tuple[str, ...] = ()

    def scores(self) -> dict[str, float]:
        """Summed cue weight per pattern; weak cues ("team", "agents") count once each."""
        out: dict[str, float] = {}
        weak: dict[str, float] = {}
        for c in self.cues:
            if c.weight < 1.0:  # generic words are one piece of evidence, however many
                weak[c.pattern] = max(weak.get(c.pattern, 0.0), c.weight)
            else:
                out[c.pattern] = out.get(c.pattern, 0.0) + c.weight
        return {p: round(out.get(p) or weak.get(p, 0.0), 2) for p in {**out, **weak}}


def _num(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS.get(word, 0)



@cache
def _lexicon() -> TermIndex:
    return TermIndex("analysis", ("roles", "cues", "weak_cues"))


def _lexicon_roles(text: Text) -> tuple[list[Role], list[Cue]]:
    roles, cues = [], []
    hits = _lexicon().find(text)
    # The longest term wins: "プロダクト マネージャー" is a product manager, not a manager.
    spans = [(h.start, h.end) for h in hits if h.cls.startswith("roles.")]
    for hit in hits:
        section, _, cls = hit.cls.partition(".")
        if section != "roles":
            cues.append(Cue(cls, hit.text, 0.4 if section == "weak_cues" else 1.0))
        elif not any(s <= hit.start and hit.end <= e and e - s > hit.end - hit.start
                     for s, e in spans):
            nxt = min((s for s, _ in spans if s >= hit.end), default=len(text.fold))
            roles.append(Role(cls, hit.text, _clause_after(text.fold, hit.end, nxt), "lexicon",
                              hit.start))
    return roles, cues


_CLAUSE_END = re.compile(r"[,;.!?()\n:，、；。！？（）：]")


@cache
def _every_agent() -> re.Pattern[str] | None:
    return compile_terms(t for _, t in terms("analysis", "duty").get("each", ()))


def _of_every_agent(fold: str, pos: int) -> bool:
    """Whether a role noun is said of every agent ("each agent is an expert in its field")."""
    pat = _every_agent()
    start = max((m.end() for m in re.finditer(r"[.!?;\n。！？；]", fold[:pos])), default=0)
    return pat is not None and pat.search(fold[start:pos]) is not None


def _clause_after(fold: str, end: int, limit: int) -> str:
    """What follows a role noun up to the clause's end or the next role ("负责搜集资料")."""
    stop = _CLAUSE_END.search(fold, end, limit)
    duty = fold[end:stop.start() if stop else limit].strip(" -—")
    return duty[:200] if len(duty) >= 4 else ""


def _leads(roles: list[Role]) -> list[Role]:
    """The roles that lead a team or judge its work (a coordinator, a judge, a synthesizer)."""
    from a4a.generator.plan import archetype_of

    return [r for r in roles if archetype_of(r.name) in ("coordinator", "judge", "synthesizer")]


def _native(roles: list[Role], lang: str) -> list[Role]:
    """English-rule roles of a request in another language, less prose.

    Its function words show a title to be prose ("un custom agent", "was empfiehlt der agent"),
    and so do the analysis table's `not_titles` ("welcher agent", "quel agent").
    """
    if lang == "en":
        return roles
    tab = table(lang, "analysis")
    stop = {fold(normalize(w)) for w in (*table(lang, "language").get("stopwords", ()),
                                         *tab.get("not_titles", ()))}
    return [r for r in roles if not stop & set(r.title.split())]


def _sentence_at(fold: str, pos: int) -> str:
    starts = [m.start() for m in re.finditer(r"[^.!?。！？\n]+", fold)]
    begin = max((s for s in starts if s <= pos), default=0)
    end = re.search(r"[.!?。！？\n]", fold[pos:])
    return fold[begin:pos + (end.start() if end else len(fold) - pos)].strip()[:200]


def _merge(groups: list[list[Role]]) -> tuple[Role, ...]:
    """Roles in request order; a name (or a name inside another) counts once."""
    seen: dict[str, Role] = {}
    read: dict[str, str] = {}  # one written word is one role ("orquestador"), its first class
    for role in sorted((r for g in groups for r in g), key=lambda r: r.position):
        if role.source == "lexicon":
            first = next((n for t, n in read.items() if role.title.startswith(t)
                          or t.startswith(role.title)), role.name)
            read.setdefault(role.title, first)
            if first != role.name:
                continue
        # "expert" alone is no name in English prose; a role noun of the tables is one.
        if not role.name or (role.name in BARE and role.source != "lexicon"):
            continue
        # A part of a row's title read again by another rule ("менеджер" of "| **Менеджер
        # командировок** - Supervisor |") is that row's role.
        # The same for a box of a diagram ("│ Travel Coordinator │ (Root Agent) │").
        if role.source not in ("header", "box") and any(
                r.source in ("header", "box") and role.title in r.title for r in seen.values()):
            continue
        # "designer + writer → 並列で実装": roles already named, together, name no new one
        parts = role.name.split("_")
        if len(parts) >= 2 and all(p in seen for p in parts):
            continue
        # Two items of one list are two roles ("support", "technical_support"); a name
        # written again elsewhere, or inside a longer one, is the same role.
        twin = next((k for k, r in seen.items() if k == role.name or (
            _same(k, role.name) and not (r.source == role.source in ("header", "list")))), None)
        if twin is None:
            seen[role.name] = role
        elif not seen[twin].duty and role.duty:
            seen[twin] = Role(twin, seen[twin].title, role.duty, seen[twin].source,
                              seen[twin].position)
    return tuple(seen.values())


# Coordinating meetings, appointments or interviews (in five languages) is scheduling them.
_MEETINGS = re.compile(
    r"\b(?:coordinat\w*|coordin\w*|koordinier\w*|координир\w*)\s+(?:(?:the|las|los|les|des|"
    r"os|as|die|их)\s+)?((?:meetings?|schedules?|appointments?|calendars?|interviews?|events?|"
    r"reuni\w+|citas?|agendas?|entrevistas?|eventos?|réunions?|rendez-vous|termine?|"
    r"встреч\w*))", re.IGNORECASE)


# Many users (sessions, chats) served at once, in eight languages: the system serves them
# concurrently; no agents work in parallel ("varios usuarios interactúen simultáneamente").
_MANY = (r"(?:\b(?:users|sessions|conversations|chats|customers|clients|visitors|requests|"
         r"usuari\w*|usuári\w*|sesiones|sessões|sessoes|conversas|conversaciones|clientes|"
         r"utilisateurs|benutzer\w*|nutzer\w*|sitzungen|gespräche|пользовател\w*|сесси\w*|"
         r"диалог\w*|клиент\w*|запрос\w*)|用户|会话|ユーザー|セッション|会話)")
_AT_ONCE = (r"(?:simultaneous\w*|concurrent\w*|in parallel|at the same time|simult[aá]ne\w*|"
            r"simultan\w*|al mismo tiempo|ao mesmo tempo|en même temps|gleichzeitig\w*|"
            r"parallel\w*|одновременн\w*|параллельн\w*|并发|同时|同時に?|並行)")
_SERVES_MANY = re.compile(rf"(?P<a>{_MANY}[^.!?。！？\n]{{0,50}}?){_AT_ONCE}"
                          rf"|{_AT_ONCE}(?P<b>[^.!?。！？\n]{{0,20}}?{_MANY})", re.IGNORECASE)
_AGENT_WORD = re.compile(r"agent|агент|智能体|エージェント|\bbot\b", re.IGNORECASE)
_AGENTS = re.compile(r"\b(?:agents|agentes|agenten|bots|агент(?:ы|ов|ами|ам))\b", re.IGNORECASE)


def _names_agents(sentence: str) -> bool:
    """Agents, or two of them: "the billing agent and the technical agent", "bots"."""
    return bool(_AGENTS.search(sentence)) or len(_AGENT_WORD.findall(sentence)) >= 2


def _one_at_a_time(raw: str) -> str:
    """The request without the words that say many users are served at once.

    Only in a sentence that names no agents: "the two agents check the customers in
    parallel" still works in parallel.
    """
    def serve(m: re.Match[str]) -> str:
        return (m.group("a") or "") + " " + (m.group("b") or "")
    parts = re.split(r"(?<=[.!?。！？\n])", raw)
    return "".join(p if _names_agents(p) else _SERVES_MANY.sub(serve, p) for p in parts)


def _shallowest(roles: tuple[Role, ...], lines: list[str], offsets: list[int]
                ) -> tuple[Role, ...]:
    """At most MAX_ROLES roles: where a tree names more, its top level before its leaves.

    "├── 3. BugDetectionAgent" with four sub-agents under it: the top-level agents are the
    team; the sub-agents are kept only while room is left.
    """
    if len(roles) <= MAX_ROLES:
        return roles

    def depth(pos: int) -> int:
        i = max(0, bisect.bisect_right(offsets, pos) - 1)
        prefix = re.match(r"[\s│┃|]*", lines[i]) if i < len(lines) else None
        return len(prefix.group(0).expandtabs(4)) if prefix else 0

    keep = sorted(range(len(roles)), key=lambda k: (depth(roles[k].position), k))[:MAX_ROLES]
    return tuple(roles[k] for k in sorted(keep))


def _subject_duty(role: Role, norm: str) -> Role:
    """A role named without a duty takes the sentence it opens as the subject.

    "... four specialist agents: Triage, Diagnosis, Remediation. Triage correlates related
    alerts": the verb after the name (third person) starts the duty.
    """
    if role.duty or not role.title or len(role.title) > 40:
        return role
    m = re.search(rf"(?:^|[.!?:]\s+|\n\s*)(?:the\s+)?{re.escape(role.title)}(?:\s+agent)?"
                  r"\s+((?:also\s+)?[a-z]+(?<!ss)s\b[^.!?\n]{3,200})", norm)
    if m is None or m.group(1).split()[0] in _NOT_VERBS:
        return role
    return Role(role.name, role.title, m.group(1).strip(" ,"), role.source, role.position)


_NOT_VERBS = frozenset("is was has does its this agents tools tasks steps results outputs "
                       "always".split())


def _same(a: str, b: str) -> bool:
    wa, wb = set(a.split("_")), set(b.split("_"))
    return a == b or wa <= wb or wb <= wa or _gerund_twin(a, b)


_VERB = re.compile(r"([a-z]{4,}?)(?:ing|or|er)")


def _gerund_twin(a: str, b: str) -> bool:
    """A one-word gerund name and the agent noun of its verb: "executing" is "executor"."""
    if not (a.endswith("ing") or b.endswith("ing")):
        return False
    ma, mb = _VERB.fullmatch(a), _VERB.fullmatch(b)
    return bool(ma and mb and ma.group(1) == mb.group(1))


def _steps(lines: list[str]) -> tuple[str, ...]:
    items = [_BULLET.sub("", ln, count=1) for ln in lines
             if re.match(r"\s*(\d{1,2}[.)]|[-*•])", ln)]
    return tuple(i[:120] for i in items if i)[:12]


def _numbered(lines: list[str]) -> tuple[str, ...]:
    """The items of the first numbered list counting up from 1, without their marks."""
    items: list[str] = []
    for ln in lines:
        m = re.match(r"\s*(\d{1,2})[.)]\s+(\S.*)", ln)
        if m and int(m.group(1)) == len(items) + 1:
            items.append(m.group(2).strip(" *_")[:120])
        elif m and items:
            break
    return tuple(items)


_PHASE = re.compile(r"\s*(?:#{1,6}\s*)?(?:\*\*|__)?\s*(?:phase|step|stage|etapa|fase|paso|passo|"
                    r"schritt|[ée]tape|шаг|этап|фаза)\s+(\d{1,2})\s*[:.)\-–—]\s*(\S.*)",
                    re.IGNORECASE)


def _phases(lines: list[str]) -> tuple[str, ...]:
    """The titles of headings that number phases or steps from 1 ("### Phase 2: Emails")."""
    items: list[str] = []
    for ln in lines:
        m = _PHASE.match(ln)
        if m and int(m.group(1)) == len(items) + 1:
            items.append(m.group(2).strip(" *_")[:120])
    return tuple(items)


_TO_SERIES = re.compile(r"\bto (?:[a-z]+ly )?([a-z]{3,}), ([a-z]{3,}),? (?:and|then) ([a-z]{3,})"
                        r"\b([^.,;!?\n]{0,60})")
_THAT_SERIES = re.compile(r"\b(?:agents|pipeline|workflow|crew|team)\b[^.;:\n]{0,40}?"
                          r"\b(?:that|which|who)\s+([a-z]{3,}(?<!s)s\b[^,;.!?\n]{0,60}),\s+"
                          r"([a-z]{3,}(?<!s)s\b[^,;.!?\n]{0,60}),?\s+(?:and|then)\s+"
                          r"([a-z]{3,}(?<!s)s\b[^,;.!?\n]{0,60})")
# Verbs in series, each with up to two words of object: "to strategize, generate commands,
# and execute scans"; "to the team, the boss and the client" lists no work.
_TO_CLAUSES = re.compile(r"\bto ([a-z]{3,}(?: [a-z]+){0,2}), ([a-z]{3,}(?: [a-z]+){0,2}),? "
                         r"(?:and|then) ([a-z]{3,}(?: [a-z]+){0,2})\b")
_TEAM_WORDS = re.compile(r"\b(?:agents|multi-agent|crew|team|pipeline)\b")
# Stages named as work in series after the system they make up: "a multi-agent system for
# weekly meal planning, ingredient extraction, shopping list generation, and cost
# optimization" (work nouns only: "a system for HR, finance and IT" lists departments).
_FOR_SERIES = re.compile(r"\b(?:(?:multi-agent system|agent system|agents|pipeline|workflow|crew)"
                         r" for|automates the process of|the process of)"
                         r" ([a-z][a-z -]{2,40}(?:,[a-z -]{3,40}){1,5},? and [a-z -]{3,40})"
                         r"(?=[.;!?\n]|$)")
_NOMINAL = re.compile(r"(?:ing|tion|sion|sis|ment|ance|ence)$")
_GERUND_START = re.compile(r"[a-z]{3,}ing\b")
_NOT_VERBS = frozenset("the and all our your their his her its each every any some more most "
                       "new own other one two three this thus was has always".split())
# The subject before a series of verbs: one agent (group 1), or the system the work makes up.
_SUBJECT = re.compile(r"(?:this|the|our|my|an?|it)\s+(?:(agent|bot|assistant|chatbot)|system|"
                      r"pipeline|crew|team|tool|app|platform|workflow|framework)\s+(?=[a-z]{3,}s\s)")
_CLAUSE_VERB = re.compile(r"^(?:and\s+)?([a-z]{3,}(?:ies|es|s))\s")


def _series(norm: str) -> tuple[str, ...]:
    """The clauses of one sentence that lists the work in series, three to six of them.

    "to automatically write, edit, and compile a novel"; "Identifies domains, generates
    websites, develops strategies, and designs assets".
    """
    m = _TO_SERIES.search(norm)
    if m:
        obj = m.group(4).strip()
        return tuple(f"{v} {obj}".strip() for v in m.groups()[:3])
    m = _THAT_SERIES.search(norm)  # "agents that extract data, validate it, and store it"
    if m:
        return tuple(c.strip() for c in m.groups())
    # "agents that collaborate to strategize, generate commands, and execute scans"; "this
    # agent can be extended to analyse stock, forecast demand and suggest reorders" is one agent
    for m in _TO_CLAUSES.finditer(norm) if _TEAM_WORDS.search(norm) else ():
        if not any(c.split()[0] in _NOT_VERBS for c in m.groups()):
            return tuple(c.strip() for c in m.groups())
    if m := _FOR_SERIES.search(re.sub(r"[*_`]", "", norm)):  # "a system for meal planning, ..."
        items = [re.sub(r"^and\s+", "", i.strip()) for i in re.split(r",|\band\b", m.group(1))]
        items = [i for i in items if i]
        if 3 <= len(items) <= 6 and all(_NOMINAL.search(i) or _GERUND_START.match(i)
                                        for i in items):
            return tuple(items)
    for sentence in re.split(r"(?<=[.!?])\s+|\n", norm):
        subject = _SUBJECT.match(sentence)
        if subject and subject.group(1):  # "this agent monitors ..., asks ... and routes ...":
            continue  # one agent's duties
        sentence = sentence[subject.end():] if subject else sentence  # "this system detects"
        clauses = [c.strip(" .") for c in sentence.split(",")]
        if 3 <= len(clauses) <= 6 and all(
                (v := _CLAUSE_VERB.match(c)) and not v.group(1).endswith("ss")
                and v.group(1) not in _NOT_VERBS for c in clauses):  # "this agent monitors"
            return tuple(re.sub(r"^and\s+", "", c) for c in clauses)
    return ()


# "le processus de collecte, de normalisation, de stockage et de réponse", "el proceso de ...":
# the work in series after a word for process (French, Spanish, Portuguese).
_ROMANCE_SERIES = re.compile(r"\b(?:processus|proceso|processo|flux|flujo|fluxo)\s+"
                             r"(?:de|d'|del|da|do)\s*([^.;:!?\n]{10,200})")
_ROMANCE_JOIN = re.compile(r",|\s(?:et|y|e|ou|o)\s")
_ROMANCE_LEAD = re.compile(r"^(?:de la|de l'|de|d'|del|da|do|des|la|le|l'|el|o|a)\s*")
# "集成需求分析、架构设计与项目分解的完整端到端工作流": stages joined by 、 before a workflow word.
_CJK_SERIES = re.compile(r"((?:[\u4e00-\u9fff]{2,12}?、){1,5}[\u4e00-\u9fff]{2,8}?(?:与|和|及|、)"
                         r"(?:(?!的|之)[\u4e00-\u9fff]){2,8})"
                         r"(?:的|之)?[^。！？\n、]{0,10}(?:工作流|流程|管线|流水线)")
_CJK_LEAD = re.compile(r"^.*?(?:集成|包括|包含|涵盖|实现|支持|覆盖)")
# "お問い合わせの受付からAI回答案生成、Slack通知、kintone記録まで", "从收集数据、分析到生成报告":
# the stages from the first to the last.
_FROM_TO = re.compile(r"([^。！？\n、]{1,20}?)から([^。！？\n]{1,80}?)まで"
                      r"|从([^。！？\n]{1,80}?)到((?:(?!的)[^。！？\n、，]){1,20})")


def _foreign_series(norm: str) -> tuple[str, ...]:
    """The stages of a process listed in series in five languages (not English)."""
    if m := _CJK_SERIES.search(norm):
        items = [i for i in re.split(r"、|与|和|及", m.group(1)) if i]
        items[0] = _CJK_LEAD.sub("", items[0])
        return tuple(items) if 3 <= len(items) <= 6 else ()
    if m := _FROM_TO.search(norm):
        first, rest = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        items = [i.strip() for i in re.split(r"、", f"{first}、{rest}") if i.strip()]
        if 3 <= len(items) <= 6:
            return tuple(items)
    if m := _ROMANCE_SERIES.search(norm):
        items = [_ROMANCE_LEAD.sub("", i.strip()) for i in _ROMANCE_JOIN.split(m.group(1))]
        items = [i.split()[0] for i in items if i]
        if 3 <= len(items) <= 6:
            return tuple(items)
    return ()


def _counts(norm: str) -> tuple[dict[str, int], dict[str, int]]:
    counts: dict[str, int] = {}
    for num, noun in _COUNT.findall(norm):
        n = _num(num)
        if 1 <= n <= 12 and noun not in ("times",):
            counts.setdefault(noun, n)
    if "agents" not in counts and (n := one_another(norm)) >= 3:
        counts["agents"] = n
    caps = {noun: _num(num) for num, noun in _CAP.findall(norm) if 1 <= _num(num) <= 20}
    for num in _TIMES.findall(norm):
        if 2 <= _num(num) <= 12:
            caps.setdefault("times", _num(num))
    return counts, caps


@cache
def _pair_stated(folded: str, lang: str) -> bool:
    """Whether a request in another language asks for two agents ("dois agentes").

    Only a pair is read: larger counts in these languages also number tasks, steps or tools
    next to the agents ("5 agentes e 12 ferramentas"), which the open English rule tells apart.
    """
    numbers = {fold(normalize(w)): n for w, n in table(lang, "analysis").get("numbers", {}).items()}
    words = "|".join(re.escape(w) for w in sorted(numbers, key=len, reverse=True) if w)
    if not words:
        return False
    m = re.search(rf"(?<!\w)(\d{{1,2}}|{words})\s+(?:\w+\s+)?(?:agent|агент|bot)\w*", folded)
    return m is not None and (int(m.group(1)) if m.group(1).isdigit() else numbers[m.group(1)]) == 2


@cache
def _each_stated(folded: str, lang: str) -> int:
    """How many agents "each of the N ..." gives one each to (0 when the request says none).

    "Cada uma das cinco competências ... é avaliada por um agente", "each of the four checks is
    run by its own agent": the number counts the agents, within the sentence that says so.
    """
    tab = table(lang, "analysis")
    eaches = [fold(normalize(w)) for w in tab.get("each_of", ())]
    numbers = {**{k: v for k, v in NUMBERS.items() if " " not in k},
               **{fold(normalize(w)): n for w, n in tab.get("numbers", {}).items()}}
    if not eaches:
        return 0
    each = "|".join(re.escape(w) for w in sorted(eaches, key=len, reverse=True))
    words = "|".join(re.escape(w) for w in sorted(numbers, key=len, reverse=True))
    m = re.search(rf"(?<!\w)(?:{each})\s+(\d{{1,2}}|{words})(?!\w)[^.!?。\n]{{0,160}}?"
                  r"(?<!\w)(?:agent|агент)", folded)
    if m is None:
        return 0
    n = int(m.group(1)) if m.group(1).isdigit() else numbers[m.group(1)]
    return n if 2 <= n <= 12 else 0


@cache
def _cue_table() -> tuple[tuple[str, re.Pattern[str], float], ...]:
    rows = []
    for pid, p in knowledge.patterns().items():
        rows += [(pid, re.compile(c), 1.0) for c in p.get("cues", ())]
        rows += [(pid, re.compile(c), 0.4) for c in p.get("weak_cues", ())]
        rows += [(pid, re.compile(c), 2.0) for c in p.get("strong_cues", ())]
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


def _distinct(cues: list[Cue]) -> tuple[Cue, ...]:
    """The cues, each word once per pattern.

    One word is one piece of evidence: "routing" read by the English and the French tables
    counts once.
    """
    seen: dict[tuple[str, str], Cue] = {}
    for c in cues:
        seen.setdefault((c.pattern, fold(c.phrase).strip()), c)
    return tuple(seen.values())


_FENCE = re.compile(r"^\s*(```|~~~).*?(?:^\s*\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)
_SETUP = re.compile(r"^(#{1,6})\s*(?:\d+[.)]?\s*)?(?:[^\w\n]+\s*)?(?:installation|install|setup|"
                    r"set up|getting started|quick ?start|usage|how to (?:run|use|install)|running|"
                    r"requirements|prerequisites|dependencies|configuration|environment|"
                    r"license|licence|contributing|contributors|acknowledg\w*|citation|faq|"
                    r"troubleshooting|development|tests?|testing|deployment|project structure|"
                    r"file structure|directory structure|screenshots?|demo|roadmap|changelog)"
                    r"\b[^\n]*$", re.IGNORECASE | re.MULTILINE)


def without_setup(raw: str) -> str:
    """The request without code blocks and its setup sections (installation, usage, licence).

    "First, clone the repository, then install" or "run the pipeline with python main.py"
    describe how to run the project, not how its agents work together.
    """
    text = _FENCE.sub("\n", raw)
    out, skip = [], 0
    for line in text.split("\n"):
        heading = re.match(r"^(#{1,6})\s", line)
        if heading and skip and len(heading.group(1)) <= skip:
            skip = 0
        if not skip and heading and _SETUP.match(line):
            skip = len(heading.group(1))
        if not skip:
            out.append(line)
    return "\n".join(out)


@cache
def _duty_index() -> TermIndex:
    return TermIndex("analysis", ("duty",))


def asks_for_writing(raw: str) -> bool:
    """Whether a request asks for written work (articles, reports, a screenplay).

    In any of the eight languages (`duty.content` of templates/lang/<code>/analysis.yaml).
    """
    text = Text.of(raw[:20_000])
    hits = _duty_index().find(text)
    if text.detection.main != "en":
        hits += _duty_index().find_in(text, text.detection.main)
    return any(h.cls == "duty.content" for h in hits)


@cache
def _aside_regex() -> re.Pattern[str]:
    opens = "|".join(re.escape(a) for a in table("en", "analysis").get("asides", ()))
    return re.compile(rf"(?:^|(?<=[.!?\n]))\s*(?:{opens})\b[^.!?\n]*[.!?]?", re.IGNORECASE)


def without_asides(raw: str) -> str:
    """The request without sentences to the reader about trying it.

    "You can also try it out with a personal email": its nouns are sample input, not the
    domain of the work.
    """
    return _aside_regex().sub(" ", raw)


_VERB_OF_RUNNER = r"(?P<verb>orchestr\w*|orquest\w*|оркестр\w*)"


@cache
def _runner_regex() -> re.Pattern[str]:
    runners = "|".join(re.escape(r) for r in table("en", "analysis").get("runners", ()))
    after = _VERB_OF_RUNNER.replace("verb", "verb2")  # "CrewAI to orchestrate"
    return re.compile(rf"{_VERB_OF_RUNNER}\s+(?:\S+\s+){{0,4}}?(?:{runners})\b"
                      rf"|\b(?:{runners})\s+(?:\S+\s+){{0,3}}?{after}", re.IGNORECASE)


def _runner_verbs(raw: str) -> str:
    """The request with "orchestrate" said of a framework made "run": it is no cue."""
    def run(m: re.Match[str]) -> str:
        verb = "verb" if m.group("verb") else "verb2"
        start, end = m.span(verb)
        return m.group(0)[:start - m.start()] + "run" + m.group(0)[end - m.start():]
    return _runner_regex().sub(run, raw)


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
    headers = header_roles(lines, offsets, lang)
    cards = card_spans(text.fold)  # "**Роль**: главный координатор": the card's own role
    lex_roles = [r for r in lex_roles if not any(a <= r.position < b for a, b in cards)
                 and not _of_every_agent(text.fold, r.position)]
    # A list of roles is the strongest evidence; prose around it mostly describes the system.
    # ... but the lead they report to is often named only there ("协调者 Agent 分配任务").
    tasks = each_task_roles(split) if lang == "en" else []  # one agent per listed task
    prose = [_leads(lex_roles), _leads(_native(agent_noun_roles(split), lang))] if len(
        headers) >= 2 else [
        _native(clause_roles(split), lang), _native(agent_noun_roles(split), lang),
        listed_kind_roles(split) if lang == "en" else [],
        one_each_roles(split) if lang == "en" else [],
        tasks,
        lex_roles, enumerated_roles(text, lang), titled_agent_roles(raw[:20_000], lang),
        inline_roles(_CAMEL.sub(" ", raw[:20_000])) if lang == "en" else [],
        cjk_series_roles(raw[:20_000]),
        ordinal_roles(split) if lang == "en" else []]
    # A list that says it names the agents ("three agents: A, B, and C") holds even beside
    # headings that describe only some of them.
    listed = english_enumerated_roles(_CAMEL.sub(" ", raw[:20_000])) if lang == "en" else []
    if len(headers) >= 2 and len(listed) <= len(headers):
        listed = []  # the headings describe every agent the list names
    roles = _merge([headers, chain_roles(lines, offsets, lang),
                    box_roles(raw[:20_000], split, lang), edge_roles(lines, offsets, lang),
                    bold_roles(split, lang), code_roles(split), listed, *prose])
    roles = _shallowest(roles, lines, offsets)
    if lang == "en":
        roles = tuple(_subject_duty(r, norm) for r in roles)
    bare = without_setup(_runner_verbs(raw[:20_000]))
    if fans_out(lines):  # "**Supervisor** → **Booking Node**" twice: branches, not a chain
        bare = re.sub(r"→|->|⟶|=>", " to ", bare)
    bare = _MEETINGS.sub(r"arrange \1", bare)  # "coordinar reuniones" books time, leads no one
    bare = _one_at_a_time(bare)
    if bare != raw[:20_000]:  # cues only from what the agents do, not how to run the project
        lex_cues = _lexicon_roles(Text.of(bare))[1]
    masked = mask_roles(normalize(bare) if bare != raw[:20_000] else norm, roles)
    counts, caps = _counts(norm)
    if lang != "en" and "agents" not in counts and _pair_stated(text.fold, lang):
        counts["agents"] = 2
    if "agents" not in counts and (n := _each_stated(text.fold, lang)) >= 2:
        counts["agents"] = n
    sentences = tuple(s.strip() for s in re.split(r"(?<=[.!?。！？])\s*|\n", lined) if s.strip())
    cues = _distinct(_cues(masked) + lex_cues)
    if lang == "en" and len(each := one_each_roles(split)) >= 2:
        # "one searches, one analyzes, one writes": the work in the order it is done
        cues = _distinct([*cues, Cue("prompt_chaining", ", ".join(r.duty for r in each), 0.6)])
    if len(tasks) >= 3:
        # "each agent specializes in a task: generating ideas, critiquing them, ...": a
        # pipeline stated outright, above a lone keyword (1.0)
        cues = _distinct([*cues, Cue("prompt_chaining", ", ".join(r.duty for r in tasks), 1.2)])
    series = _series(norm) if lang == "en" else _foreign_series(norm)
    numbered = _numbered(lines)
    if len(phases := _phases(lines)) >= 3:  # "### Phase 1: ..." to "### Phase 6: ...": the work
        numbered = series = phases
    return RequestAnalysis(lang, sentences[:200], roles, _steps(lines), numbered, series,
                           counts, caps, cues, masked,
                           _not_understood(text, sentences, lang))


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
