"""Roles English prose names: "a research analyst gathers news", "<noun> agent", code names.

Also "one agent ..., another ..., a third ..." enumerations, each agent named after the verb
of its duty. Read by generator/analysis.py, which merges these with the roles of lists.
"""

from __future__ import annotations

import re
from dataclasses import replace

from a4a.generator.rolewords import (
    ADJECTIVES,
    BARE,
    ROLE_WORDS,
    Role,
    is_filler,
    is_role_word,
    slug,
    title_words,
)

# Words before a role noun that describe the system or a choice, not a member of the team.
_DESCRIBES = re.compile(r"\b(?:as|is|be|becomes?|acts? as|like|appropriate|right|relevant|"
                        r"correct|specific|next|proper|suitable|respective)\s+(?:an?\s+|the\s+)?$")
_CLAUSE_SPLIT = re.compile(r",\s*(?:and\s+|then\s+)?(?=(?:a|an|the|one)\s)|;\s*|\.\s+|\band\s+"
                           r"(?=(?:a|an|the)\s)")
# Up to three words on the same line, one space apart, none itself a word for an agent: "Research
# Agent    Comparison Agent" in a drawn diagram are two agents.
_AGENT_NOUN = re.compile(r"\b((?:(?!(?:agent|assistant|bot)(?:s|en)?\b)[a-z][a-z-]*[ \t]){1,3})"
                         r"(agent|assistant|bot)(s|en)?\b")
_FOLLOWERS = frozenset("who that which to will should must can then and or , . ; : agent "
                       "agents is are also first takes uses".split())


def clause_roles(norm: str) -> list[Role]:
    """"a research analyst gathers news": an article, up to two modifiers, a role noun."""
    out = []
    for m in _ARTICLE.finditer(norm):
        if _DESCRIBES.search(norm, max(0, m.start() - 30), m.end()):
            continue
        stop = _PUNCT.search(norm, m.end(), m.end() + 60)
        words = [(w.start(), w.group(0))
                 for w in _WORDS.finditer(norm, m.end(), stop.start() if stop else m.end() + 60)]
        for i, (_, noun) in enumerate(words[:3]):
            if not is_role_word(noun) or (i == 0 and noun in BARE) or (
                    noun in ADJECTIVES and i + 1 < len(words) and is_role_word(words[i + 1][1])):
                continue  # "the lead researcher": the role noun is the next word
            nxt = words[i + 1][1] if i + 1 < len(words) else ""
            gap = i + 1 == len(words)  # punctuation or the end follows the noun
            known = noun in ROLE_WORDS or noun.rstrip("s") in ROLE_WORDS
            follows = bool(gap) or nxt in _FOLLOWERS or (nxt.endswith("s") and len(nxt) > 3)
            mods = [w for _, w in words[:i]]
            if any(is_filler(w) for w in mods) or (mods and mods[0] in _CHOICE) or any(
                    w in _SYSTEM or w in _NOT_NOUNS for w in mods):
                break  # "the last agent has responded": a place in the order, no one's name
            if not (known or follows):
                continue
            title = " ".join([*(w for w in mods if w not in ADJECTIVES), noun])
            # "writer_agent`", "team leader agent** routes"
            rest = re.sub(r"^(?:\w*`|\s*(?:agent|assistant|bot)\b[*_`]*)", "",
                          norm[words[i][0] + len(noun):])
            duty = first_clause(rest).strip(" ,")
            duty = re.sub(r"^(?:who|that|which|is to|to|will|should|must)\s+", "", duty)[:200]
            out.append(Role(slug(title_words(title)), title, duty, "clause", m.start()))
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
# A hyphen between a noun and "agent"; "multi-agent" and "sub-agent" name no role.
_HYPHENATED = re.compile(r"(?<=[a-z]{4})(?<!multi)-(?=(?:agent|assistant|bot)(?:s|en)?\b)")
_WORDS = re.compile(r"[a-z][a-z-]*")
_PUNCT = re.compile(r"[,.;:!?()\n]")


def agent_noun_roles(norm: str) -> list[Role]:
    """"a sales or refunds agent", "the translation agent that ...": "<noun> agent" roles."""
    out = []
    norm = _HYPHENATED.sub(" ", norm)  # "Search-Agent" is a search agent
    for m in _AGENT_NOUN.finditer(norm):
        raw = m.group(1).split()
        # Only the words after the last function word name the agent: "it runs a
        # translation agent", never "arguments per agent" or "you ask one agent".
        cut = max((k + 1 for k, w in enumerate(raw)
                   if (is_filler(w) and w not in ("and", "or")) or w in _CUTS), default=0)
        if m.group(3) and cut and raw[cut - 1] in _COUNTED:
            continue  # "four specialist agents" counts the agents a list then names
        # (a single letter is no word of a name: "Google's Agent Development Kit")
        words = [w for w in raw[cut:] if w not in ADJECTIVES and len(w) > 1]
        if (words and (words[0] in _CHOICE or any(w in _SYSTEM for w in words))) or (
                _MODIFIES.match(norm, m.end())):
            continue  # "decentralized agent orchestration" names the system, not an agent
        while words and is_filler(words[0]):
            words = words[1:]
        pair = _pair(words)
        if pair:  # "a sales or refunds agent", "store and supplier agents": two agents
            out += [Role(w, f"{w} {m.group(2)}", "", "agent_noun", m.start() + k)
                    for k, w in enumerate(pair)]
            continue
        if m.group(3) and not (len(words) == 1 and words[0] not in BARE
                               and (is_role_word(words[0]) or words[0] in _PEOPLE)):
            continue  # "cooperating agents" names no one agent; "supplier agents" a kind
        rest = norm[m.end():].split("\n", 1)[0]  # a duty ends with its line
        if _HAS_SUBAGENTS.match(rest):
            continue  # "a research agent ... with specialized sub-agents" is the whole system
        if IS_ANOTHER.search(f"{norm[max(0, m.start() - 60):m.start()]} {' '.join(raw[:cut])}"):
            continue  # "the YouTube Agent is a multimodal agent": what that agent is
        duty = first_clause(rest).strip(" ,:")
        if not words or any(is_filler(w) for w in words) or (
                words[-1] in _NO_SPECIALTY and not _LEADS_OTHERS.search(duty)):
            continue  # "a team agent for coordinating between agents" leads them
        duty = re.sub(r"^(?:who|that|which|to|will|should|must)\s+", "", duty)[:200]
        title = " ".join([*words, m.group(2)])
        out.append(Role(slug(title_words(title)), title, duty, "agent_noun", m.start()))
    return out


# An agent said to be another: "The YouTube Agent is a multimodal autonomous agent".
IS_ANOTHER = re.compile(r"\b(?:agent|assistant|bot)s?\s+(?:is|was|acts as|serves as|works as)"
                        r"(?:\s+(?:a|an|the|one))?\s*$")
# The rest of a sentence that gives the agent agents of its own.
_HAS_SUBAGENTS = re.compile(r"[^.;\n]{0,80}\b(?:with|using|made of|composed of|that has|"
                            r"which has)\b[^.;\n]{0,40}\bsub-?agents\b")


# "billing, technical or sales specialists", "research, writing and editing agents": one
# agent per kind of work listed before a plural role noun.
_KINDS = re.compile(r"\b((?:[a-z][a-z-]*,\s+){1,5}[a-z][a-z-]*,?\s+(?:and|or)\s+[a-z][a-z-]*)\s+"
                    r"(agent|assistant|bot|specialist|expert)s\b")


def listed_kind_roles(norm: str) -> list[Role]:
    """One role per kind of work a list names before a plural role noun."""
    out = []
    for m in _KINDS.finditer(norm):
        kinds = [k for k in re.split(r",?\s+(?:and|or)\s+|,\s*", m.group(1)) if k]
        if any(is_filler(k) or k in _NOT_NOUNS or k in ADJECTIVES or k in _FILLER_WORDS
               for k in kinds):
            continue  # "other, later or better agents" names no kind of work
        head = m.group(2)
        for k, kind in enumerate(kinds):
            name = slug([kind] if head in ("agent", "assistant", "bot") else [kind, head])
            out.append(Role(name, f"{kind} {head}", "", "agent_noun", m.start() + k))
    return out


def _pair(words: list[str]) -> tuple[str, str] | None:
    """("sales", "refunds") of "sales or refunds", else None."""
    if len(words) == 3 and words[1] in ("or", "and") and not {words[0], words[2]} & (
            _NOT_NOUNS | _FILLER_WORDS):
        return words[0], words[2]
    return None


# Words of NOT_ROLES that name no kind of work either ("other or later agents"); "calendar and
# email agents" are two agents.
_NOT_NOUNS = frozenset("other after under either whether rather never ever over later together "
                       "further whatever however another better faster proper upper lower major "
                       "minor senior junior prior super cheaper deeper relevant important "
                       "significant constant instant "
                       # a place in a turn order names no one ("after the last agent responded")
                       "last first next previous final same current initial following "
                       "preceding".split())
# Words before "agent" that name no specialty ("the other agent", "a user agent", "the master
# agent"); other non-person -er nouns do ("browser agent", "weather agent", "reminder agent").
_NO_SPECIALTY = _NOT_NOUNS | frozenset("user users master server member members matter number "
                                       "team".split())
_FILLER_WORDS = frozenset("a an the one this that these those".split())
_CODE = re.compile(r"`([a-z][a-z0-9]*(?:[_ -][a-z0-9]+){0,3})`")
_AGENT_WORDS = frozenset("agent assistant bot".split())
# `create_react_agent`, `make_supervisor_agent`: a function that makes agents, not one of them.
_FACTORY_VERBS = frozenset("create make build new init spawn load setup get run".split())


def code_roles(norm: str) -> list[Role]:
    """"`planner_agent` comes up with a plan": a code name of an agent between backticks."""
    out = []
    for m in _CODE.finditer(norm):
        if norm.rfind("\n", 0, m.start()) + 1 == norm.find("|", norm.rfind("\n", 0, m.start())):
            continue  # a table row: its cells are read as one role by the list rules
        words = re.split(r"[_ -]", m.group(1))
        if words[0] in _FACTORY_VERBS:
            continue
        if not (words[-1] in _AGENT_WORDS or (len(words) <= 3 and is_role_word(words[-1])
                                               and words[-1] not in BARE)):
            continue
        head = [w for w in words if w not in _AGENT_WORDS] or words
        if any(is_filler(w) for w in head):
            continue
        duty = first_clause(norm[m.end():].split("\n", 1)[0]).strip(" ,:")
        duty = re.sub(r"^(?:which|who|that|to|will|should|must)\s+", "", duty)[:200]
        out.append(Role(slug(title_words(" ".join(words))), " ".join(words), duty, "code",
                        m.start()))
    return out
# People a pair of agents may act for ("store and supplier agents").
_PEOPLE = frozenset("supplier vendor seller buyer customer partner provider merchant investor "
                    "player visitor tenant owner".split())
_LEADS_OTHERS = re.compile(r"\b(?:coordinat|orchestrat|delegat|supervis)\w*")
# ... and conjunctions of the other languages ("Retailer-Agenten und Supplier-Agenten").
_CUTS = frozenset("per each every any some no und oder et ou y и или von für mit zur zum der des "
                   "du pour avec del para con da dos das two three four five six seven eight nine "
                   "ten".split())  # ... and counts: "a five-agent system" names no "five" agent
_COUNTED = frozenset("two three four five six seven eight nine ten".split())
# "the right expert agent" names a choice among the agents, not one of them; "its own agent",
# "a separate agent" say there is one more, not who it is.
_CHOICE = frozenset("right appropriate relevant correct specific proper suitable respective "
                    "next same own separate dedicated individual".split())
# "an AI-powered multi-agent assistant" is the whole system.
_SYSTEM = frozenset("multi-agent multiagent ai-powered human-in-the-loop humanintheloop hitl "
                    "pydantic langgraph langchain crewai autogen openai llamaindex smolagents "
                    "agno dspy haystack".split())  # a kind of system, or the library it runs on
# "agent" as a modifier of the system's parts: "agent orchestration", "agent frameworks".
_MODIFIES = re.compile(r"[ \t]+(?:orchestration|frameworks?|systems?|architectures?"
                       r"|patterns?|platforms?|sdks?|runtimes?|librar(?:y|ies)|design|applications?"
                       r"|apps?|handoffs?|mechanisms?|builders?|studios?|kits?|toolkits?)\b")


_ONE = re.compile(r"\bone (?:agent|of them|bot)\b([^.;!?]*)")
# "one searches, one analyzes, one writes": each "one" is an agent named by its verb.
_ONE_DOES = re.compile(r"\bone ([a-z]{3,}(?<!s)s)\b([^,;.!?]{0,60})")
_VERB_NOUN = {"analyze": "analyst", "analyse": "analyst", "edit": "editor", "plan": "planner",
              "audit": "auditor", "critique": "critic", "translate": "translator",
              "research": "researcher", "summarize": "summarizer", "verify": "verifier",
              "coordinate": "coordinator", "review": "reviewer", "design": "designer"}


def one_each_roles(norm: str) -> list[Role]:
    """Agents each named after its verb in a series of "one <verb>s".

    "A team that researches any topic - one searches, one analyzes, one writes": a
    searcher, an analyst and a writer.
    """
    out: list[Role] = []
    for sentence in re.finditer(r"[^.!?\n]+", norm):
        hits = list(_ONE_DOES.finditer(sentence.group(0)))
        if len(hits) < 2:
            continue
        for h in hits:
            noun = _agent_of(h.group(1))
            if noun:
                out.append(Role(noun, noun, f"{h.group(1)}{h.group(2)}".strip(),
                                "clause", sentence.start() + h.start()))
    return out


# "each AI agent specializes in a specific task: generating ideas, critiquing them, creating
# roadmaps ... and building pitch decks": one agent per task, named from its verb and object.
_EACH_TASK = re.compile(r"\beach (?:\w+ )?agent\b[^:.!?]{0,60}:\s*([^.!?]{20,400})")
_GERUND = re.compile(r"^(?:and |then )?([a-z]{3,}ing)(?: (?:down|up|out))?\b(.*)$")
_PRONOUN = frozenset("them it this that these those the a an its their our your".split())


def each_task_roles(norm: str) -> list[Role]:
    """Agents named after the tasks a sentence gives each of them, three to eight."""
    m = _EACH_TASK.search(norm)
    if m is None:
        return []
    items = [i.strip() for i in re.split(r",\s*|\s+and\s+", m.group(1)) if i.strip()]
    gerunds = [g for i in items if (g := _GERUND.match(i))]
    if not 3 <= len(gerunds) <= 8 or len(gerunds) < len(items) - 1:
        return []
    out: list[Role] = []
    for g in gerunds:
        noun = _agent_of_gerund(g.group(1))
        obj = [w for w in re.findall(r"[a-z]+", g.group(2).split(" with ")[0])
               if w not in _PRONOUN][:2]
        words = [*(w[:-1] if w.endswith("s") and not w.endswith("ss") else w for w in obj),
                 noun]
        duty = re.sub(r"^(?:and|then) ", "", g.group(0).strip())
        out.append(Role("_".join(words), " ".join(words), duty, "clause",
                        m.start(1) + len(out)))
    return out


def _agent_of_gerund(verb: str) -> str:
    """The agent noun of a gerund ("generating" -> "generator", "building" -> "builder")."""
    stem = verb[:-3]
    if len(stem) > 3 and stem[-1] == stem[-2]:  # "planning"
        stem = stem[:-1]
    for base in (stem, stem + "e"):
        if base in _VERB_NOUN:
            return _VERB_NOUN[base]
    return stem + ("or" if stem.endswith(("at", "ct", "it")) else "er")


def _agent_of(verb: str) -> str:
    """The agent noun of a verb in the third person ("searches" -> "searcher")."""
    stem = verb[:-2] if re.search(r"(?:ch|sh|ss|x)es$", verb) else verb[:-1]
    if stem in _VERB_NOUN:
        return _VERB_NOUN[stem]
    noun = stem + ("r" if stem.endswith("e") else "er")
    return noun if is_role_word(noun) else ""


def one_another(norm: str) -> int:
    """Agents enumerated in one sentence: "one agent checks ..., another finds ..., and one ..."."""
    m = _ONE.search(norm)
    if m is None:
        return 0
    rest = m.group(1)
    return 1 + len(re.findall(r"\banother\b", rest)) + len(re.findall(r"(?:,|\band) one\b",
                                                                       rest))


_ORDINAL = re.compile(r"\b(?:one|another|an?other|a (?:second|third|fourth|fifth)|the (?:first|"
                      r"second|third|fourth|fifth|other|last))(?: (?:agent|bot|assistant|one))?"
                      r"(?: (?:that|who|which|will|should|can|then))?\s+([a-z]{3,}?)(e?s)\b"
                      r"([^,;.!?]*?)(?=[,;.!?]|$|\s+(?:and|then|while)\s+(?:one|another|an?other"
                      r"|a (?:second|third|fourth|fifth)|the (?:other|last))\b)")


def ordinal_roles(norm: str) -> list[Role]:
    """"One agent researches the topic, another writes the draft, a third reviews it".

    Each agent is named after the verb of its duty ("researcher", "writer", "reviewer").
    """
    m = _ONE.search(norm)
    if m is None:
        return []
    sentence = norm[m.start():m.end()]
    out = []
    for hit in _ORDINAL.finditer(sentence):
        stem, ending, rest = hit.groups()
        if (stem.endswith("s") and ending == "s") or stem in _NOT_VERBS:
            continue  # "one agent is", "another class"
        name = _doer(stem, ending)
        out.append(Role(name, name, f"{stem}{ending}{rest}".strip()[:200], "ordinal",
                        m.start() + hit.start()))
    titles = [r.title for r in out]
    # Two that check: "details_checker" and "duplicates_checker", after what each works on.
    out = [replace(r, name=f"{_object(r.duty)}_{r.name}".strip("_"))
           if titles.count(r.title) > 1 else r for r in out]
    return out if len(out) >= 2 else []


def _object(duty: str) -> str:
    """The first content word after a duty's verb ("checks if details are complete": details)."""
    return next((w for w in _WORDS.findall(duty)[1:] if not is_filler(w) and w not in _CUTS
                 and w not in ("if", "whether", "all", "any")), "")


_NOT_VERBS = frozenset("i ha doe wa thi it".split())


def _doer(stem: str, ending: str) -> str:
    """The agent noun of a verb in the third person: "writes" writer, "plans" planner."""
    if ending == "es" and not stem.endswith(("sh", "ch", "ss", "x", "z", "o")):
        stem += "e"  # "analyzes", "writes"
    if stem.endswith("ate"):  # "estimates", "translates"
        return f"{stem[:-1]}or"
    if stem.endswith("e"):
        return f"{stem}r"
    if stem.endswith("y") and ending == "es":
        return f"{stem[:-1]}ier"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnpt]", stem):  # "plan", "scan"
        return f"{stem}{stem[-1]}er"
    return f"{stem}er"
