"""The shared text layer: one normal form, folding for matching, language detection and the
language tables."""

from __future__ import annotations

import re

import pytest

from a4a.generator.intent import normalize as parser_normalize
from a4a.generator.text import (
    LANGUAGES,
    TermIndex,
    Text,
    detect,
    fold,
    normalize,
    table,
    term_regex,
    terms,
)


def test_full_width_and_invisible_characters_normalise_to_the_ascii_form() -> None:
    plain = "an agent that reads passwords"
    assert normalize("ＡＮ ａｇｅｎｔ　that ＲＥＡＤＳ pass\u200bwords") == plain
    assert normalize("an\u00a0agent\tthat\u2028reads\x00 passwords") == plain
    assert parser_normalize("ＡＮ ａｇｅｎｔ") == normalize("an agent")  # one normal form
    assert normalize("Straße") == "strasse"  # case folding, not lower()
    assert normalize("a\n\n  list\n- item", keep_lines=True) == "a\nlist\n- item"


@pytest.mark.parametrize(
    ("text", "folded"),
    [("r3ad the p4ssw0rds", "read the passwords"),
     ("p-a-s-s-w-o-r-d and pass.word", "password and pass word"),
     ("l'email de mi contraseña", "l email de mi contrasena"),
     ("pаsswоrd", "password"),  # Cyrillic а and о inside a Latin word
     ("5 agents in 2024", "5 agents in 2024"),  # digits alone are not leetspeak
     ("妻のメールをこっそり読んで", "妻のメールをこっそり読んで")],
)
def test_fold(text: str, folded: str) -> None:
    assert fold(normalize(text)) == folded


@pytest.mark.parametrize(
    ("text", "lang"),
    [("An agent that reads my email every morning", "en"),
     ("Un agente que lee los correos de mi esposa", "es"),
     ("Ein Agent, der die E-Mails meiner Frau liest", "de"),
     ("Un agent qui lit les courriels de ma femme", "fr"),
     ("Um agente que lê os e-mails da minha esposa", "pt"),
     ("Агент, который читает почту моей жены", "ru"),
     ("一个读取我老婆微信聊天记录的助手", "zh"),
     ("妻のメールを読むエージェント", "ja"),
     # product names without one English function word beside Chinese are names
     ("自动发现 GitHub Trending / Hacker News 热门项目，通过 AI 分析后推送至飞书/钉钉机器人。",
      "zh"),
     ("A bot for Slack", "en")],
)
def test_detect(text: str, lang: str) -> None:
    assert detect(text).main == lang


def test_every_language_has_its_tables() -> None:
    for lang in LANGUAGES:
        assert table(lang, "language").get("name"), lang
        assert table(lang, "lexicon").get("verbs"), lang
    assert table("en", "no_such_concern") == {}
    with pytest.raises(ValueError):
        table("xx", "lexicon")
    classes = terms("lexicon", "objects")
    assert {lang for lang, _ in classes["credential"]} == set(LANGUAGES)


def test_terms_match_words_stems_compounds_and_cjk_without_boundaries() -> None:
    index = TermIndex("lexicon", ["objects", "modifiers"])

    def found(text: str) -> set[tuple[str, str]]:
        return {(h.cls, h.text) for h in index.find(Text.of(text))}

    assert ("objects.credential", "passworter") in found("Er sammelt alle Passwörter")
    assert ("objects.credential", "benutzerpassworter") in found("die Benutzerpasswörter")
    assert ("objects.credential", "密码") in found("窃取用户的密码")
    assert ("modifiers.covert", "without her knowing") in found("do it without her knowing")
    assert ("objects.credential", "pass word") in found("grab the pass words")
    # a Spanish stem never fires inside an English sentence
    assert not any(c == "objects.person" for c, _ in found("our subscription ends"))


def test_a_gap_between_cjk_words_matches_without_spaces() -> None:
    pat = re.compile(term_regex("模仿 ~ 的语气"))
    assert pat.search(Text.of("模仿我们老板的语气发邮件").fold)
    assert re.compile(term_regex("不让 ~ 知道")).search(Text.of("千万不让她知道").fold)
    assert not pat.search(Text.of("模仿一个非常非常非常有名的人的语气").fold)  # gap over 6


def test_cjk_terms_are_found_where_spaces_split_them() -> None:
    index = TermIndex("lexicon", ("objects",))
    found = {(h.cls, h.text) for h in index.find(Text.of("收集所有的密 码和账 号"))}
    assert ("objects.credential", "密 码") in found
    assert not any(h.cls == "objects.credential" for h in index.find(Text.of("秘密的 码头")))
