#!/usr/bin/env python3
"""clawtalk-wake: a Wyoming wake-word service that listens for any trigger phrase.

Stage 1 of clawtalk's voice wake for triggers without an acoustic model ("openclaw", "claude",
"computer", or whatever the gateway lists). It runs Whisper tiny.en (CTranslate2, int8) on the
speech segments a client streams and scores each trigger two ways:

- keyword score: the probability, with the spelling's tokens forced after the start of the
  transcript, that the transcript starts with one of the trigger's spellings, bare or after a
  lead-in ("Hey", "Hi", "Okay", "OK", with or without a comma: "Hey Claude", "Okay, OpenClaw")
  (the sum over those disjoint sequences). A built-in trigger counts only while it is at least
  RIVAL_SHARE as likely as the words it is confused with (RIVALS: "cloud", "Claudia", "open
  cloth"), and has its own default threshold (TRIGGER_THRESHOLDS). One encoder pass per window,
  one short decoder pass per spelling off the greedy path.
- text match: the greedy transcript holds the trigger as whole words, at its start (after
  lead-in words) or followed by a pause (punctuation or the end of the text), the talk
  contract's pause rule as far as text can tell it.

A trigger fires when its score reaches its threshold or its text matches; each trigger fires at
most once per segment (audio-start ... audio-stop).

Protocol (Wyoming): `describe` -> `info` (a wake program "clawtalk-wake"); `detect` chooses the
triggers, `{"names": [...], "thresholds": {trigger: p}, "aliases": {trigger: [spelling, ...]}}`
(all optional; the command line's triggers otherwise); `audio-start`, `audio-chunk`s,
`audio-stop` carry one speech segment (16 kHz mono 16-bit; other formats are converted). While
audio arrives, the segment is scored from --first-ms on, every --interval-ms, for its first
--early-ms (the keyword score and a text match at the segment's start, on the few tokens
decoded: the cheap part, a trigger at the segment's start is heard before its end, while the
command goes on); later only with --late-interval-ms (default off):
whole while it is at most --segment-ms long, else its last --window-ms (text match only, not at
the text's start: that window begins in running speech). Each pass scores the segment as long
as it was when the pass fell due, so a segment sent faster than real time (a file) is scored
exactly as it would be live. `audio-stop` always scores the segment once more, whole or its last
--window-ms, keyword and text, the end of the text counting as the pause it is, and answers
`not-detected` when nothing fired. A trigger inside running speech is followed
by a pause (the talk contract's 0.45 s gap); the client's segmenter ends a segment at a shorter
one, so that pause is an `audio-stop` and no pass in between is needed. A `detection` is `{"name": trigger, "timestamp": ms of the
end of the scored audio on the client's clock (audio-start's timestamp + audio received),
"score": p, "method": "keyword" | "text", "compute_ms": how long the scoring took}`.

Nothing runs between segments: the client sends speech only (clawtalk's VAD gate). The model
comes from `scripts/fetch-wake-model`; nothing is downloaded here.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import sys
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Dict, List, Optional, Sequence

VERSION = "1.0.0"
SAMPLE_RATE = 16000
DEFAULT_TRIGGERS = ["openclaw", "claude", "computer"]
DEFAULT_THRESHOLD = 0.01
# The brand words score lower than "computer" on voices tiny.en hears less well, and their
# near misses are held off by RIVALS instead: chosen on half of the development voices
# (docs/benchmarks.md §9).
TRIGGER_THRESHOLDS = {"claude": 0.003, "openclaw": 0.003}
MAX_SPELLINGS = 8
# Whisper's encoder sees a fixed 5 s window (500 mel frames), zero-padded: one shape, and the
# trailing silence Whisper was trained with, at a sixth of the cost of the usual 30 s.
WINDOW_FRAMES = 500
HOP = 160

LOGGER = logging.getLogger("clawtalk_wake")
TRANSCRIPT_LOGGER = logging.getLogger("clawtalk_wake.transcript")

PAUSE_PUNCTUATION = set(",.!?;:…")
# Words a speaker may say before a trigger ("Hey Claude", "Okay OpenClaw"): the keyword score
# also counts a transcript that starts with one of them (and a mark after it) then the trigger,
# and the text match takes a trigger after them as at the start.
LEAD_IN_WORDS = ("Hey", "Hi", "Okay", "OK", "Ok")
LEAD_IN_MARKS = (",", ".", "!")
LEAD_IN_FOLDED = frozenset(word.lower() for word in LEAD_IN_WORDS)
# Other words Whisper tiny.en writes for a built-in trigger, with the weight each adds to the
# keyword score (the probability that the transcript starts with it, times the weight). Chosen
# on half of the development voices, clean and in pink noise (docs/benchmarks.md §9), never
# words a near miss is written as ("Cloud", "Claudia", "Open cloth", "Open close").
WRITTEN_FOR: Dict[str, List[tuple]] = {}
# Words that sound like a built-in trigger but are not it ("cloud" and "Claudia" for "claude"):
# the keyword score counts only while the trigger's probability is at least RIVAL_SHARE times
# theirs (same lead-ins), so "cloud", which tiny.en gives "Claude" a few per cent for, is
# refused while a "Claude" that it half hears as "Cloud" still counts.
RIVALS: Dict[str, List[str]] = {
    "claude": [" Cloud", " cloud", " Clouds", " Claudia", " Claudio"],
    "openclaw": [" Open cloth", " Open Cloth", " open cloth", " Open close", " Open Close", " open close", " Open Cloud"],
}
RIVAL_SHARE = 0.2
# How the built-in brand triggers are written in the decoder's prompt (Whisper's "previous text",
# `<|startofprev|>`) with --trigger-prompt: tiny.en does not know these names, and a prompt that
# holds them makes it write them for the sound it half hears ("Claude" for "Lord" or "Come on" in
# noise). Off by default: it also turns "Hey, cloud." and "open cloth" into the triggers, and it
# keeps most segments' starts open, which more than doubled the scorer's CPU in continuous
# speech (docs/benchmarks.md §9).
PROMPTED: Dict[str, str] = {"openclaw": "OpenClaw", "claude": "Claude"}


# ---- text rules (pure) -------------------------------------------------------------------------


def fold(text: str) -> str:
    """Lowercase, without diacritics or width differences (talk.md §6.3 item 2)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def trigger_words(trigger: str) -> List[str]:
    """The trigger's words, folded, punctuation dropped."""
    return re.findall(r"[\w']+", fold(trigger))


def text_match(
    text: str, trigger: str, at_start: bool = True, at_end: bool = True, lead_ins: frozenset = LEAD_IN_FOLDED
) -> bool:
    """Whether `text` holds `trigger` as whole words at its start (after lead-in words such as
    "Hey" or "Okay") or before a pause.

    Words may be split or joined differently from the trigger ("open claw" for "openclaw"). A
    pause is punctuation right after the occurrence, or the end of the text when the audio ended
    there (`at_end`). The start of the text counts when the audio began after a pause
    (`at_start`): a window cut out of running speech has neither. `lead_ins`: folded words that
    may stand before the trigger at the start.
    """
    wanted = "".join(trigger_words(trigger))
    if not wanted:
        return False
    folded = fold(text)
    words = [(m.group(0), m.end()) for m in re.finditer(r"[\w']+", folded)]
    most = len(trigger_words(trigger)) + 2
    # The start of the text, after at most two lead-in words ("Hey", "Okay", ...).
    leading = 0
    while leading < min(2, len(words)) and words[leading][0] in lead_ins:
        leading += 1
    for start in range(len(words)):
        joined = ""
        for end in range(start, min(start + most, len(words))):
            joined += words[end][0].replace("'", "")
            if joined == wanted:
                rest = folded[words[end][1]:].lstrip()
                if (start <= leading and at_start) or (not rest and at_end) or (rest and rest[0] in PAUSE_PUNCTUATION):
                    return True
                break
            if not wanted.startswith(joined):
                break
    return False


def spelling_variants(trigger: str, split_candidates: Sequence[str] = ()) -> List[str]:
    """How Whisper may write `trigger`: as given, lowercase, capitalized, title case, and for a
    one-word trigger its splits into two words (`split_candidates`: "open claw" for
    "openclaw", chosen by the tokenizer) and their camel-case join ("OpenClaw"). Each starts
    with a space, as a transcript's first token does."""
    base = " ".join(trigger.split())
    forms = [base, base.lower(), base.lower().capitalize(), base.title()]
    words = base.split()
    if len(words) > 1:
        forms.append(words[0].capitalize() + ", " + " ".join(words[1:]).title())
    for split in split_candidates:
        forms += [split, split.title(), split.capitalize(), split.title().replace(" ", "")]
    seen: List[str] = []
    for form in forms:
        spelled = " " + form
        if form and spelled not in seen:
            seen.append(spelled)
    return seen


def without_shared_prefixes(sequences: List[List[int]]) -> List[List[int]]:
    """Drops duplicates and sequences that extend another one, so that the events "the
    transcript starts with sequence i" are disjoint and their probabilities can be added."""
    kept: List[List[int]] = []
    for sequence in sorted({tuple(s) for s in sequences if s}, key=len):
        if not any(list(sequence[: len(k)]) == k for k in kept):
            kept.append(list(sequence))
    return kept


def pass_due(count: int, scored_until: int, first: int, interval: int, early: int, late: int) -> bool:
    """Whether a segment that holds `count` samples and was last scored at `scored_until` (0:
    never) is scored again while it goes on: from `first` samples, every `interval` up to
    `early`, then every `late` (0: not before its end). All in samples."""
    if count < first:
        return False
    if scored_until < first:
        return True
    if count <= early:
        return count - scored_until >= interval
    return late > 0 and count - scored_until >= late


# A segment's start is ruled out once no trigger's first tokens reach this share of its threshold:
# its end is then keyword-scored for the trigger at its very start only (no lead-in decodes).
START_MARGIN = 0.1
# A segment's early passes go on while an acoustic head's logit is within this of its threshold.
HEAD_OPEN_MARGIN = 2.0
# A segment's later early passes are left out once no trigger's first tokens reach this share of
# its threshold (START_MARGIN where a trigger has none here). The brand triggers' thresholds are a
# third of "computer"'s, and their first tokens (" Open", and the lead-ins "Hi", "OK" that every
# trigger counts) reach a tenth of 0.003 in much ordinary speech: on read speech most early passes
# ran only for them. With 0.3 the scorer's CPU on 176 s of read speech fell from 25.6–28.6 s to
# 21.0–22.0 s (2026-12-06); the end keeps START_MARGIN's lead-in decodes, which a noisy
# "computer" at pink 10 dB needed ("Home beat you": 0.013 with them, 0.009 without).
EARLY_PASS_MARGINS = {"openclaw": 0.3, "claude": 0.3}


def early_pass_margin(trigger: "TriggerSpec") -> float:
    """The share of `trigger`'s threshold that keeps a segment's early passes going."""
    return EARLY_PASS_MARGINS.get(trigger.name, START_MARGIN)


def only_lead_ins(text: str, lead_ins: frozenset = LEAD_IN_FOLDED) -> bool:
    """Whether `text` holds no word but lead-ins ("Hey", "Okay, "; or nothing). An early pass
    that heard only that much may have ended before the trigger ("Hey ... OpenClaw"): what comes
    next is not known yet, so the start stays open."""
    return all(word in lead_ins for word in re.findall(r"[\w']+", fold(text)))


# ---- the scorer --------------------------------------------------------------------------------


class PassLoad:
    """What the scorer's passes cost, summed and logged once a minute while they run (the event
    `wake.passes`): how many of each kind, the audio they covered and the compute they took."""

    PERIOD_S = 60.0

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.since = clock()
        self.counts: Dict[str, int] = {}
        self.audio_s = 0.0
        self.compute_s = 0.0

    def add(self, kind: str, audio_s: float, compute_s: float) -> Optional[str]:
        """Counts one pass; returns the summary line when a period has ended (and starts anew)."""
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.audio_s += audio_s
        self.compute_s += compute_s
        now = self.clock()
        elapsed = now - self.since
        if elapsed < self.PERIOD_S:
            return None
        kinds = " ".join(f"{k}={v}" for k, v in sorted(self.counts.items()))
        line = (f"wake.passes period_s={elapsed:.0f} {kinds} audio_s={self.audio_s:.1f} "
                f"compute_ms={self.compute_s * 1000:.0f} load_pct={100 * self.compute_s / elapsed:.1f}")
        self.since, self.counts, self.audio_s, self.compute_s = now, {}, 0.0, 0.0
        return line


@dataclass
class TriggerSpec:
    """One trigger as scored: its token sequences and threshold."""

    name: str
    spellings: List[List[int]]
    threshold: float
    # Each spelling's weight in the score (1 for the trigger's own forms; less for the other
    # words Whisper writes for it, `WRITTEN_FOR`); empty: all 1.
    weights: List[float] = field(default_factory=list)
    # Sequences of words the trigger must not be taken for (`RIVALS`).
    rivals: List[List[int]] = field(default_factory=list)

    def weight(self, index: int) -> float:
        return self.weights[index] if index < len(self.weights) else 1.0


@dataclass
class Scores:
    """What one window gave."""

    keyword: Dict[str, float]
    text: str
    seconds: float
    # False when the decode stopped at its length limit (a keyword-only pass): the text's last
    # word may be cut.
    complete: bool = True
    # False when no trigger can start the transcript: no lead-in and no trigger's first token
    # reached its early-pass margin. More audio after the start does not change how it starts,
    # so the segment's later early passes are left out (its end is still scored).
    start_open: bool = True
    # False when no trigger's first token reached START_MARGIN: the segment's end is then scored
    # without lead-in decodes. (None: as start_open.)
    lead_ins_open: Optional[bool] = None
    # The acoustic heads' logits by trigger (clawtalk_wake_head.py), for the triggers that have
    # one.
    acoustic: Dict[str, float] = field(default_factory=dict)

    def end_lead_ins(self) -> bool:
        """Whether the segment's end is still scored with lead-in decodes after this pass."""
        return self.start_open if self.lead_ins_open is None else self.lead_ins_open

    def whole_words(self) -> str:
        """The text without a last word the decode may have cut."""
        return self.text if self.complete else self.text.rpartition(" ")[0]


class KeywordScorer:
    """Whisper tiny.en through CTranslate2: encode once, score spellings, decode greedily."""

    def __init__(
        self, model_dir: str, threads: int, model=None, features=None, lead_ins: Sequence[str] = LEAD_IN_WORDS,
        tokenizer=None, prompting: bool = False, heads: Optional[dict] = None,
    ) -> None:
        """`model`: an already loaded ctranslate2 Whisper of `model_dir` to share; `features`: a
        log-mel function called as `features(samples, padding=0)` (default: faster-whisper's
        FeatureExtractor); `tokenizer`: its already loaded tokenizer. clawtalk-speech passes them;
        clawtalk-wake none. `lead_ins`: words scored before a trigger ("Hey"; none: the trigger
        only at the start). `prompting`: the brand triggers in the decoder's prompt (`PROMPTED`)."""
        import ctranslate2  # noqa: PLC0415 (after OMP_NUM_THREADS is set)
        import numpy  # noqa: PLC0415
        import tokenizers  # noqa: PLC0415

        self._ct2 = ctranslate2
        self._np = numpy
        self.model = model or ctranslate2.models.Whisper(
            model_dir, device="cpu", compute_type="int8", intra_threads=threads, inter_threads=1
        )
        self.tokenizer = tokenizer or tokenizers.Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        if features is None:
            from faster_whisper.feature_extractor import FeatureExtractor  # noqa: PLC0415

            features = FeatureExtractor(feature_size=self.model.n_mels)
        self.features = features
        self.heads = heads or {}
        token = self.tokenizer.token_to_id
        self.sot = token("<|startoftranscript|>")
        self.no_timestamps = token("<|notimestamps|>")
        self.eot = token("<|endoftext|>")
        if None in (self.sot, self.no_timestamps, self.eot):
            raise ValueError(f"{model_dir}: tokenizer.json lacks Whisper's special tokens")
        self.prefix = [self.sot]
        if self.model.is_multilingual:
            self.prefix += [token("<|en|>"), token("<|transcribe|>")]
        self.prefix.append(self.no_timestamps)
        self.start_of_previous = token("<|startofprev|>")
        self.prompting = prompting and self.start_of_previous is not None
        self.prefixes: Dict[tuple, List[int]] = {}
        self.lead_in_words = frozenset(fold(word) for word in lead_ins)
        self.lead_ins = [self.encode_text(" " + word) for word in lead_ins]
        self.lead_marks = [ids[0] for ids in (self.encode_text(m) for m in LEAD_IN_MARKS) if len(ids) == 1]
        self.lead_in_tokens = max((len(ids) + 1 for ids in self.lead_ins), default=0)

    def encode_text(self, text: str) -> List[int]:
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def prefix_for(self, triggers: List[TriggerSpec]) -> List[int]:
        """The decoder's start for these triggers: `<|startofprev|>` and the brand triggers among
        them as `PROMPTED` writes them (" OpenClaw, Claude."), then the usual prefix; the usual
        prefix alone when none is prompted."""
        names = tuple(PROMPTED[key] for key in dict.fromkeys("".join(trigger_words(t.name)) for t in triggers) if key in PROMPTED)
        if not self.prompting or not names:
            return self.prefix
        if names not in self.prefixes:
            self.prefixes[names] = [self.start_of_previous] + self.encode_text(" " + ", ".join(names) + ".") + self.prefix
        return self.prefixes[names]

    def splits(self, trigger: str) -> List[str]:
        """Two-word splits of a one-word trigger whose halves are each one token, as Whisper
        would write them ("open claw")."""
        words = trigger_words(trigger)
        if len(words) != 1 or len(words[0]) < 6:
            return []
        word = words[0]
        if len(self.encode_text(" " + word)) == 1:
            return []
        found = []
        for cut in range(3, len(word) - 2):
            left, right = word[:cut], word[cut:]
            if len(self.encode_text(" " + left)) == 1 and len(self.encode_text(" " + right)) == 1:
                found.append(f"{left} {right}")
        return found

    def spec(self, trigger: str, threshold: float, aliases: Sequence[str]) -> TriggerSpec:
        forms = spelling_variants(trigger, self.splits(trigger))
        forms += [" " + " ".join(a.split()) for a in aliases if a.strip()]
        sequences = without_shared_prefixes([self.encode_text(f) for f in forms])[: MAX_SPELLINGS + len(aliases)]
        weights = [1.0] * len(sequences)
        for written, weight in WRITTEN_FOR.get("".join(trigger_words(trigger)), ()):
            sequence = self.encode_text(written)
            if without_shared_prefixes(sequences + [sequence]) == without_shared_prefixes(sequences) + [sequence]:
                sequences.append(sequence)
                weights.append(weight)
        rivals = [self.encode_text(r) for r in RIVALS.get("".join(trigger_words(trigger)), ())]
        rivals = [r for r in without_shared_prefixes(rivals) if r not in sequences]
        return TriggerSpec(trigger, sequences, threshold, weights, rivals)

    def score(
        self, samples, triggers: List[TriggerSpec], keyword_only: bool = False, text_only: bool = False,
        lead_ins: bool = True, acoustic: bool = True,
    ) -> Scores:
        """Scores 16 kHz float samples (at most 5 s) for every trigger, and transcribes them.

        A trigger's score is the probability that the transcript starts with one of its
        spellings, bare or after a lead-in ("Hey", "Hi", "Okay", "OK", "Ok", with or without a
        comma or full stop after it): the sum over those disjoint token sequences.

        One encoder pass and one greedy decode, which returns the logits of each step: the first
        step's distribution gives every spelling's and lead-in's first token, and the greedy path
        gives the later tokens of sequences that follow it. A lead-in off the greedy path whose
        probability is above the floor (threshold / number of sequences) gets its own short
        greedy decode from it; a spelling that leaves a path while its probability so far is
        above the floor is finished by a forced decode (`align`); below it, it is dropped (so the
        sum undercounts by less than the threshold, never over). `keyword_only` decodes just
        enough steps for the longest sequence (the text is then only its start); `text_only`
        just transcribes (no keyword scores); without `lead_ins` the keyword score counts the
        trigger at the very start only (no lead-in decodes: the end of a segment whose start an
        early pass ruled out); without `acoustic` no head is run (Scores.acoustic is empty)."""
        np = self._np
        started = time.perf_counter()
        window = np.zeros(WINDOW_FRAMES * HOP, dtype=np.float32)
        count = min(len(samples), len(window))
        window[:count] = samples[-count:] if count else samples[:0]
        mel = self.features(window, padding=0)[:, :WINDOW_FRAMES]
        mel = np.ascontiguousarray(mel[None], dtype=np.float32)
        encoded = self.model.encode(self._ct2.StorageView.from_array(mel), to_cpu=False)
        frames = max(1, min(WINDOW_FRAMES, count // HOP))
        acoustic = self.acoustic(encoded, count, triggers) if acoustic else {}
        seconds = count / SAMPLE_RATE
        longest = max((len(seq) for t in triggers for seq in t.spellings), default=1)
        reach = longest + self.lead_in_tokens
        tokens = reach + 1 if keyword_only else max(reach + 1, 6 + int(4 * seconds))
        prefix = self.prefix_for(triggers)
        result = self.model.generate(
            encoded, [prefix], beam_size=1, max_length=self.max_length(tokens, start=len(prefix)), suppress_blank=True,
            return_logits_vocab=not text_only,
        )[0]
        path = list(result.sequences_ids[0])
        if text_only:
            ids = [t for t in path if t < self.eot]
            text = self.tokenizer.decode(ids).strip()
            return Scores({}, text, time.perf_counter() - started, len(ids) < tokens, start_open=False, acoustic=acoustic)
        # A step keeps the probabilities of the tokens a score can ask for (a whole softmax over
        # the vocabulary would be 415 KB).
        self.interest = self._np.asarray(sorted(
            {t for trigger in triggers for seq in trigger.spellings + trigger.rivals for t in seq}
            | {t for lead in self.lead_ins for t in lead} | set(self.lead_marks)), dtype=self._np.int64)
        ids = [t for t in path if t < self.eot]
        text = self.tokenizer.decode(ids).strip()
        complete = len(ids) < tokens
        keyword: Dict[str, float] = {}
        if not triggers:
            return Scores(keyword, text, time.perf_counter() - started, complete, acoustic=acoustic)
        logits = result.logits[0][:reach]
        first = self._probabilities(logits[0]) if len(logits) else None
        scored_lead_ins = self.lead_ins if lead_ins else []
        if first is None or all(
            self.first_step_bound(t, first, scored_lead_ins) < START_MARGIN * t.threshold for t in triggers
        ):
            # No trigger can start the transcript, after a lead-in or not: every score is below
            # a tenth of its threshold, so no lead-in decode or forced spelling is needed.
            start_open = only_lead_ins(text, self.lead_in_words) or self.heads_open(acoustic)
            return Scores(
                {t.name: 0.0 for t in triggers}, text, time.perf_counter() - started, complete, start_open,
                acoustic=acoustic,
            )
        # Only the steps a sequence can reach: each is a softmax over the whole vocabulary.
        steps = [first] + [self._probabilities(step) for step in logits[1:]]
        decoding = _Decoding(self, encoded, frames, longest, prefix)
        floor = min(t.threshold / max(1, len(t.spellings)) for t in triggers) / max(1, len(self.lead_ins))
        contexts = decoding.contexts(path, steps, scored_lead_ins, self.lead_marks, floor)
        for trigger in triggers:
            keyword[trigger.name] = decoding.trigger_score(trigger, contexts)
        bounds = [(t, decoding.start_bound(t, contexts)) for t in triggers]
        led = only_lead_ins(text, self.lead_in_words)
        start_open = (
            led or any(bound >= early_pass_margin(t) * t.threshold for t, bound in bounds) or self.heads_open(acoustic)
        )
        lead_ins_open = led or any(bound >= START_MARGIN * t.threshold for t, bound in bounds)
        return Scores(keyword, text, time.perf_counter() - started, complete, start_open, lead_ins_open, acoustic)

    def acoustic(self, encoded, count: int, triggers: List[TriggerSpec]) -> Dict[str, float]:
        """The acoustic heads' logits for the triggers that have one, on the encoder frames that
        hold audio (one per 320 samples) and the few after them (`head_frames`)."""
        chosen = [self.heads[t.name] for t in triggers if t.name in self.heads]
        if not chosen:
            return {}
        frames = self._np.asarray(encoded)[0]
        from clawtalk_wake_head import head_frames  # noqa: PLC0415

        valid = head_frames(count, len(frames))
        return {head.name: head.logit(self._np, frames[:valid]) for head in chosen}

    def heads_open(self, acoustic: Dict[str, float]) -> bool:
        """Whether a head is near enough its threshold that the segment's start stays open."""
        return any(logit >= self.heads[name].threshold - HEAD_OPEN_MARGIN for name, logit in acoustic.items())

    def first_step_bound(self, trigger: TriggerSpec, first, lead_ins=None) -> float:
        """An upper bound of the trigger's keyword score from the first decoding step alone:
        its spellings' first tokens (weighted), plus every lead-in's first token times the
        largest weight (after a lead-in, disjoint spellings add up to at most 1)."""
        spelled = sum(
            trigger.weight(index) * float(first[sequence[0]]) for index, sequence in enumerate(trigger.spellings) if sequence
        )
        led = sum(float(first[lead[0]]) for lead in (self.lead_ins if lead_ins is None else lead_ins) if lead)
        return spelled + led * max([1.0] + list(trigger.weights))

    def max_length(self, tokens: int, prompt: int = 0, start: int = 0) -> int:
        """`max_length` for a decode of `tokens` text tokens after `prompt` forced ones, the
        decoder's start (`start` tokens, default the usual prefix) before them.
        CTranslate2 2.x/4.x Whisper returns about max_length / 2 text tokens in all (measured:
        max_length 4 gives 2, 5 gives 2, 8 gives 4), not max_length minus the prompt; after a
        `<|startofprev|>` prompt, at most about max_length minus the start (measured with a
        9-token start: 12 gives 4, 15 gives 7, 20 gives 10)."""
        start = start or len(self.prefix)
        return max(2 * (prompt + tokens) + len(self.prefix), prompt + tokens + start + 1)

    def repeat(self, encoded, count: int):
        """The encoder's output for one window, `count` times over: a batch's features."""
        np = self._np
        return self._ct2.StorageView.from_array(np.repeat(np.asarray(encoded), count, axis=0))

    def _probabilities(self, logits) -> Dict[int, float]:
        """One decoder step's softmax, for the tokens of `self.interest` only."""
        np = self._np
        values = np.asarray(logits, dtype=np.float64).reshape(-1)
        values = np.exp(values - values.max())
        chosen = values[self.interest] / values.sum()
        return dict(zip(self.interest.tolist(), chosen.tolist()))


@dataclass
class Context:
    """Tokens a transcript may start with before a trigger (none, or a lead-in), their
    probability, and the greedy continuation after them: its tokens and step distributions."""

    tokens: List[int]
    probability: float
    path: List[int]
    steps: list


class _Decoding:
    """The decoder calls of one scored window (pure bookkeeping over `KeywordScorer.model`)."""

    # Rows in one batched decoder call: each row's logits are 51,864 floats a step.
    BATCH = 4

    def __init__(self, scorer: "KeywordScorer", encoded, frames: int, longest: int, prefix=None) -> None:
        self.scorer = scorer
        self.encoded = encoded
        self.frames = frames
        self.longest = longest
        self.prefix = list(scorer.prefix if prefix is None else prefix)  # the decoder's start
        # Continuations decoded so far, by prompt: `prefetch` fills it in batches.
        self.decoded: Dict[tuple, tuple] = {}
        self.batched = 0  # decoder calls that served more than one prompt (tests)

    def contexts(self, path, steps, lead_ins: List[List[int]], marks: List[int], floor: float) -> List[Context]:
        """The empty context and every lead-in, bare or with a mark after it, at least `floor`
        likely. The decodes each level needs are run first, as one batch: the decoder's cost
        is mostly its vocabulary projection, which reads the same weights for every row (three
        lead-ins in one call took 54 ms against 114 ms one by one, with the same logits)."""
        empty = Context([], 1.0, list(path), list(steps))
        found = [empty]
        self.prefetch([self.first_decode(empty, lead, floor) for lead in lead_ins])
        leads = [c for c in (self.follow(empty, lead, floor) for lead in lead_ins) if c is not None]
        self.prefetch([self.first_decode(c, [mark], floor) for c in leads for mark in marks])
        for context in leads:
            found.append(context)
            for mark in marks:
                marked = self.follow(context, [mark], floor)
                if marked is not None:
                    found.append(marked)
        return found

    def first_decode(self, context: Context, tokens: List[int], floor: float) -> Optional[List[int]]:
        """The prompt of the first decode that `follow(context, tokens, floor)` will need, or
        None if it needs none (it stays on the greedy path, or falls below `floor` first)."""
        return self.walk(context, tokens, floor, decode=False)

    def follow(self, context: Context, tokens: List[int], floor: float) -> Optional[Context]:
        """`context` extended by `tokens`: along its greedy path where it can, else decoded
        greedily from the extension; None below `floor` or past the decoded steps."""
        return self.walk(context, tokens, floor, decode=True)

    def walk(self, context: Context, tokens: List[int], floor: float, decode: bool):
        """`follow` (`decode`), or `first_decode`: the same walk, stopping at its first decode."""
        probability, path, steps = context.probability, context.path, context.steps
        done: List[int] = list(context.tokens)
        for token in tokens:
            if not steps:
                return None
            probability *= float(steps[0][token])
            if probability < floor:
                return None
            done.append(token)
            if path and path[0] == token:
                path, steps = path[1:], steps[1:]
            elif not decode:
                return done
            else:
                path, steps = self.decode_after(done)
        return Context(done, probability, path, steps) if decode else None

    def decode_after(self, tokens: List[int]):
        """Greedy continuation after `tokens`, and its step distributions."""
        key = tuple(tokens)
        if key not in self.decoded:
            self.prefetch([tokens])
        return self.decoded[key]

    def prefetch(self, prompts: List[Optional[List[int]]]) -> None:
        """Decodes the continuations of `prompts` not decoded yet (None entries skipped), one
        decoder call per prompt length."""
        wanted: Dict[int, List[List[int]]] = {}
        for tokens in prompts:
            if tokens is not None and tuple(tokens) not in self.decoded:
                group = wanted.setdefault(len(tokens), [])
                if tokens not in group:
                    group.append(list(tokens))
        scorer = self.scorer
        batches = [(length, group[i:i + self.BATCH]) for length, group in wanted.items()
                   for i in range(0, len(group), self.BATCH)]
        for length, group in batches:
            encoded = self.encoded
            if len(group) > 1:
                encoded = scorer.repeat(self.encoded, len(group))
                self.batched += 1
            results = scorer.model.generate(
                encoded, [self.prefix + tokens for tokens in group], beam_size=1,
                max_length=scorer.max_length(self.longest + 1, prompt=length, start=len(self.prefix)),
                return_logits_vocab=True,
            )
            for tokens, result in zip(group, results):
                ids = list(result.sequences_ids[0])
                logits = result.logits[0]
                start = len(tokens)
                if ids[:start] != tokens:  # a result without the prompt's tokens
                    start = 0
                self.decoded[tuple(tokens)] = (
                    ids[start:], [scorer._probabilities(step) for step in logits[start:start + self.longest]])

    @staticmethod
    def start_bound(trigger: TriggerSpec, contexts: List[Context]) -> float:
        """An upper bound of the trigger's score from the first token of each spelling alone:
        the later tokens can only lower it."""
        total = 0.0
        for context in contexts:
            if not context.steps:
                continue
            first = context.steps[0]
            total += context.probability * sum(
                trigger.weight(index) * float(first[sequence[0]])
                for index, sequence in enumerate(trigger.spellings) if sequence
            )
        return total

    def trigger_score(self, trigger: TriggerSpec, contexts: List[Context]) -> float:
        """The trigger's keyword score: its weighted spellings after every context, summed; 0
        when its rivals are more than 1 / RIVAL_SHARE times as likely."""
        # Below its floor a sequence adds nothing (so the sum undercounts by less than the
        # threshold, never over).
        spelling_floor = trigger.threshold / max(1, len(trigger.spellings)) / max(1, len(contexts))
        total = 0.0
        for context in contexts:
            for index, sequence in enumerate(trigger.spellings):
                weight = trigger.weight(index)
                total += weight * self.spelling(context, sequence, spelling_floor / weight)
        if total >= trigger.threshold and trigger.rivals:
            rival_floor = total * RIVAL_SHARE / max(1, len(trigger.rivals)) / max(1, len(contexts)) / 10
            rival = sum(self.spelling(c, sequence, rival_floor) for c in contexts for sequence in trigger.rivals)
            if total < RIVAL_SHARE * rival:
                LOGGER.debug("rival trigger=%s score=%.4g rival=%.4g", trigger.name, total, rival)
                return 0.0
        return min(total, 1.0)

    def spelling(self, context: Context, sequence: List[int], floor: float) -> float:
        """P(the transcript starts with the context's tokens, then `sequence`), from the
        context's greedy decode where it can; 0 once it falls below `floor`."""
        probability = context.probability
        path, steps = context.path, context.steps
        for index, token in enumerate(sequence):
            if index >= len(steps):
                return 0.0
            probability *= float(steps[index][token])
            if probability < floor:
                return 0.0
            if index + 1 == len(sequence):
                return probability
            if index >= len(path) or path[index] != token:
                # Off the greedy path with a chance left: force the rest. (One sequence a call:
                # a batch of them held about 170 MB more at its peak and saved no time.)
                scorer = self.scorer
                tokens = context.tokens + list(sequence)
                forced = scorer.model.align(self.encoded, self.prefix, [tokens], self.frames)[0]
                probability = 1.0
                for p in forced.text_token_probs:
                    probability *= float(p)
                return probability
        return probability


# ---- the Wyoming service -----------------------------------------------------------------------


@dataclass
class Segment:
    """One speech segment of one connection."""

    start_ms: int = 0
    samples: list = field(default_factory=list)
    count: int = 0
    # The length at the last pass due: passes score the segment as it was when they fell due,
    # whenever they run, so audio sent faster than real time (a file) is scored as it would be
    # live.
    scored_until: int = 0
    due: list = field(default_factory=list)  # lengths still to score, oldest first
    dropped: int = 0  # samples no longer held (a long segment keeps its last --segment-ms)
    fired: set = field(default_factory=set)
    start_ruled_out: bool = False  # an early pass found no trigger can start it: no more early passes
    lead_ins_ruled_out: bool = False  # an early pass found it below START_MARGIN: its end has no lead-ins
    number: int = 0  # the service's count of segments at its start (for --trace)


class Trace:
    """--trace: one JSON line per scoring pass, for diagnosis (`scripts/wake-miss-breakdown`
    joins it with `bench wake --json`). Segments are numbered in the order their audio-start
    arrived, over all connections."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.segments = 0

    def next_segment(self) -> int:
        self.segments += 1
        return self.segments

    def write(self, segment: Segment, until: int, scores: Scores, whole: bool, final: bool) -> None:
        import json  # noqa: PLC0415

        record = {
            "segment": segment.number, "start_ms": segment.start_ms, "until_ms": until * 1000 // SAMPLE_RATE,
            "whole": whole, "final": final, "keyword": {k: round(v, 6) for k, v in scores.keyword.items()},
            "text": scores.text, "start_open": scores.start_open, "fired": sorted(segment.fired),
            "acoustic": {k: round(v, 3) for k, v in scores.acoustic.items()},
        }
        self.stream.write(json.dumps(record) + "\n")
        self.stream.flush()


class Service:
    """What every connection shares: the scorer, one worker thread, defaults."""

    def __init__(self, args: argparse.Namespace, scorer: Optional[KeywordScorer] = None, worker=None) -> None:
        """`scorer` and `worker` (an executor) are given when another server shares them."""
        self.args = args
        self.scorer = scorer or KeywordScorer(
            args.model, args.threads, lead_ins=lead_ins(args), prompting=getattr(args, "trigger_prompt", False),
            heads=heads(args),
        )
        self.worker = worker or ThreadPoolExecutor(max_workers=1, thread_name_prefix="scorer")
        self.spec_cache: Dict[tuple, TriggerSpec] = {}
        self.load = PassLoad()
        path = getattr(args, "trace", None)
        self.trace = Trace(open_trace(path)) if path else None

    def specs(self, names: List[str], thresholds: Dict[str, float], aliases: Dict[str, List[str]]) -> List[TriggerSpec]:
        specs = []
        for name in names:
            threshold = float(thresholds.get(name, default_threshold(name, self.args.threshold)))
            extra = tuple(str(a) for a in aliases.get(name, []))
            key = (name, threshold, extra)
            if key not in self.spec_cache:
                self.spec_cache[key] = self.scorer.spec(name, threshold, extra)
            specs.append(self.spec_cache[key])
        return specs

    def info(self):
        from wyoming.info import Attribution, Info, WakeModel, WakeProgram  # noqa: PLC0415

        model = WakeModel(
            name="whisper-tiny.en",
            attribution=Attribution(name="OpenAI", url="https://github.com/openai/whisper"),
            installed=True,
            description="Whisper tiny.en (CTranslate2 int8) keyword scorer for any trigger phrase",
            version="1",
            languages=["en"],
            phrase=None,
        )
        program = WakeProgram(
            name="clawtalk-wake",
            attribution=Attribution(name="clawtalk", url="https://github.com/openclaw/openclaw"),
            installed=True,
            description="Wake words for any trigger, scored by Whisper",
            version=VERSION,
            models=[model],
        )
        return Info(wake=[program])


def make_handler_class():
    from wyoming.audio import AudioChunk, AudioChunkConverter, AudioStart, AudioStop  # noqa: PLC0415
    from wyoming.event import Event  # noqa: PLC0415
    from wyoming.info import Describe  # noqa: PLC0415
    from wyoming.server import AsyncEventHandler  # noqa: PLC0415
    from wyoming.wake import Detect, NotDetected  # noqa: PLC0415

    class Handler(AsyncEventHandler):
        """One client connection: its trigger list and its current segment."""

        def __init__(self, service: Service, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.service = service
            self.names: List[str] = list(service.args.trigger or DEFAULT_TRIGGERS)
            self.triggers = service.specs(self.names, {}, {})
            # Whether the acoustic heads may wake this connection's triggers (`detect`'s
            # "acoustic": false turns them off: wake.acousticHeads).
            self.acoustic = True
            self.converter = AudioChunkConverter(rate=SAMPLE_RATE, width=2, channels=1)
            self.segment: Optional[Segment] = None
            self.scoring: Optional[asyncio.Task] = None

        async def handle_event(self, event: Event) -> bool:
            if Describe.is_type(event.type):
                await self.write_event(self.service.info().event())
            elif Detect.is_type(event.type):
                self.choose(event.data or {})
            elif AudioStart.is_type(event.type):
                await self.finish_scoring()
                start = AudioStart.from_event(event)
                trace = getattr(self.service, "trace", None)
                number = trace.next_segment() if trace is not None else 0
                self.segment = Segment(start_ms=int(start.timestamp or 0), number=number)
            elif AudioChunk.is_type(event.type):
                if self.segment is None:
                    self.segment = Segment()
                chunk = self.converter.convert(AudioChunk.from_event(event))
                self.add(chunk.audio)
            elif AudioStop.is_type(event.type):
                await self.stop()
            return True

        def choose(self, data: dict) -> None:
            names = data.get("names")
            if names is not None:
                self.names = [str(n) for n in names if str(n).strip()]
            thresholds = data.get("thresholds") or {}
            aliases = data.get("aliases") or {}
            self.triggers = self.service.specs(self.names, thresholds, aliases)
            self.acoustic = data.get("acoustic", True) is not False
            LOGGER.debug("triggers: %s", ", ".join(t.name for t in self.triggers))

        def add(self, audio: bytes) -> None:
            import numpy as np  # noqa: PLC0415

            segment = self.segment
            samples = np.frombuffer(audio, dtype="<i2").astype(np.float32) / 32768.0
            segment.samples.append(samples)
            segment.count += len(samples)
            args = self.service.args
            ms = SAMPLE_RATE // 1000
            due = not segment.start_ruled_out and pass_due(
                segment.count, segment.scored_until, args.first_ms * ms, args.interval_ms * ms,
                args.early_ms * ms, args.late_interval_ms * ms,
            )
            if due:
                segment.scored_until = segment.count
                segment.due.append(segment.count)
                if self.scoring is None or self.scoring.done():
                    self.scoring = asyncio.create_task(self.score(final=False))

        def window(self, segment: Segment, until: int):
            """The segment's first `until` samples: whole up to --segment-ms, else their last
            --window-ms (audio before `until` - --segment-ms is let go)."""
            import numpy as np  # noqa: PLC0415

            audio = np.concatenate(segment.samples) if segment.samples else np.zeros(0, np.float32)
            segment.samples = [audio]
            held = audio[: max(0, until - segment.dropped)]
            longest = self.service.args.segment_ms * SAMPLE_RATE // 1000
            if until <= longest:
                return held
            drop = until - longest - segment.dropped
            if drop > 0:
                segment.samples = [audio[drop:]]
                segment.dropped += drop
            keep = self.service.args.window_ms * SAMPLE_RATE // 1000
            return held[-keep:]

        async def score(self, final: bool) -> None:
            """Scores the segment: whole while it is at most --segment-ms long (keyword score and
            text; while it goes on, the keyword score only), else its last --window-ms (text
            only: a window cut out of running speech does not start after a pause)."""
            while True:
                segment = self.segment
                if segment is None or not self.triggers:
                    return
                if final:
                    until = segment.count
                elif segment.due:
                    until = segment.due.pop(0)
                else:
                    return
                whole = until <= self.service.args.segment_ms * SAMPLE_RATE // 1000
                audio = self.window(segment, until)
                loop = asyncio.get_running_loop()
                # The end of a segment too long to score whole: its text only (a window cut out of
                # running speech has no start to score). The end of a whole segment keeps its
                # keyword score even when an early pass ruled its start out: that pass may have
                # heard noise or half a word ("Thank you." for the first second of a noisy
                # "Computer"), and the end is where such a trigger is still caught.
                # Its keyword score then counts the trigger at the very start only: the lead-in
                # decodes cost half a pass, and a start of lead-ins stays open anyway.
                text_only = final and not whole
                # The heads only where report() can use them: whole segments.
                options = {"keyword_only": whole and not final, "text_only": text_only, "acoustic": whole and self.acoustic}
                if final and segment.lead_ins_ruled_out:
                    options["lead_ins"] = False
                scores = await loop.run_in_executor(
                    self.service.worker, partial(self.service.scorer.score, audio, self.triggers, **options)
                )
                kind = "text_only" if text_only else ("final" if final else ("early" if whole else "window"))
                summary = self.service.load.add(kind, len(audio) / SAMPLE_RATE, scores.seconds)
                if summary:
                    LOGGER.info("%s", summary)
                await self.report(segment, until, scores, whole=whole, final=final)
                if final:
                    return
                if whole and not scores.end_lead_ins():
                    segment.lead_ins_ruled_out = True
                if whole and not scores.start_open:
                    # Passes already due go too, so a segment sent at once is scored as live.
                    segment.start_ruled_out = True
                    segment.due.clear()

        async def report(self, segment: Segment, until: int, scores: Scores, whole: bool, final: bool) -> None:
            from wyoming.wake import Detection  # noqa: PLC0415

            TRANSCRIPT_LOGGER.debug("%s", scores.text)
            lead_in_words = getattr(self.service.scorer, "lead_in_words", LEAD_IN_FOLDED)
            for trigger in self.triggers:
                if trigger.name in segment.fired:
                    continue
                score = scores.keyword.get(trigger.name, 0.0) if whole else 0.0
                method = None
                logit = scores.acoustic.get(trigger.name)
                if score >= trigger.threshold:
                    method = "keyword"
                elif whole and logit is not None and logit >= self.service.scorer.heads[trigger.name].threshold:
                    # The head reads the encoder's frames: a brand word that the decoder wrote
                    # as another word ("Lord", "Open floor") in noise. Whole windows only: a
                    # window cut out of running speech has no pause before the trigger.
                    method = "acoustic"
                elif (final or not whole) and text_match(
                    scores.text, trigger.name, at_start=whole, at_end=final, lead_ins=lead_in_words
                ):
                    method = "text"
                elif whole and text_match(
                    scores.whole_words(), trigger.name, at_start=True, at_end=False, lead_ins=lead_in_words
                ):
                    # An early pass: the segment's start follows a pause, so a trigger there
                    # (after lead-ins) counts while the command goes on.
                    method = "text"
                if method is None:
                    continue
                segment.fired.add(trigger.name)
                timestamp = segment.start_ms + until * 1000 // SAMPLE_RATE
                event = Detection(name=trigger.name, timestamp=timestamp).event()
                event.data["score"] = round(score, 6)
                event.data["method"] = method
                if logit is not None:
                    event.data["logit"] = round(logit, 3)
                event.data["compute_ms"] = int(scores.seconds * 1000)
                LOGGER.info(
                    "detection trigger=%s method=%s score=%.4g audio_ms=%d compute_ms=%d",
                    trigger.name, method, score, until * 1000 // SAMPLE_RATE, scores.seconds * 1000,
                )
                await self.write_event(event)
            trace = getattr(self.service, "trace", None)
            if trace is not None:
                trace.write(segment, until, scores, whole=whole, final=final)

        async def finish_scoring(self) -> None:
            """Waits for the passes due so far."""
            if self.scoring is not None:
                await self.scoring
                self.scoring = None

        async def stop(self) -> None:
            await self.finish_scoring()
            segment = self.segment
            if segment is None:
                await self.write_event(NotDetected().event())
                return
            # The end is always scored (text included, its end a pause), even right after an
            # early pass: that one was the keyword score only.
            if len(segment.fired) < len(self.triggers):
                await self.score(final=True)
            if not segment.fired:
                await self.write_event(NotDetected().event())
            self.segment = None

    return Handler


def open_trace(path: Optional[str]):
    """The --trace file, appended to, mode 0600 (it holds transcripts); None without one."""
    if not path:
        return None
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    return os.fdopen(descriptor, "a", encoding="utf-8")


def default_threshold(trigger: str, given: Optional[float] = None) -> float:
    """`given` (--threshold) if set, else the trigger's own default, else DEFAULT_THRESHOLD."""
    if given is not None:
        return given
    return TRIGGER_THRESHOLDS.get("".join(trigger_words(trigger)), DEFAULT_THRESHOLD)


def heads(args: argparse.Namespace) -> dict:
    """The acoustic keyword heads that --wake-heads names (none with --no-wake-heads). A file that
    cannot be read is logged, and the scorer runs on its decoder alone."""
    if getattr(args, "no_wake_heads", False):
        return {}
    import numpy  # noqa: PLC0415

    from clawtalk_wake_head import HEADS_FILE, HeadFileError, load_heads  # noqa: PLC0415

    path = getattr(args, "wake_heads", None) or HEADS_FILE
    try:
        loaded = load_heads(numpy, path)
    except HeadFileError as error:
        LOGGER.warning("acoustic heads not loaded (%s); the brand triggers are scored by the decoder alone", error)
        return {}
    LOGGER.info("acoustic heads loaded path=%s triggers=%s", path, ",".join(sorted(loaded)))
    return loaded


def lead_ins(args: argparse.Namespace) -> List[str]:
    """The lead-in words the options ask for (--lead-in, --no-lead-ins)."""
    if getattr(args, "no_lead_ins", False):
        return []
    return list(getattr(args, "lead_in", None) or LEAD_IN_WORDS)


def add_scoring_arguments(parser: argparse.ArgumentParser) -> None:
    """The wake-scoring options (shared with clawtalk-speech)."""
    parser.add_argument("--trigger", action="append", help="default trigger (repeatable; default: openclaw, claude, computer)")
    parser.add_argument(
        "--threshold", type=float,
        help=f"keyword score threshold for triggers `detect` gives none (default {DEFAULT_THRESHOLD}; "
        + ", ".join(f"{k} {v}" for k, v in TRIGGER_THRESHOLDS.items()) + ")",
    )
    parser.add_argument("--first-ms", type=int, default=1000, help="score a segment first once it holds (default %(default)s)")
    parser.add_argument("--interval-ms", type=int, default=500, help="then again every (default %(default)s)")
    parser.add_argument("--early-ms", type=int, default=2000, help="for its first (default %(default)s)")
    parser.add_argument("--late-interval-ms", type=int, default=0, help="then every (default %(default)s: only at its end)")
    parser.add_argument(
        "--lead-in", action="append",
        help="word a trigger may follow at a segment's start (repeatable; default: " + ", ".join(LEAD_IN_WORDS) + ")",
    )
    parser.add_argument("--no-lead-ins", action="store_true", help="score a trigger only at the segment's start")
    parser.add_argument(
        "--trigger-prompt", action="store_true",
        help="decode with the brand triggers in Whisper's prompt (" + ", ".join(PROMPTED.values())
        + "): hears them better in noise, costs near-miss accepts and CPU",
    )
    parser.add_argument(
        "--wake-heads", metavar="FILE",
        help="acoustic keyword heads for the brand triggers (default: clawtalk_wake_heads.json beside this file)",
    )
    parser.add_argument("--no-wake-heads", action="store_true", help="score with the decoder alone")
    parser.add_argument("--segment-ms", type=int, default=5000, help="longest segment scored whole (default %(default)s)")
    parser.add_argument("--window-ms", type=int, default=3000, help="window of a longer segment (default %(default)s)")
    parser.add_argument(
        "--trace", metavar="FILE",
        help="append one JSON line per scoring pass (scores and transcript: for diagnosis only)",
    )


def parse_arguments(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="clawtalk-wake",
        description="Wyoming wake-word service: Whisper tiny.en scores any trigger phrase.",
    )
    parser.add_argument("--uri", default="tcp://127.0.0.1:10401", help="where to listen (default %(default)s)")
    parser.add_argument("--model", required=True, help="Whisper tiny.en CTranslate2 directory (scripts/fetch-wake-model)")
    parser.add_argument("--threads", type=int, default=1, help="inference threads (default %(default)s)")
    add_scoring_arguments(parser)
    parser.add_argument("--log-format", default="%(levelname)s|%(name)s|%(message)s", help="Python logging format")
    parser.add_argument("--debug", action="store_true", help="log debug lines (transcripts included)")
    parser.add_argument("--version", action="version", version=VERSION)
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    from wyoming.server import AsyncServer  # noqa: PLC0415

    started = time.perf_counter()
    service = Service(args)
    # One warm-up pass: the first inference allocates; a ready server answers at full speed.
    import numpy as np  # noqa: PLC0415

    service.scorer.score(np.zeros(SAMPLE_RATE, np.float32), service.specs(DEFAULT_TRIGGERS[:1], {}, {}))
    handler = make_handler_class()
    server = AsyncServer.from_uri(args.uri)

    def ready() -> None:
        LOGGER.info("ready uri=%s model=%s load_ms=%d", args.uri, args.model, (time.perf_counter() - started) * 1000)

    await serve_on(server, partial(handler, service), ready)


async def serve_on(server, handler_factory, ready) -> None:
    """Serves `handler_factory` on `server` (from `AsyncServer.from_uri`), calling `ready()` once
    it listens. A Unix socket is created mode 0600, so only this user can connect whatever the
    directory's mode (clawtalk run puts it in its 0700 runtime directory as well)."""
    socket_path = getattr(server, "socket_path", None)
    if socket_path is None:
        ready()
        await server.run(handler_factory)
        return
    mask = os.umask(0o177)
    try:
        await server.start(handler_factory)
    finally:
        os.umask(mask)
    os.chmod(socket_path, 0o600)
    ready()
    try:
        await server._server.serve_forever()  # noqa: SLF001 (start() then serve: chmod in between)
    finally:
        await server.stop()


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_arguments(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.debug else logging.INFO, format=args.log_format, stream=sys.stderr
    )
    if not os.path.isfile(os.path.join(args.model, "model.bin")):
        LOGGER.error("no model.bin in %s (run scripts/fetch-wake-model)", args.model)
        return 66
    return run_server(serve, args)


def run_server(serve_with, args: argparse.Namespace) -> int:
    """Runs `serve_with(args)` until interrupted (clawtalk-wake's and clawtalk-speech's main).
    OpenMP's idle threads spin: only the inference threads, set before ctranslate2 loads. numpy's
    OpenBLAS (Smart Turn's matrix products) gets one thread: its call runs beside a transcription."""
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, args.threads)))
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        asyncio.run(serve_with(args))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
