"""ASCII names for roles written in any of the eight languages.

A role's written title ("Analista de Dados", "議事録エージェント", "Аналитик данных") becomes an
ASCII snake_case name: role nouns become their English class (templates/lang/<code>/
analysis.yaml `roles`), other words their English gloss (`glossary`), words meaning "agent"
(`agent`) and function words (language.yaml `stopwords`) are dropped, remaining Latin words
keep their folded spelling and Cyrillic words are transliterated. The role noun comes last,
as in an English compound ("data_analyst"). Chinese and Japanese match without word
boundaries, longest term first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from a4a.generator.text import LANGUAGES, fold, normalize, table, terms

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[^\W\d_]+")
_CYR = dict(zip("абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
                ["a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "i", "k", "l", "m", "n", "o",
                 "p", "r", "s", "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "", "y", "", "e",
                 "yu", "ya"], strict=True))
_EN_FILLER = frozenset("a an the of for and or with in on at by to from ai llm ki ia ии multi "
                        "system team crew "
                        # "Agente de IA especializado", "spezialisierter Agent": no role's name
                        "specialized specialised especializado especializada especializados "
                        "especializadas specialise specialisee specialises spezialisiert "
                        "spezialisierter spezialisierte spezialisierten специализированный "
                        "специализированные специализированного".split())
ROLE, GLOSS, AGENT = "role", "gloss", "agent"
# A title with one of these names a team of agents, not one ("Analyst Team 并行分析").
_TEAM = re.compile(r"\b(?:team|teams|crew|squad|equipo|equipe|équipe|команда)\b|团队|小组|チーム")


@dataclass(frozen=True)
class Reading:
    """What a title says: its ASCII name words and whether it names an agent."""

    words: tuple[str, ...]
    role: str  # the English class of its role noun ("" when none)
    agent: bool  # its head is a word meaning "agent"
    agents: bool = False  # it holds a word meaning "agents"

    @property
    def name(self) -> str:
        """The snake_case name (at most three words), "" when nothing is left."""
        return "_".join(self.words[-3:])[:40]

    team: bool = False  # it names a team

    @property
    def names_agent(self) -> bool:
        """A role noun or an agent word, something left to name it by, and not a team."""
        return bool(self.words) and (bool(self.role) or self.agent) and not self.team


@cache
def _vocabulary() -> tuple[dict[str, tuple[str, str]], tuple[tuple[str, str, str], ...],
                           dict[str, tuple[str, str]]]:
    """Exact words, prefixes (core, kind, value) and CJK terms of the naming tables."""
    exact: dict[str, tuple[str, str]] = {}
    prefix: list[tuple[str, str, str]] = []
    cjk: dict[str, tuple[str, str]] = {}
    for section, kind in (("agent", AGENT), ("roles", ROLE), ("glossary", GLOSS)):
        for cls, items in terms("analysis", section).items():
            for _, term in items:
                core = fold(normalize(term.strip("*")))
                if not core or " " in core:
                    continue
                value = (kind, cls)
                if _CJK.fullmatch(core):
                    cjk.setdefault(core, value)
                elif term.endswith("*"):
                    prefix.append((core, kind, cls))
                else:
                    exact.setdefault(core, value)
    prefix.sort(key=lambda p: -len(p[0]))
    return exact, tuple(prefix), cjk


@cache
def _stopwords() -> frozenset[str]:
    return frozenset(fold(normalize(w)) for lang in LANGUAGES
                     for w in table(lang, "language").get("stopwords", ())) | _EN_FILLER


@cache
def _prefixes() -> dict[str, tuple[tuple[str, str, str], ...]]:
    """The prefixes by their first character, longest first (as `_vocabulary` orders them)."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for p in _vocabulary()[1]:
        out.setdefault(p[0][0], []).append(p)
    return {k: tuple(v) for k, v in out.items()}


def _word(word: str) -> tuple[str, str] | None:
    exact = _vocabulary()[0]
    if word in exact:
        return exact[word]
    return next(((k, c) for core, k, c in _prefixes().get(word[:1], ())
                 if word.startswith(core)), None)


def _cjk_run(run: str) -> list[tuple[str, str]]:
    """Longest known terms of a CJK run, left to right; unknown characters are skipped."""
    _, _, cjk = _vocabulary()
    longest = max((len(t) for t in cjk), default=0)
    out, i = [], 0
    while i < len(run):
        for n in range(min(longest, len(run) - i), 0, -1):
            hit = cjk.get(run[i:i + n])
            if hit:
                out.append(hit)
                i += n
                break
        else:
            i += 1
    return out


def transliterate(word: str) -> str:
    """Cyrillic letters in Latin ones; other characters kept."""
    return "".join(_CYR.get(ch, ch) for ch in word)


# "Q&A", "R & D": letters joined by an ampersand are one word ("qna", "rnd"; "qa" is QA).
AMPERSAND = re.compile(r"\b([a-z])\s?&\s?([a-z])\b")


def read_title(title: str) -> Reading:
    """The ASCII reading of a role's written title."""
    role, agent, plural, mods = "", False, False, []
    found = _readings(fold(AMPERSAND.sub(r"\1n\2", normalize(title))))  # "Q&A Agent": qna
    for k, (kind, value) in enumerate(found):
        if kind == AGENT:
            # Only the head of a title names one agent: "Agente Investigador",
            # "検索エージェント", "Trader Agent 综合", not "TradingAgents 核心特点".
            plural = plural or value == "agents"
            agent = agent or (value == "agent" and k in (0, len(found) - 1))
        elif kind == ROLE and not role:
            role = value
        elif kind in (GLOSS, ROLE):
            mods.append(value)
        elif value not in _stopwords() and not _CJK.search(value):
            mods.append(transliterate(value))
    words = [w for w in (re.sub(r"[^a-z0-9_]+", "", m) for m in [*mods, role]) if w]
    team = _TEAM.search(normalize(title))
    return Reading(tuple(dict.fromkeys(words)), role, agent, plural,
                   team is not None and not _leads_team(normalize(title), team))


# Languages whose compounds end in their head: a role noun after the team word is the head.
_HEAD_LAST = frozenset("team teams crew squad 团队 小组 チーム".split())


def _leads_team(norm: str, team: re.Match[str]) -> bool:
    """Whether a title with a team word names the agent leading that team.

    "Team Coordinator" and "团队协调器" name one; "Analyst Team", "Teams of analysts" and
    "Equipo de ventas" name the team.
    """
    rest = fold(norm[team.end():]).split()
    if team.group(0) not in _HEAD_LAST or not rest or rest[0] in ("of", "for"):
        return False
    return any(kind == ROLE for kind, _ in _readings(" ".join(rest)))


def _readings(folded: str) -> list[tuple[str, str]]:
    """(kind, value) of each known term of a folded title; ("", word) for an unknown word."""
    return [f for tok in _TOKEN.findall(folded)
            for f in (_cjk_run(tok) if _CJK.fullmatch(tok) else [_word(tok) or ("", tok)])]


def role_class(word: str) -> str:
    """The English class of a role noun written in any language ("" when unknown)."""
    hit = _word(fold(normalize(word)))
    return hit[1] if hit and hit[0] == ROLE else ""


def ascii_words(text: str) -> list[str]:
    """The content words of text in any of the eight languages, in ASCII, in order.

    Latin words keep their own spelling with accents folded ("Une équipe pour un hôtel"
    gives "equipe", "hotel"); Chinese and Japanese terms become their English words from
    the naming tables (their only ASCII form: "管理日历的助手" gives "calendar", "assistant"),
    Cyrillic words too where the tables know them, else transliterated. Words meaning
    "agent" and function words are dropped.
    """
    out: list[str] = []
    for tok in _TOKEN.findall(fold(normalize(text))):
        if _CJK.fullmatch(tok):
            found = [v for k, v in _cjk_run(tok) if k != AGENT]
        elif tok.isascii():
            found = [] if tok in _stopwords() or _word(tok) == (AGENT, "agent") else [tok]
        else:
            kind, value = _word(tok) or ("", transliterate(tok))
            found = [] if kind == AGENT or tok in _stopwords() else [value]
        out.extend(w for v in found for w in re.findall(r"[a-z][a-z0-9]+", v) if len(w) > 2)
    return out
