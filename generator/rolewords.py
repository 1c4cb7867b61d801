"""The words of roles: which nouns name an agent, and the ASCII names made of them.

Shared by the request analysis (generator/analysis.py), the prose readers
(generator/prose.py) and the list readers (generator/lists.py); English prose is read by
these open rules, other languages by the tables of templates/lang/<code>/analysis.yaml
(generator/naming.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from a4a.generator.naming import AMPERSAND

# Nouns that name an agent even without an agentive suffix.
ROLE_WORDS = frozenset(
    "agent agents assistant bot expert specialist analyst advisor adviser editor critic judge "
    "guide clerk coach tutor mentor chef ceo cto cfo coo manager developer engineer designer "
    "architect scientist strategist auditor proofreader copywriter curator concierge secretary "
    "moderator facilitator officer proposer verifier validator triager liaison scout "
    "philosopher economist historian librarian technician physician consultant accountant "
    "participant representative rep lead pro con opponent proponent referee host "
    "psychologist therapist nutritionist journalist novelist artist proxy".split())
# Words with an agentive ending that are not agents (or not agents of the system).
NOT_ROLES = frozenset(
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
ADJECTIVES = frozenset(
    "the a an one each best staff senior junior private lead chief head principal top expert "
    "experienced seasoned skilled dedicated specialized specialised ai llm smart helpful "
    "friendly professional main final virtual digital personal new another second third "
    "first other separate single simple multi central general overall intelligent normal "
    "autonomous".split())
_AGENTIVE = re.compile(r"[a-z]{3,}(?:er|or|ist|ant|ian)s?$")
PLACEHOLDER = re.compile(r"\{[^}]*\}|\*\*|__|`")


@dataclass(frozen=True)
class Role:
    """A role the request names: an ASCII slug, the words as written and its duty clause."""

    name: str
    title: str
    duty: str
    source: str  # header | chain | box | bold | list | clause | agent_noun | lexicon
    position: int


def is_role_word(word: str) -> bool:
    """Whether `word` names an agent (a role noun or an agentive noun)."""
    w = word.lower()
    if w in ROLE_WORDS or w.rstrip("s") in ROLE_WORDS:
        return True
    return bool(_AGENTIVE.fullmatch(w)) and w not in NOT_ROLES and w.rstrip("s") not in NOT_ROLES


def slug(words: list[str]) -> str:
    """An ASCII snake_case name from words (at most the last three)."""
    ascii_words = [re.sub(r"[^a-z0-9]+", "", w.lower()) for w in words]
    kept = [w for w in ascii_words if w][-3:]
    return "_".join(kept)[:40]


def title_words(title: str) -> list[str]:
    """The words of a title that name the role: leading adjectives and a final "agent" off."""
    title = AMPERSAND.sub(r"\1n\2", PLACEHOLDER.sub(" ", title.lower()))  # "Q&A" -> qna
    words = re.findall(r"[a-z][a-z0-9-]*", title)
    while words and words[0] in ADJECTIVES:
        words = words[1:]
    if len(words) > 1 and words[-1] in ("agent", "agents"):
        words = words[:-1]
    return [w.rstrip("s") if w.endswith("ers") or w.endswith("ists") else w for w in words]


def is_filler(word: str) -> bool:
    """Function words that never belong in a role's name."""
    return word in _FILLER


PLURAL = frozenset("agents assistants workers members bots experts".split())
BARE = frozenset("agent agents assistant assistants worker workers member members bot bots "
                  "expert experts".split())
_FILLER = frozenset("a an the one and or of for with in on at by from into as is are be it its "
                    "this these "
                    "that which who to then also both among between across within via".split())


