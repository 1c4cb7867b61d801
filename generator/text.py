"""The shared text layer of the policy and the request parser.

One normalisation, language detection, term matching and the language tables both read.

Normal forms
    `normalize(text)`  NFKC, case folding, format characters (zero-width, bidi, soft hyphen)
                       and control characters removed, whitespace collapsed. Full-width text
                       gives the same string as its ASCII twin. The parser and the policy read
                       this form.
    `fold(norm)`       the matching form: leetspeak folded inside words that mix letters and
                       digits ("p4ssw0rd"), Cyrillic/Greek look-alikes folded inside Latin
                       words, accents stripped on Latin and Cyrillic letters, separators inside
                       words ("pass-word", "e.mail", "l'email") made spaces, and spelled-out
                       letters ("p a s s w o r d") joined. Term matching runs on this form.

Language tables
    `templates/lang/<code>/<concern>.yaml` for each code in LANGUAGES. One file per concern, so
    that different owners never edit the same file:

    language.yaml  name, script, `stopwords` (common function words, for detection)
    lexicon.yaml   term classes the policy reads, in sections: `verbs`, `objects`,
                   `modifiers`, `ownership`, `scope` ({class: [term, ...]})
    analysis.yaml  (the request parser's) role nouns, cue phrases, number words, ...

    A concern file is a YAML mapping; any section whose value is {class: [term, ...]} is a term
    section that `terms()` and `TermIndex` read. Other shapes (e.g. {word: number}) are read
    raw with `table()`. Adding a concern or a section needs no change here.

Term syntax (each term is normalised and folded like the text before compiling)
    word        the whole word                      "wife" matches "wife", "wife's", not "wifey"
    word*       a word that starts so               "track*" matches "tracks", "tracking"
    *word*      a word that contains it (compounds) "*passwort*" matches "benutzerpasswörter"
    a b         words in sequence                   "browsing history"
    a ~ b       at most one word between them       "without ~ knowing": "without her knowing"
    Chinese and Japanese terms match anywhere, with no word boundaries ("密码", "こっそり"),
    and `~` between them allows a few characters. In YAML flow lists a term that starts with
    `*` must be quoted ("*passwort*"); YAML booleans (no, on, off, false) must be quoted too.
    Terms of at least LONG_TERM letters also match when split by spaces ("pass word").

API
    LANGUAGES, normalize(text, keep_lines=False), fold(norm), detect(text) -> Detection,
    table(lang, concern) -> dict, tables(concern) -> {lang: dict},
    terms(concern, section) -> {class: ((lang, term), ...)} over all languages,
    compile_terms(terms) -> regex, TermIndex(concern, sections).find(Text) -> [Hit],
    Text.of(raw) -> Text (raw, norm, fold, detection).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from importlib import resources
from typing import Any

from a4a.runtime.loader.yamlio import load_yaml_text

LANGUAGES = ("en", "zh", "ja", "es", "de", "fr", "pt", "ru")
LONG_TERM = 7
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a",
                       "$": "s"})
# Cyrillic and Greek letters that look Latin, folded only inside words that also hold Latin.
_LOOKALIKE = str.maketrans(dict(zip("авсеһікмнорѕтхујԁαβεικνορτυχ",
                                    "abcehikmhopstxyjdabeiknoptux", strict=True)))
# A whole token that holds a digit, "@" or "$": the only tokens leetspeak folding can change.
_LEET_TOKEN = re.compile(r"[\w@$]*[0-9@$][\w@$]*")
_LATIN_LETTER_AZ = re.compile("[a-z]")
_LATIN_WORD = re.compile(r"\w*[a-z]\w*")
_NON_LATIN_ALPHA = re.compile(r"[\u0370-\u04ff]")
_INNER_SEP = re.compile(r"(?<=\w)(?:[-_.*·/\\|+'’ʼ`]+)(?=\w)")
_SPELLED = re.compile(r"(?<!\w)\w(?: \w(?!\w)){2,}")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]")
_KANA = re.compile(r"[\u3040-\u30ff\uff66-\uff9f]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
# A dot or colon inside a token ("~/.cache", "https://") ends no sentence.
_SENTENCE = re.compile(r"(?:[^.!?;:。！？；：\n]|\.(?=[\w/~])|:(?=/))+[.!?;:。！？；：\n]*")
# Code in a sentence (backtick spans, paths, flags, calls) says nothing of its language:
# "à quoi sert `rm -rf ~/.cache`" is French.
_CODE = re.compile(r"`[^`]*`?|\S*[/~\\|=<>(){}\[\]$@#]\S*|(?<!\w)--?\w[\w-]*")
_LATIN_LANGS = ("en", "es", "de", "fr", "pt")
_LATIN_LETTER = re.compile(r"[a-z\u00c0-\u024f]")


_ASCII_CONTROL = {c: None for c in [*range(32), 127] if not chr(c).isspace()}


def normalize(text: str, keep_lines: bool = False) -> str:
    """NFKC, case-folded, format/control characters removed, whitespace collapsed.

    With `keep_lines`, line breaks survive (one per line, blank lines dropped) so that lists
    and headings stay readable; everything else is the same.
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():  # the control characters of ASCII, but for whitespace
        text = text.translate(_ASCII_CONTROL)
    else:
        text = "".join(ch for ch in text if ch.isspace() or unicodedata.category(ch)[0] != "C")
    if keep_lines:
        lines = (" ".join(line.split()) for line in text.splitlines())
        return "\n".join(line for line in lines if line)
    return " ".join(text.split())


def fold(norm: str) -> str:
    """The matching form of normalised text (see the module docstring)."""
    text = _LEET_TOKEN.sub(_unleet, norm)
    if _NON_LATIN_ALPHA.search(text):
        text = _LATIN_WORD.sub(lambda m: m.group(0).translate(_LOOKALIKE), text)
    text = _strip_accents(text)
    text = _INNER_SEP.sub(" ", text)
    text = _SPELLED.sub(lambda m: m.group(0).replace(" ", ""), text)
    return " ".join(text.split())


def _unleet(m: re.Match[str]) -> str:
    word = m.group(0)
    # Latin words only (accents too: "b3trüg3r"); digits in other scripts are no disguise.
    if all(c < "\u0250" for c in word) and _LATIN_LETTER_AZ.search(word):
        return word.translate(_LEET)
    return word


def _strip_accents(text: str) -> str:
    if text.isascii():
        return text
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", text):
        # Kana voicing marks are combining too; only Latin/Greek/Cyrillic bases lose theirs.
        if unicodedata.combining(ch) and out and out[-1] < "\u0500":
            continue
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


@dataclass(frozen=True)
class Detection:
    """The languages a text is written in: `main` first, then any other with real evidence."""

    main: str
    langs: tuple[str, ...]
    scores: tuple[tuple[str, float], ...]


@lru_cache(maxsize=256)
def detect(text: str) -> Detection:
    """Detect which of LANGUAGES `text` is written in (script first, then stopwords).

    Cached: the analysis and the tool ranking ask it of the same request.
    """
    norm = normalize(text)
    letters = max(1, sum(ch.isalpha() for ch in norm))
    cjk = len(_CJK.findall(norm))
    kana = len(_KANA.findall(norm))
    scores: dict[str, float] = dict.fromkeys(LANGUAGES, 0.0)
    scores["ja"] = kana / letters + (cjk - kana) / letters * (0.5 if kana else 0.0)
    scores["zh"] = 0.0 if kana > 2 else (cjk - kana) / letters
    scores["ru"] = len(_CYRILLIC.findall(norm)) / letters
    latin = len(_LATIN_LETTER.findall(norm)) / letters
    words = re.findall(r"[^\W\d_]+", fold(norm))
    if words and latin:
        counts = {lang: sum(w in _stopwords(lang) for w in words) for lang in LANGUAGES}
        total = sum(counts[lang] for lang in ("en", "es", "de", "fr", "pt")) or 1
        for lang in ("en", "es", "de", "fr", "pt"):
            scores[lang] = latin * counts[lang] / total
        if total == 1 and not any(counts.values()) and not (cjk or scores["ru"]):
            scores["en"] = latin  # (beside CJK or Cyrillic, Latin words without a single
            # function word are names: "通过 AI 分析后推送至飞书" around "GitHub Trending")
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], LANGUAGES.index(kv[0])))
    main = ranked[0][0] if ranked[0][1] > 0 else "en"
    langs = tuple(lang for lang, s in ranked if s >= 0.15 or lang == main)
    return Detection(main, langs, tuple((lang, round(s, 3)) for lang, s in ranked if s))


def _segment_langs(sentence: str, main: str) -> frozenset[str]:
    """Languages a folded sentence may be read in.

    Its script's languages, and for Latin script the ones whose function words it uses (the
    text's main language when it has none).
    """
    langs: set[str] = set()
    if _CJK.search(sentence):
        langs |= {"zh", "ja"}
    if _CYRILLIC.search(sentence):
        langs.add("ru")
    words = re.findall(r"[a-z\u00c0-\u024f]+", _CODE.sub(" ", sentence))
    if words:
        counts = {lang: sum(w in _stopwords(lang) for w in words) for lang in _LATIN_LANGS}
        top = max(counts.values())
        if top:
            langs |= {lang for lang, c in counts.items() if c >= max(1, 0.6 * top)}
        else:
            langs.add(main if main in _LATIN_LANGS else "en")
    return frozenset(langs or {main})


@cache
def _stopwords(lang: str) -> frozenset[str]:
    return frozenset(fold(normalize(w)) for w in table(lang, "language").get("stopwords", ()))


@cache
def table(lang: str, concern: str) -> Mapping[str, Any]:
    """`templates/lang/<lang>/<concern>.yaml` as a mapping ({} when the file is absent)."""
    if lang not in LANGUAGES or not re.fullmatch(r"[a-z_]+", concern):
        raise ValueError(f"unknown language table {lang}/{concern}")
    ref = resources.files("a4a.templates").joinpath("lang", lang, f"{concern}.yaml")
    if not ref.is_file():
        return {}
    data = load_yaml_text(ref.read_text("utf-8"), f"lang/{lang}/{concern}.yaml", trusted=True)
    return data if isinstance(data, dict) else {}


def tables(concern: str) -> dict[str, Mapping[str, Any]]:
    """The `concern` table of every language, keyed by language code."""
    return {lang: table(lang, concern) for lang in LANGUAGES}


@cache
def terms(concern: str, section: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """The term classes of `section` in `concern`, over all languages: {class: ((lang, term))}."""
    out: dict[str, list[tuple[str, str]]] = {}
    for lang, data in tables(concern).items():
        for cls, items in (data.get(section) or {}).items():
            for t in items or ():
                if not isinstance(t, str):
                    raise ValueError(f"lang/{lang}/{concern}.yaml: {section}.{cls} holds "
                                     f"{t!r}, not text (quote it)")
                out.setdefault(str(cls), []).append((lang, t))
    return {cls: tuple(items) for cls, items in out.items()}


def _word_regex(core: str, head: bool, tail: bool) -> str:
    if _CJK.search(core):
        return re.escape(core)
    return ((r"\w*" if head else r"(?<!\w)") + re.escape(core)
            + (r"\w*" if tail else r"(?!\w)"))


def term_regex(term: str) -> str:
    """The regex source of one term (see Term syntax); it matches the folded form."""
    words: list[str] = []  # regex pieces, "?" for a gap
    cjk: list[bool] = []
    for raw in term.split():
        if raw == "~":
            words.append("~")
            cjk.append(False)
            continue
        cores = fold(normalize(raw.strip("*"))).split()
        for i, core in enumerate(cores):
            head = raw.startswith("*") and i == 0
            tail = raw.endswith("*") and i == len(cores) - 1
            words.append(_word_regex(core, head, tail))
            cjk.append(bool(_CJK.search(core)))
    out: list[str] = []
    for i, w in enumerate(words):
        near_cjk = cjk[i] or (i > 0 and cjk[i - 1]) or (i + 1 < len(words) and cjk[i + 1])
        if w == "~":
            out.append(r".{0,6}?" if near_cjk else r"(?:\S+ )?")
            continue
        out.append(w)
        if i + 1 < len(words) and words[i + 1] != "~":
            out.append(" ?" if cjk[i] or cjk[i + 1] else " ")
        elif i + 1 < len(words) and not near_cjk:
            out.append(" ")
    return "".join(out)


def has_cjk(text: str) -> bool:
    """Whether `text` holds Chinese or Japanese characters."""
    return _CJK.search(text) is not None


def literal_regex(words: Iterable[str]) -> str:
    """Regex source matching any of `words`, longest first, as a trie of shared prefixes.

    Same matches as a longest-first alternation of the words, but each position costs one walk
    down the trie instead of one attempt per word, which matters for thousands of terms.
    """
    trie: dict[str, Any] = {}
    for word in filter(None, words):
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    return _trie_source(trie)


def _trie_source(node: dict[str, Any]) -> str:
    alts = [re.escape(ch) + _trie_source(child) for ch, child in sorted(node.items()) if ch]
    if not alts:
        return ""
    body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
    if "" not in node:
        return body
    return (body + "?") if len(alts) == 1 and len(alts[0]) == 1 else f"(?:{body})?"


def compile_terms(items: Iterable[str]) -> re.Pattern[str] | None:
    """One regex for a set of terms, longest first; None when there are none."""
    sources = sorted({term_regex(t) for t in items if t.strip()}, key=lambda s: (-len(s), s))
    return re.compile("|".join(f"(?:{s})" for s in sources)) if sources else None


@dataclass(frozen=True)
class Hit:
    """One term class found in a text: where (in `Text.fold`), what and in which language."""

    cls: str
    start: int
    end: int
    text: str
    lang: str


@dataclass(frozen=True)
class Text:
    """A text in all its forms, computed once and shared by every matcher."""

    raw: str
    norm: str
    fold: str

    @staticmethod
    def of(raw: str) -> Text:
        """Normalise and fold `raw`."""
        norm = normalize(raw)
        return Text(raw, norm, fold(norm))

    @cached_property
    def compact(self) -> tuple[str, tuple[int, ...]]:
        """The folded text without spaces, and each character's index in `fold`."""
        idx = tuple(i for i, ch in enumerate(self.fold) if ch != " ")
        return "".join(self.fold[i] for i in idx), idx

    @cached_property
    def detection(self) -> Detection:
        """The languages of the text."""
        return detect(self.raw)

    @cached_property
    def segments(self) -> tuple[tuple[int, frozenset[str]], ...]:
        """Sentence starts in `fold` with the languages each sentence may be read in."""
        main = self.detection.main
        out = []
        for m in _SENTENCE.finditer(self.fold):
            out.append((m.start(), _segment_langs(m.group(0), main)))
        return tuple(out) or ((0, frozenset({main})),)

    def langs_at(self, pos: int) -> frozenset[str]:
        """The languages of the sentence holding `pos` (in `fold`)."""
        starts = [s for s, _ in self.segments]
        return self.segments[max(0, bisect_right(starts, pos) - 1)][1]


Token = tuple[str, str]  # (kind, core): "=" word, "^" prefix, "$" suffix, "%" infix, "~" gap
Owner = tuple[str, str]  # (class, language)


def term_tokens(term: str) -> tuple[Token, ...]:
    """A Latin/Cyrillic term as word tokens (see Term syntax), folded like the text."""
    out: list[Token] = []
    for raw in term.split():
        if raw == "~":
            out.append(("~", ""))
            continue
        cores = fold(normalize(raw.strip("*"))).split()
        for i, core in enumerate(cores):
            head = raw.startswith("*") and i == 0
            tail = raw.endswith("*") and i == len(cores) - 1
            out.append(({(False, False): "=", (False, True): "^", (True, False): "$",
                         (True, True): "%"}[(head, tail)], core))
    return tuple(out)


def _token_fits(tok: Token, word: str) -> bool:
    kind, core = tok
    if kind == "=":
        return word == core
    if kind == "^":
        return word.startswith(core)
    if kind == "$":
        return word.endswith(core)
    return core in word


class TermIndex:
    """The term classes of some sections of one concern, over all languages.

    Matched word by word with dictionary look-ups, so thousands of terms cost little per request.
    """

    def __init__(self, concern: str, sections: Iterable[str],
                 drop: Collection[tuple[str, str, str]] = ()) -> None:
        """Index `sections` of `concern`, less the (class, lang, term) triples in `drop`."""
        owners: dict[str, list[Owner]] = {}
        for section in sections:
            for cls, items in terms(concern, section).items():
                for lang, term in items:
                    if (f"{section}.{cls}", lang, term) in drop:
                        continue
                    owners.setdefault(term.strip(), []).append((f"{section}.{cls}", lang))
        self._exact: dict[str, list[tuple[tuple[Token, ...], tuple[Owner, ...]]]] = {}
        self._prefix: dict[str, list[tuple[tuple[Token, ...], tuple[Owner, ...]]]] = {}
        self._other: list[tuple[tuple[Token, ...], tuple[Owner, ...]]] = []
        self._cjk: dict[str, list[tuple[re.Pattern[str], tuple[Owner, ...]]]] = {}
        long: dict[str, list[Owner]] = {}
        self._long_open: set[str] = set()  # long terms that may go on ("password*")
        for term, who in owners.items():
            self._add(term, tuple(dict.fromkeys(who)), long)
        alts = sorted(long, key=lambda w: (-len(w), w))
        self._long = re.compile(literal_regex(alts)) if alts else None
        self._long_owners = {w: tuple(dict.fromkeys(o)) for w, o in long.items()}
        self._prefix_lens = sorted({len(k) for k in self._prefix})
        self.classes = tuple(sorted({c for who in owners.values() for c, _ in who}))

    def _add(self, term: str, who: tuple[Owner, ...], long: dict[str, list[Owner]]) -> None:
        if _CJK.search(term):
            pat = re.compile(term_regex(term))
            first = fold(normalize(term.strip("*")))[:1]
            self._cjk.setdefault(first, []).append((pat, who))
            return
        toks = term_tokens(term)
        if not toks or toks[0][0] == "~":
            return
        kind, core = toks[0]
        table = self._exact if kind == "=" else self._prefix if kind == "^" else None
        if table is None:
            self._other.append((toks, who))
        else:
            table.setdefault(core, []).append((toks, who))
        joined = "".join(c for k, c in toks if k != "~")
        if len(joined) >= LONG_TERM and "~" not in (k for k, _ in toks):
            long.setdefault(joined, []).extend(who)
            if toks[-1][0] in ("^", "%"):
                self._long_open.add(joined)

    def find(self, text: Text, anywhere: Iterable[str] = ()) -> list[Hit]:
        """Every hit of every class in `text`, by position.

        A hit counts only in a sentence written in its language (so that a Spanish stem never
        fires inside English words), except for the classes in `anywhere` (borrowed
        vocabulary such as "password" or "keylogger", read in English terms everywhere).
        """
        free = frozenset(anywhere)
        hits = self._word_hits(text) + self._split_hits(text)
        if self._cjk and _CJK.search(text.fold):
            hits += self._cjk_hits(text.fold)
        keep = {h for h in hits if h.lang in text.langs_at(h.start)
                or (h.cls in free and h.lang == "en")}
        return sorted(keep, key=lambda h: (h.start, h.end, h.cls))

    def find_in(self, text: Text, lang: str) -> list[Hit]:
        """The hits of `lang`'s terms in `text`, whatever language its sentences read as.

        For short clauses of a text whose language is known from the whole (a duty clause of
        a German request), where detecting each sentence on its own says too little.
        """
        hits = self._word_hits(text) + self._split_hits(text)
        if self._cjk and _CJK.search(text.fold):
            hits += self._cjk_hits(text.fold)
        return sorted({h for h in hits if h.lang == lang}, key=lambda h: (h.start, h.end, h.cls))

    def _candidates(self, word: str) -> list[tuple[tuple[Token, ...], tuple[Owner, ...]]]:
        out = list(self._exact.get(word, ()))
        for n in self._prefix_lens:
            if n > len(word):
                break
            out += self._prefix.get(word[:n], ())
        return out + [t for t in self._other if _token_fits(t[0][0], word)]

    def _word_hits(self, text: Text) -> list[Hit]:
        words = [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(text.fold)]
        out = []
        for i, (start, _, word) in enumerate(words):
            for toks, who in self._candidates(word):
                end = _match_rest(toks, 1, words, i + 1)
                if end is not None:
                    stop = words[end - 1][1]
                    out += [Hit(c, start, stop, text.fold[start:stop], lang) for c, lang in who]
        return out

    def _cjk_hits(self, fold_text: str) -> list[Hit]:
        """Chinese and Japanese terms, also where spaces split them ("密 码")."""
        out = self._cjk_scan(fold_text, fold_text, None)
        squeezed, idx = _squeeze_cjk(fold_text)
        if idx is not None:
            out += self._cjk_scan(squeezed, fold_text, idx)
        return out

    def _cjk_scan(self, text: str, fold_text: str, idx: list[int] | None) -> list[Hit]:
        out = []
        for i, ch in enumerate(text):
            for pat, who in self._cjk.get(ch, ()):
                m = pat.match(text, i)
                if m:
                    start, end = (i, m.end()) if idx is None else (idx[i], idx[m.end() - 1] + 1)
                    out += [Hit(c, start, end, fold_text[start:end], lang) for c, lang in who]
        return out

    def _split_hits(self, text: Text) -> list[Hit]:
        """Long terms written with spaces inside ("pass word"), found on the compact form."""
        if self._long is None or " " not in text.fold:
            return []
        compact, idx = text.compact
        out = []
        for m in self._long.finditer(compact):
            start, end = idx[m.start()], idx[m.end() - 1] + 1
            span = text.fold[start:end]
            ends = end == len(text.fold) or not text.fold[end].isalnum()
            if " " in span and (start == 0 or not text.fold[start - 1].isalnum()) \
                    and (ends or m.group() in self._long_open):
                out += [Hit(c, start, end, span, lang) for c, lang in self._long_owners[m.group()]]
        return out


_WORD = re.compile(r"\w+")
_CJK_GAP = re.compile(r"(?<=[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]) +"
                      r"(?=[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])")


def _squeeze_cjk(fold_text: str) -> tuple[str, list[int] | None]:
    """The text without the spaces between two CJK characters, with each kept index.

    The indices point into `fold_text`; (text, None) when no such space is there.
    """
    if not _CJK_GAP.search(fold_text):
        return fold_text, None
    idx = [i for i, _ in enumerate(fold_text)]
    drop = {i for m in _CJK_GAP.finditer(fold_text) for i in range(m.start(), m.end())}
    kept = [i for i in idx if i not in drop]
    return "".join(fold_text[i] for i in kept), kept


def _match_rest(toks: tuple[Token, ...], t: int, words: list[tuple[int, int, str]],
                w: int) -> int | None:
    """Index after the last word matched by toks[t:] from words[w:], or None."""
    if t == len(toks):
        return w
    if toks[t][0] == "~":
        skip = _match_rest(toks, t + 1, words, w + 1) if w < len(words) else None
        return _match_rest(toks, t + 1, words, w) or skip
    if w < len(words) and _token_fits(toks[t], words[w][2]):
        return _match_rest(toks, t + 1, words, w + 1)
    return None
