"""``word_order``, ``word_order_permuted`` and ``end_of_sentence`` (Wehner 2019).

Hand-checked sentences are named by treebank and sent_id; every expectation below was read off
the CoNLL-U lines (surface tokens are numbered from 0, punctuation included, as the task counts
them). Invariants run over every shared treebank.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest
from conftest import all_treebanks
from ud_helpers import sentence

from polyprobe.builders.rendering import render
from polyprobe.builders.sentence import word_order as word_order_module
from polyprobe.builders.sentence.end_of_sentence import (
    LONG_BIN_STARTS,
    SHORT_BIN_STARTS,
    EndOfSentence,
    EndOfSentenceFit,
    lower_for_language,
    make_bins,
)
from polyprobe.builders.sentence.word_order import (
    LABELS,
    WordOrder,
    WordOrderFit,
    WordOrderPermuted,
    median_low,
    position_label,
    window_width,
)
from polyprobe.builders.task import Fit, Level, Shared, Task, TaskContext
from polyprobe.errors import UsageError
from polyprobe.hashing import lexical_key
from polyprobe.loaders.conllu import read_conllu
from polyprobe.loaders.records import Sentence
from polyprobe.loaders.sources import discover, read_sources

EWT = "UD_English-EWT"
IMST = "UD_Turkish-IMST"
LANG = {
    "Czech": "cs",
    "English": "en",
    "Finnish": "fi",
    "Georgian": "ka",
    "German": "de",
    "Russian": "ru",
    "Slovenian": "sl",
    "Spanish": "es",
    "Turkish": "tr",
}


def context_for(treebank: str, seed: int = 0) -> TaskContext:
    lang = LANG[treebank.split("_", 1)[1].split("-")[0]]
    return TaskContext(lang=lang, seed=seed, capitalises_nouns=lang == "de")


def stream(ud_dir: Path, treebank: str):
    return read_sources(discover([ud_dir / treebank]))


def fitted_together(sentences: Iterable[Sentence], *tasks: Task) -> list[tuple[Task, Fit]]:
    """The tasks with their fits after one first pass over ``sentences``, every sentence
    shown to all of them with one :class:`Shared`, as the build does."""
    observations = [t.observation() for t in tasks]
    for s in sentences:
        shared = Shared(s)
        for o in observations:
            o.observe(s, shared)
    return [(t, t.fit(o)) for t, o in zip(tasks, observations, strict=True)]


def observed(ud_dir: Path, treebank: str, *classes: type, seed: int = 0) -> list:
    """(task, fit) of the given classes after one first pass over the treebank."""
    context = context_for(treebank, seed)
    return fitted_together(stream(ud_dir, treebank), *(cls(None, context) for cls in classes))


def unobserved(task: Task) -> Fit:
    """The fit of a task that saw no sentence (options only)."""
    return task.fit(task.observation())


def word_order_fit(target: str, min_length: int, window: int) -> WordOrderFit:
    """A word_order fit set by hand (as a profile would fix it)."""
    return WordOrderFit(LABELS, target=target, min_length=min_length, window=window)


def candidates(task: Task, fit: Fit, s: Sentence) -> list:
    return task.candidates(s, fit, Shared(s))


def copies(task: Task, fit: Fit, s: Sentence) -> dict[str, str]:
    return {c.label: c.inputs["sentence"] for c in candidates(task, fit, s)}


# --- metadata and options -------------------------------------------------------------------


@pytest.mark.parametrize("cls", [WordOrder, WordOrderPermuted, EndOfSentence])
def test_metadata(cls: type) -> None:
    task = cls()
    meta = cls.metadata
    assert meta.level is Level.SENTENCE and task.input_columns == ("sentence", "tokens")
    assert task.observation() is not None and not meta.lexical_control
    assert "Wehner" in meta.citation and meta.description and meta.notes
    assert task.parameters(unobserved(task))
    assert meta.seed_dependent is (cls is not EndOfSentence)
    assert WordOrder.metadata.name == "word_order"
    assert WordOrderPermuted.metadata.name == "word_order_permuted"
    assert WordOrder.metadata.labels == WordOrderPermuted.metadata.labels == LABELS
    assert EndOfSentence.metadata.labels is None and EndOfSentence.metadata.labels_derived


@pytest.mark.parametrize(
    ("cls", "valid"),
    [
        (WordOrder, "target, min_length, window"),
        (WordOrderPermuted, "target, min_length, window"),
        (
            EndOfSentence,
            "bin_starts, n_bins, median_threshold, case, assume_file_order_documents",
        ),
    ],
)
def test_unknown_option_is_refused(cls: type, valid: str) -> None:
    name = cls.metadata.name
    with pytest.raises(UsageError, match=rf"\[tasks\.{name}\].*colour.*valid options: {valid}$"):
        cls.configure({"colour": "red"}, TaskContext())


@pytest.mark.parametrize(
    ("cls", "raw", "message"),
    [
        (WordOrder, {"min_length": "long"}, r"\[tasks\.word_order\] min_length"),
        (WordOrderPermuted, {"window": [4]}, r"\[tasks\.word_order_permuted\] window"),
        (EndOfSentence, {"n_bins": 7}, r"\[tasks\.end_of_sentence\] n_bins must be 6 or 8"),
        (EndOfSentence, {"bin_starts": [2, 5]}, r"\[tasks\.end_of_sentence\] bin_starts"),
        (EndOfSentence, {"bin_starts": "1, 5"}, r"\[tasks\.end_of_sentence\] bin_starts"),
        (EndOfSentence, {"case": "upper"}, r"\[tasks\.end_of_sentence\] case"),
        (
            EndOfSentence,
            {"assume_file_order_documents": "no"},
            r"\[tasks\.end_of_sentence\] assume_file_order_documents",
        ),
    ],
)
def test_bad_option_values_are_refused(cls: type, raw: dict, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        cls.configure(raw, TaskContext())


def test_options_are_coerced() -> None:
    t = WordOrder.configure({"target": "Year", "min_length": "11", "window": 4}, TaskContext())
    assert (t.options.target, t.options.min_length, t.options.window) == ("Year", 11, 4)
    t = EndOfSentence.configure({"bin_starts": [1, 7, 15], "n_bins": "6"}, TaskContext())
    assert t.options.bin_starts == (1, 7, 15) and t.options.n_bins == 6


# --- word_order: windows --------------------------------------------------------------------


def test_windows_never_overlap() -> None:
    """L in [9, 13] gives W = 4, 4, 4, 5, 5 (Wehner: 13/5 for en, 9/4 for tr) and 2W < L, so
    for every sentence of >= L tokens the three windows are disjoint and non-empty."""
    assert [window_width(L) for L in range(9, 14)] == [4, 4, 4, 5, 5]
    for L in range(9, 14):
        W = window_width(L)
        assert 2 * W < L
        for n in range(L, 60):
            labels = [position_label(i, n, W) for i in range(n)]
            assert labels == ["beginning"] * W + ["middle"] * (n - 2 * W) + ["end"] * W
    assert median_low(Counter({5: 2, 7: 2})) == 5 and median_low(Counter()) is None


def test_window_override_must_not_overlap() -> None:
    # Both set: refused when the task is made.
    with pytest.raises(UsageError, match="overlap"):
        WordOrder.configure({"min_length": 9, "window": 5}, context_for(EWT))
    # W set, L derived (13 without data): refused by the fit, once L is known.
    t = WordOrder.configure({"window": 7}, context_for(EWT))
    with pytest.raises(UsageError, match=r"\[tasks\.word_order\] window W=7 .* L=13 .*overlap"):
        unobserved(t)


# --- word_order: hand-checked ---------------------------------------------------------------


@pytest.fixture(scope="module")
def ewt_word_order(ud_dir: Path) -> list[tuple[Task, Fit]]:
    """[(word_order, fit), (word_order_permuted, fit)] after one first pass over EWT."""
    return observed(ud_dir, EWT, WordOrder, WordOrderPermuted)


def test_word_order_derived_ewt(ewt_word_order) -> None:
    """EWT: 'time' is the most frequent NOUN lemma (557 tokens, 'year' 400); the lower median
    of 16,622 sentence lengths is 13 -> L = 13, W = 5 (Wehner's English values)."""
    for t, fit in ewt_word_order:
        assert (fit.target, fit.target_count) == ("time", 557)
        assert (fit.report["median_length"], fit.min_length, fit.window) == (13, 13, 5)
        assert t.parameters(fit)["target"] == "time"
        assert fit.label_names == LABELS


def test_word_order_profile_round_trip(ewt_word_order) -> None:
    """The fit report, passed back as options (a printed profile), is accepted and fixes the
    same target, L and W; its informational keys are ignored."""
    for t, fit in ewt_word_order:
        again = type(t).configure(dict(fit.report), t.context)
        assert (again.options.target, again.options.min_length, again.options.window) == (
            "time", 13, 5,
        )  # fmt: skip
        refit = unobserved(again)
        assert (refit.target, refit.min_length, refit.window) == ("time", 13, 5)
        assert refit.report["target_source"] == "profile"


def test_word_order_hand_checked_ewt(ud_dir: Path, ewt_word_order) -> None:
    (wo, fit), _ = ewt_word_order
    # ripples-0006 'It is a time to learn what happened and how it may affect the future.':
    # 16 tokens, 'time' at 3 < W = 5 -> beginning. Middle = positions 5..10, end = 11..15.
    # Seed 0: middle copy puts 'time' at 9 (after 'how'), end copy at 12 (after 'affect'); the
    # other words keep their order.
    s = sentence(ud_dir / EWT, "weblog-typepad.com_ripples_20040407125600_ENG_20040407_125600-0006")
    cands = candidates(wo, fit, s)
    assert [(c.label, c.copy) for c in cands] == [(x, x) for x in LABELS]
    assert copies(wo, fit, s) == {
        "beginning": s.text,
        "middle": "It is a to learn what happened and how time it may affect the future.",
        "end": "It is a to learn what happened and how it may affect time the future.",
    }
    assert cands[1].inputs["tokens"].index("time") == 9
    assert cands[2].inputs["tokens"].index("time") == 12

    # juancole-0040 "NPR's Wade Goodwyn has this report about Mr. Bush's time on that
    # campaign.": 14 tokens (NPR's and Bush's are multiword tokens, one unit each), 'time' at
    # 9 = 14 - 5 -> end. The beginning copy puts it at 3, the middle copy at 6.
    s = sentence(
        ud_dir / EWT, "weblog-juancole.com_juancole_20040823064025_ENG_20040823_064025-0040"
    )
    assert copies(wo, fit, s) == {
        "beginning": "NPR's Wade Goodwyn time has this report about Mr. Bush's on that campaign.",
        "middle": "NPR's Wade Goodwyn has this report about time Mr. Bush's on that campaign.",
        "end": s.text,
    }

    # alaindewitt-0014 'For example, did you know that George Bush spent considerably more time
    # in uniform than John Kerry?': 19 tokens, 'time' at 12 (middle = 5..13). The beginning copy
    # moves it to word slot 1; the comma keeps its position, so 'time' is glued to it.
    s = sentence(
        ud_dir / EWT, "weblog-blogspot.com_alaindewitt_20040929103700_ENG_20040929_103700-0014"
    )
    got = copies(wo, fit, s)
    assert got["middle"] == s.text
    assert got["beginning"] == (
        "For time, example did you know that George Bush spent considerably more in uniform "
        "than John Kerry?"
    )
    assert got["end"] == (
        "For example, did you know that George Bush spent considerably more in uniform time "
        "than John Kerry?"
    )
    assert not wo.drops


def test_word_order_drops_ewt(ud_dir: Path) -> None:
    wo = WordOrder(None, context_for(EWT))
    fit = word_order_fit("time", 13, 5)
    # enronsent44_01-0045 '... at that time ..., I can meet with you individually later some
    # time': two NOUN 'time'.
    assert candidates(wo, fit, sentence(ud_dir / EWT, "email-enronsent44_01-0045")) == []
    # enronsent30_01-0023 '... in particular, Real Time Traders.': lemma 'Time' of a PROPN.
    assert candidates(wo, fit, sentence(ud_dir / EWT, "email-enronsent30_01-0023")) == []
    # juancole-0076 'He went out in the evenings and had a good time.': 12 tokens < L = 13.
    s = sentence(
        ud_dir / EWT, "weblog-juancole.com_juancole_20040823064025_ENG_20040823_064025-0076"
    )
    assert len(s.surface_tokens()) == 12 and candidates(wo, fit, s) == []
    assert wo.drops == Counter(
        {
            "target lemma occurs more than once": 1,
            "target lemma not a NOUN here": 1,
            "shorter than the minimum length L": 1,
        }
    )


def test_word_order_hand_checked_turkish(ud_dir: Path) -> None:
    """IMST: target 'şey' (174 NOUN tokens); the lower median length is 8, clipped to L = 9,
    W = 4 (Wehner's Turkish values)."""
    ((wo, fit),) = observed(ud_dir, IMST, WordOrder)
    assert (
        fit.target, fit.target_count, fit.report["median_length"], fit.min_length, fit.window
    ) == ("şey", 174, 8, 9, 4)  # fmt: skip
    # 00006231_149 'Çünkü anlattığı şeyler, bir dindarın anlattıklarına benzemiyor.': 9 tokens,
    # 'şeyler' at 2 -> beginning; the middle window is position 4 alone ('bir'), so the middle
    # copy puts the noun there and 'bir' shifts left of the comma.
    s = sentence(ud_dir / IMST, "00006231_149")
    assert copies(wo, fit, s) == {
        "beginning": s.text,
        "middle": "Çünkü anlattığı bir, şeyler dindarın anlattıklarına benzemiyor.",
        "end": "Çünkü anlattığı bir, dindarın şeyler anlattıklarına benzemiyor.",
    }
    # 00032161_122 'Ramiz de, Katana da her şeyin bittiğini anladılar.': 10 tokens, 'şeyin' at
    # 6 = 10 - 4 -> end; middle window = positions 4, 5.
    s = sentence(ud_dir / IMST, "00032161_122")
    assert copies(wo, fit, s) == {
        "beginning": "Ramiz de, şeyin Katana da her bittiğini anladılar.",
        "middle": "Ramiz de, Katana da şeyin her bittiğini anladılar.",
        "end": s.text,
    }
    # Drop: 20270000_12 'Herkes istediği gibi sevişiyor, her şey serbest.': 9 tokens, the
    # middle window is position 4 = ',' -> no word slot for the middle copy.
    assert candidates(wo, fit, sentence(ud_dir / IMST, "20270000_12")) == []
    # Drop: 00002213_356 'Ne tuhaf bir şeydi bu!': 'şeydi' = şey + idi, a multiword token.
    assert candidates(wo, fit, sentence(ud_dir / IMST, "00002213_356")) == []
    assert wo.drops == Counter(
        {"a window has no word slot": 1, "target inside a multiword token": 1}
    )


def test_word_order_german_capitals(ud_dir: Path) -> None:
    """de-GSD dev-s4 'Nach einem viertel Jahr hielt ich ein duftendes Wunder in den Händen.':
    13 tokens, 'Jahr' at 3 -> beginning. A NOUN keeps its capital in German wherever it goes;
    in the permuted copies 'Nach' leaves the sentence start and is lowercased."""
    (wo, fit), (wp, wp_fit) = observed(ud_dir, "UD_German-GSD", WordOrder, WordOrderPermuted)
    assert (fit.target, fit.min_length, fit.window) == ("jahr", 13, 5)
    s = sentence(ud_dir / "UD_German-GSD", "dev-s4")
    assert copies(wo, fit, s) == {
        "beginning": s.text,
        "middle": "Nach einem viertel hielt ich Jahr ein duftendes Wunder in den Händen.",
        "end": "Nach einem viertel hielt ich ein duftendes Wunder in den Händen Jahr.",
    }
    assert copies(wp, wp_fit, s) == {
        "beginning": "Hielt einem nach Jahr den duftendes Wunder ich in Händen ein viertel.",
        "middle": "Hielt einem nach den duftendes Jahr Wunder ich in Händen ein viertel.",
        "end": "Hielt einem nach den duftendes Wunder ich in Jahr Händen ein viertel.",
    }


def test_word_order_profile_target_and_mwt_drop(ud_dir: Path) -> None:
    """A profile target overrides the derived one, in each variant's own table
    ([tasks.word_order], [tasks.word_order_permuted]). en-PUD w02015086 "... during the Thirty
    Years' War ...": "Years'" is a multiword token (Years + '), so the noun cannot move alone:
    dropped."""
    for cls in (WordOrder, WordOrderPermuted):
        t = cls.configure({"target": "Year"}, context_for("UD_English-PUD"))
        fit = unobserved(t)
        assert fit.report["target"] == "year" and fit.report["target_source"] == "profile"
        s = sentence(ud_dir / "UD_English-PUD", "w02015086")
        assert candidates(t, fit, s) == []
        assert t.drops == Counter({"target inside a multiword token": 1})


def test_word_order_permuted_hand_checked(ud_dir: Path, ewt_word_order) -> None:
    """ripples-0006 again: one shuffle of the 14 other words, shared by all three copies; the
    noun at its own slot (3) in the beginning copy. 'It' leaves the start and is lowercased."""
    _, (wp, fit) = ewt_word_order
    s = sentence(ud_dir / EWT, "weblog-typepad.com_ripples_20040407125600_ENG_20040407_125600-0006")
    assert copies(wp, fit, s) == {
        "beginning": "A and happened time to learn affect how may future is the what it it.",
        "middle": "A and happened to learn affect how time may future is the what it it.",
        "end": "A and happened to learn affect how may future is the what time it it.",
    }
    other_seed = WordOrderPermuted(None, context_for(EWT, seed=1))
    by_hand = word_order_fit("time", 13, 5)
    assert copies(other_seed, by_hand, s)["beginning"] != copies(wp, fit, s)["beginning"]


def test_word_order_variants_share_per_sentence_work(ud_dir: Path, monkeypatch) -> None:
    """With one Shared per sentence (as the build hands them), the first pass reads a sentence
    once and the target search runs once, for both variants together."""
    calls: Counter[str] = Counter()
    reading, position = word_order_module.sentence_reading, word_order_module.target_position

    def counted_reading(s: Sentence):
        calls["reading"] += 1
        return reading(s)

    def counted_position(s: Sentence, target: str, min_length: int):
        calls["position"] += 1
        return position(s, target, min_length)

    monkeypatch.setattr(word_order_module, "sentence_reading", counted_reading)
    monkeypatch.setattr(word_order_module, "target_position", counted_position)
    sentences = list(read_conllu(ud_dir / IMST / "tr_imst-ud-dev.conllu", treebank=IMST))
    context = context_for(IMST)
    pairs = fitted_together(sentences, WordOrder(None, context), WordOrderPermuted(None, context))
    assert calls["reading"] == len(sentences)
    built = 0
    for s in sentences:
        shared = Shared(s)
        built += sum(len(t.candidates(s, fit, shared)) for t, fit in pairs)
    assert calls["position"] == len(sentences) and built > 0


# --- word_order: invariants on every treebank ------------------------------------------------


def _check_word_order(task: WordOrder, fit: WordOrderFit, s: Sentence, cands: list) -> None:
    def key(form: str) -> str:
        # Case-insensitive with the language's i/ı (a decapitalised 'İki' is 'iki').
        return lexical_key(lower_for_language(form, task.context.lang))

    tokens = s.surface_tokens()
    forms = [t.form for t in tokens]
    n, W = len(tokens), fit.window
    assert [c.label for c in cands] == list(LABELS) == [c.copy for c in cands]
    assert len({c.inputs["sentence"] for c in cands}) == 3
    noun_keys = {key(w.form) for w in s.words if lexical_key(w.lemma) == fit.target}
    (noun,) = noun_keys
    punct = [(i, t.form) for i, t in enumerate(tokens) if t.upos == "PUNCT"]
    rest = []
    for c in cands:
        toks = c.inputs["tokens"]
        keys = [key(f) for f in toks]
        assert len(toks) == n and keys.count(noun) == 1
        at = keys.index(noun)
        assert position_label(at, n, W) == c.label
        assert [(i, toks[i]) for i, _ in punct] == punct  # punctuation never moves
        assert Counter(keys) == Counter(key(f) for f in forms)
        # Positional spacing: the whitespace skeleton is the original's.
        assert c.inputs["sentence"].count(" ") == render(tokens).count(" ")
        rest.append([k for i, k in enumerate(keys) if i != at and tokens[i].upos != "PUNCT"])
    # The other words are in the same order in all three copies...
    assert rest[0] == rest[1] == rest[2]
    if task.shuffle_others:
        assert all(c.inputs["sentence"] != render(tokens) for c in cands)
    else:
        # ...which is their original order, and the copy of the noun's own window is the
        # original sentence itself.
        original_rest = [key(t.form) for t in tokens if t.upos != "PUNCT"]
        original_rest.remove(noun)
        assert rest[0] == original_rest
        assert sum(c.inputs["tokens"] == forms for c in cands) == 1


@pytest.mark.parametrize("treebank", all_treebanks())
def test_word_order_invariants(ud_dir: Path, treebank: str) -> None:
    pairs = observed(ud_dir, treebank, WordOrder, WordOrderPermuted)
    (wo, _), (wp, _) = pairs
    built = 0
    for s in stream(ud_dir, treebank):
        shared = Shared(s)  # one per sentence for both tasks, as the build does
        for t, fit in pairs:
            cands = t.candidates(s, fit, shared)
            if cands:
                _check_word_order(t, fit, s, cands)
                # A pure function of (sentence, options, context, fit): asked again, alone.
                assert [c.inputs for c in candidates(t, fit, s)] == [c.inputs for c in cands]
                built += 1
    assert built > 0
    assert wo.drops == wp.drops  # the same sentences qualify for both variants


# --- end_of_sentence: helpers ---------------------------------------------------------------


def test_lower_for_language() -> None:
    assert lower_for_language("IŞIK İZMİR Istanbul", "tr") == "ışık izmir ıstanbul"
    assert lower_for_language("Işıkları", "az") == "ışıkları"
    assert lower_for_language("Istanbul İzmir", "en") == "istanbul izmir"  # no U+0307
    assert lower_for_language("ΟΔΟΣ", "el") == "\u03bf\u03b4\u03bf\u03c2"  # final sigma
    assert lower_for_language("Straße GROSS", "de") == "straße gross"


def test_bins() -> None:
    short = [f"{lo}-{hi}" if hi else f"{lo}+" for lo, hi in make_bins(SHORT_BIN_STARTS)]
    long = [f"{lo}-{hi}" if hi else f"{lo}+" for lo, hi in make_bins(LONG_BIN_STARTS)]
    assert short == ["1-4", "5-8", "9-12", "13-16", "17-20", "21+"]
    assert long == ["1-8", "9-12", "13-16", "17-20", "21-24", "25-28", "29-32", "33+"]
    assert unobserved(EndOfSentence()).label_names == tuple(long)  # no data: the 8 bins
    with pytest.raises(UsageError):
        make_bins([2, 5])
    t = EndOfSentence.configure({"n_bins": 6}, TaskContext())
    fit = unobserved(t)
    assert fit.report["bin_rule"] == "profile n_bins" and fit.label_names == tuple(short)
    t = EndOfSentence.configure({"bin_starts": [1, 7, 15]}, TaskContext())
    fit = unobserved(t)
    assert fit.report["bin_rule"] == "profile bin_starts"
    assert fit.label_names == ("1-6", "7-14", "15+")


def run_file(
    task: EndOfSentence, path: Path, treebank: str
) -> tuple[dict[str, list], EndOfSentenceFit]:
    """First pass + fit + candidates over one file, as the build does; candidates by the
    second sentence's id, and the fit."""
    ((_, fit),) = fitted_together(read_conllu(path, treebank=treebank), task)
    assert isinstance(fit, EndOfSentenceFit)
    out: dict[str, list] = {}
    for s in read_conllu(path, treebank=treebank):
        cands = candidates(task, fit, s)
        if cands:
            out[s.sent_id] = cands
    return out, fit


# --- end_of_sentence: hand-checked ----------------------------------------------------------


def test_eos_hand_checked_ewt_dev(ud_dir: Path) -> None:
    """en_ewt-ud-dev alone: lower median of words per sentence 8 < 11 -> 6 bins."""
    task = EndOfSentence(None, context_for(EWT))
    got, fit = run_file(task, ud_dir / EWT / "en_ewt-ud-dev.conllu", EWT)
    assert fit.median_length == 8 and fit.label_names[-1] == "21+"
    doc = "weblog-blogspot.com_nominations_20041117172713_ENG_20041117_172713"
    # -0001 'From the AP comes this story :' (6 words) + -0002 'President Bush on Tuesday ...'
    (c,) = got[f"{doc}-0002"]
    assert (c.label, c.copy, c.group) == ("5-8", f"{doc}-0001", doc)
    assert c.inputs["sentence"] == (
        "from the ap comes this story president bush on tuesday nominated two individuals to "
        "replace retiring jurists on federal courts in the washington area"
    )
    assert c.inputs["tokens"] == c.inputs["sentence"].split()
    # Drop: -0003 + -0004 '***' (punctuation only); -0005 is the document's odd last sentence.
    assert f"{doc}-0004" not in got and f"{doc}-0005" not in got
    doc2 = "weblog-blogspot.com_gettingpolitical_20030906235000_ENG_20030906_235000"
    # -0001 'The sheikh in wheel-chair has been attacked with a F-16-launched bomb.': the
    # hyphens are PUNCT -> 14 words (13-16); "didn't" in -0002 is one multiword token.
    (c,) = got[f"{doc2}-0002"]
    assert (c.label, c.copy, c.group) == ("13-16", f"{doc2}-0001", doc2)
    assert c.inputs["tokens"][:14] == (
        [
            "the",
            "sheikh",
            "in",
            "wheel",
            "chair",
            "has",
            "been",
            "attacked",
            "with",
            "a",
            "f",
            "16",
            "launched",
            "bomb",
        ]
    )
    assert c.inputs["tokens"][-1] == "didn't"
    assert task.drops["pair with a sentence of punctuation only"] >= 1
    # Conservation: every sentence is in a pair or counted as a drop.
    drops = task.drops
    assert (
        2 * len(got)
        + 2 * drops["pair with a sentence of punctuation only"]
        + drops["unpaired last sentence of a document"]
        == 2001
    )


def test_eos_turkish_dotless_i(ud_dir: Path) -> None:
    """tr-IMST dev: 'Işıkları' -> 'ışıkları', 'İzini' -> 'izini' (Turkish i/ı)."""
    task = EndOfSentence(None, context_for(IMST))
    got, fit = run_file(task, ud_dir / IMST / "tr_imst-ud-dev.conllu", IMST)
    assert fit.label_names[0] == "1-4"  # median 5 words -> 6 bins
    # 00002213_323 'Arada, elini düğün fotoğrafının durduğu sol göğsünün üstüne koyar.'
    # (9 words) + 00002213_324 'Işıkları yok mu onun.'
    (c,) = got["00002213_324"]
    assert (c.label, c.copy, c.group) == ("9-12", "00002213_323", "00002213")
    assert c.inputs["sentence"] == (
        "arada elini düğün fotoğrafının durduğu sol göğsünün üstüne koyar ışıkları yok mu onun"
    )
    # 00002213_5 'Arkaya taranmış.' (2 words) + 00002213_6 'İzini bulursanız, ...'
    (c,) = got["00002213_6"]
    assert c.label == "1-4"
    assert (
        c.inputs["sentence"] == "arkaya taranmış izini bulursanız bu numaraya haber verirsiniz dedi"
    )


def test_eos_german_positional_case(ud_dir: Path) -> None:
    """de-PUD (nouns capitalised): only positional capitals are lowercased. n01001011
    '„Ein Großteil ... schrieb Obamas Sonderberaterin Kori Schulman am Montag in einem
    Blogeintrag.' has 26 words ('am' = an + dem counts once) -> 25-28 (median 18 -> 8 bins);
    'Ein' and the second sentence's 'Für' lose their capital, nouns and 'Vereinigten' keep it.
    PUD documents are samples: n01001012 is not in the treebank, so the pair is 011 + 013."""
    treebank = "UD_German-PUD"
    path = ud_dir / treebank / "de_pud-ud-test.conllu"
    task = EndOfSentence(None, context_for(treebank))
    got, fit = run_file(task, path, treebank)
    assert fit.case_mode == "positional" and fit.median_length == 18
    (c,) = got["n01001013"]
    assert (c.label, c.copy, c.group) == ("25-28", "n01001011", "n01001")
    toks = c.inputs["tokens"]
    assert toks[:11] == [
        "ein", "Großteil", "des", "digitalen", "Übergangs", "ist", "für", "die", "Vereinigten",
        "Staaten", "neu",
    ]  # fmt: skip
    assert toks[26:29] == ["für", "alle", "die"]
    keep = EndOfSentence.configure({"case": "keep"}, context_for(treebank))
    got, _ = run_file(keep, path, treebank)
    assert got["n01001013"][0].inputs["tokens"][0] == "Ein"


def test_eos_no_markup_is_infeasible_unless_assumed(ud_dir: Path) -> None:
    """fi-TDT has no '# newdoc': every sentence is dropped; with
    assume_file_order_documents the file is one document. b204.1 'The Garden Collection by
    H&M' (5 words, no punctuation) + b204.2 -> 5-8."""
    treebank = "UD_Finnish-TDT"
    path = ud_dir / treebank / "fi_tdt-ud-dev.conllu"
    task = EndOfSentence(None, context_for(treebank))
    got, fit = run_file(task, path, treebank)
    assert got == {}
    assert task.drops == Counter({"no document markup (# newdoc)": 1364})
    assert task.parameters(fit)["assume_file_order_documents"] is False
    assert fit.report["feasible"] is False
    task = EndOfSentence.configure({"assume_file_order_documents": True}, context_for(treebank))
    got, fit = run_file(task, path, treebank)
    (c,) = got["b204.2"]
    assert (c.label, c.copy, c.group) == ("5-8", "b204.1", "file:fi_tdt-ud-dev.conllu")
    assert c.inputs["tokens"][:6] == ["the", "garden", "collection", "by", "h&m", "viikonlopun"]
    assert len(got) == 1364 // 2
    assert task.parameters(fit)["assume_file_order_documents"] is True
    assert fit.report["feasible"] is True


def test_eos_profile_round_trip(ud_dir: Path) -> None:
    """The fit report, passed back as options (a printed profile), is accepted: its option
    keys (n_bins, case, ...) fix the same choices, the others are ignored."""
    treebank = "UD_German-PUD"
    task = EndOfSentence(None, context_for(treebank))
    _, fit = run_file(task, ud_dir / treebank / "de_pud-ud-test.conllu", treebank)
    again = EndOfSentence.configure(dict(fit.report), context_for(treebank))
    refit = unobserved(again)
    assert (refit.bins, refit.case_mode) == (fit.bins, fit.case_mode)
    assert refit.report["bin_rule"] == "profile n_bins"


SYNTHETIC = """# newdoc id = d1
# sent_id = s1
# text = A b.
1	A	a	DET	_	_	2	det	_	_
2	b	b	NOUN	_	_	0	root	_	SpaceAfter=No
3	.	.	PUNCT	_	_	2	punct	_	_

# sent_id = s2
# text = C d.
1	C	c	DET	_	_	2	det	_	_
2	d	d	NOUN	_	_	0	root	_	SpaceAfter=No
3	.	.	PUNCT	_	_	2	punct	_	_{bad}

# sent_id = s3
# text = E f g.
1	E	e	DET	_	_	2	det	_	_
2	f	f	NOUN	_	_	0	root	_	_
3	g	g	NOUN	_	_	2	nmod	_	SpaceAfter=No
4	.	.	PUNCT	_	_	2	punct	_	_

# sent_id = s4
# text = H.
1	H	h	NOUN	_	_	0	root	_	SpaceAfter=No
2	.	.	PUNCT	_	_	1	punct	_	_

# newdoc id = d2
# sent_id = s5
# text = I.
1	I	i	NOUN	_	_	0	root	_	SpaceAfter=No
2	.	.	PUNCT	_	_	1	punct	_	_

"""


@pytest.mark.parametrize("bad", [False, True])
def test_eos_skipped_sentence_breaks_the_pair(tmp_path: Path, bad: bool) -> None:
    """A sentence the reader skips (on_invalid=skip) never reaches the task; the pair must not
    bridge it: s1 stays unpaired and s3 + s4 pair. Without the skip: s1+s2, s3+s4. s5 (new
    document, last sentence of the stream) is counted as unpaired either way."""
    path = tmp_path / "x-ud-test.conllu"
    path.write_text(SYNTHETIC.format(bad="\textra" if bad else ""), encoding="utf-8")
    task = EndOfSentence(None, TaskContext(lang="en"))

    def read():
        return read_conllu(path, on_invalid="skip", skipped=Counter())

    ((_, fit),) = fitted_together(read(), task)
    out: list[tuple[str, str, str]] = []
    for s in read():
        for c in candidates(task, fit, s):
            out.append((c.copy, s.sent_id, c.inputs["sentence"]))
            assert candidates(task, fit, s)[0].inputs == c.inputs  # a repeated call, same answer
    if bad:
        assert out == [("s3", "s4", "e f g h")]
        assert task.drops == Counter(
            {
                "unpaired: the next sentence was skipped as invalid": 1,
                "unpaired last sentence of a document": 1,
            }
        )
    else:
        assert out == [("s1", "s2", "a b c d"), ("s3", "s4", "e f g h")]
        assert task.drops == Counter({"unpaired last sentence of a document": 1})


def test_eos_new_fit_starts_a_new_pass(tmp_path: Path) -> None:
    """The pending first sentence belongs to one candidate pass: a pass under a new fit
    starts afresh. Pass 1 stops after s1 (left pending); pass 2, from s2 on, pairs s2 + s3
    (not s1 + s2)."""
    path = tmp_path / "x-ud-test.conllu"
    path.write_text(SYNTHETIC.format(bad=""), encoding="utf-8")
    task = EndOfSentence(None, TaskContext(lang="en"))
    sentences = list(read_conllu(path))
    passes = []
    for part in (sentences[:1], sentences[1:]):
        ((_, fit),) = fitted_together(sentences, task)
        passes.append([c.copy for s in part for c in candidates(task, fit, s)])
    assert passes == [[], ["s2"]]


# --- end_of_sentence: invariants on every treebank -----------------------------------------


@pytest.mark.parametrize("treebank", all_treebanks())
def test_eos_invariants(ud_dir: Path, treebank: str) -> None:
    task = EndOfSentence(None, context_for(treebank))
    ((_, fit),) = fitted_together(stream(ud_dir, treebank), task)
    assert isinstance(fit, EndOfSentenceFit)
    derived = fit.report
    bins = make_bins(SHORT_BIN_STARTS if derived["n_bins"] == 6 else LONG_BIN_STARTS)
    assert fit.bins == bins
    prev: Sentence | None = None
    pairs = 0
    used: set[str] = set()
    n = 0
    for s in stream(ud_dir, treebank):
        n += 1
        for c in candidates(task, fit, s):
            pairs += 1
            assert prev is not None and c.copy == prev.sent_id and c.group == s.doc_id
            assert prev.doc_id == s.doc_id and prev.source.path == s.source.path
            assert not {prev.sent_id, s.sent_id} & used  # non-overlapping pairs
            used |= {prev.sent_id, s.sent_id}
            first = task.words(prev, fit.case_mode)
            assert c.inputs["tokens"] == first + task.words(s, fit.case_mode)
            assert c.inputs["sentence"] == " ".join(c.inputs["tokens"])
            assert c.label == next(
                f"{lo}-{hi}" if hi else f"{lo}+"
                for lo, hi in bins
                if lo <= len(first) and (hi is None or len(first) <= hi)
            )
            if fit.case_mode == "lower":
                lang = task.context.lang
                assert all(lower_for_language(t, lang) == t for t in c.inputs["tokens"])
        prev = s
    drops = task.drops
    if derived["document_markup"] == "none":
        assert pairs == 0 and drops == Counter({"no document markup (# newdoc)": n})
    else:
        assert pairs > 0
        # Every sentence is in a pair or accounted for by a drop.
        assert (
            2 * pairs
            + 2 * drops["pair with a sentence of punctuation only"]
            + drops["unpaired last sentence of a document"]
            + drops["no document markup (# newdoc)"]
            == n
        )
