#!/usr/bin/env python3
"""clawtalk-wake: a Wyoming wake-word service that listens for any trigger phrase.

Stage 1 of clawtalk's voice wake for triggers without an acoustic model ("openclaw", "claude",
"computer", or whatever the gateway lists). It runs Whisper tiny.en (CTranslate2, int8) on the
speech segments a client streams and scores each trigger two ways:

- keyword score: the probability, with the spelling's tokens forced after the start of the
  transcript, that the transcript starts with one of the trigger's spellings (the sum over
  spellings that do not share a prefix). One encoder pass per window, one short decoder pass
  per spelling.
- text match: the greedy transcript holds the trigger as whole words, at its start or followed
  by a pause (punctuation or the end of the text), the talk contract's pause rule as far as text
  can tell it.

A trigger fires when its score reaches its threshold or its text matches; each trigger fires at
most once per segment (audio-start ... audio-stop).

Protocol (Wyoming): `describe` -> `info` (a wake program "clawtalk-wake"); `detect` chooses the
triggers, `{"names": [...], "thresholds": {trigger: p}, "aliases": {trigger: [spelling, ...]}}`
(all optional; the command line's triggers otherwise); `audio-start`, `audio-chunk`s,
`audio-stop` carry one speech segment (16 kHz mono 16-bit; other formats are converted). While
audio arrives, the segment is scored from --first-ms on, every --interval-ms, for its first
--early-ms (keyword score only, the cheap part: a trigger at the segment's start is heard
before its end, while the command goes on); later only with --late-interval-ms (default off):
whole while it is at most --segment-ms long, else its last --window-ms (text match only, not at
the text's start: that window begins in running speech). `audio-stop` scores what is left,
whole or its last --window-ms, keyword and text, the end of the text counting as the pause it
is, and answers `not-detected` when nothing fired. A trigger inside running speech is followed
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
from typing import Dict, List, Optional, Sequence

VERSION = "1.0.0"
SAMPLE_RATE = 16000
DEFAULT_TRIGGERS = ["openclaw", "claude", "computer"]
DEFAULT_THRESHOLD = 0.01
MAX_SPELLINGS = 8
# Whisper's encoder sees a fixed 5 s window (500 mel frames), zero-padded: one shape, and the
# trailing silence Whisper was trained with, at a sixth of the cost of the usual 30 s.
WINDOW_FRAMES = 500
HOP = 160

LOGGER = logging.getLogger("clawtalk_wake")
TRANSCRIPT_LOGGER = logging.getLogger("clawtalk_wake.transcript")

PAUSE_PUNCTUATION = set(",.!?;:…")


# ---- text rules (pure) -------------------------------------------------------------------------


def fold(text: str) -> str:
    """Lowercase, without diacritics or width differences (talk.md §6.3 item 2)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def trigger_words(trigger: str) -> List[str]:
    """The trigger's words, folded, punctuation dropped."""
    return re.findall(r"[\w']+", fold(trigger))


def text_match(text: str, trigger: str, at_start: bool = True, at_end: bool = True) -> bool:
    """Whether `text` holds `trigger` as whole words at its start or before a pause.

    Words may be split or joined differently from the trigger ("open claw" for "openclaw"). A
    pause is punctuation right after the occurrence, or the end of the text when the audio ended
    there (`at_end`). The start of the text counts when the audio began after a pause
    (`at_start`): a window cut out of running speech has neither.
    """
    wanted = "".join(trigger_words(trigger))
    if not wanted:
        return False
    folded = fold(text)
    words = [(m.group(0), m.end()) for m in re.finditer(r"[\w']+", folded)]
    most = len(trigger_words(trigger)) + 2
    for start in range(len(words)):
        joined = ""
        for end in range(start, min(start + most, len(words))):
            joined += words[end][0].replace("'", "")
            if joined == wanted:
                rest = folded[words[end][1]:].lstrip()
                if (start == 0 and at_start) or (not rest and at_end) or (rest and rest[0] in PAUSE_PUNCTUATION):
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


# ---- the scorer --------------------------------------------------------------------------------


@dataclass
class TriggerSpec:
    """One trigger as scored: its token sequences and threshold."""

    name: str
    spellings: List[List[int]]
    threshold: float


@dataclass
class Scores:
    """What one window gave."""

    keyword: Dict[str, float]
    text: str
    seconds: float


class KeywordScorer:
    """Whisper tiny.en through CTranslate2: encode once, score spellings, decode greedily."""

    def __init__(self, model_dir: str, threads: int, model=None, features=None) -> None:
        """`model`: an already loaded ctranslate2 Whisper of `model_dir` to share; `features`: a
        log-mel function called as `features(samples, padding=0)` (default: faster-whisper's
        FeatureExtractor). clawtalk-speech passes both; clawtalk-wake neither."""
        import ctranslate2  # noqa: PLC0415 (after OMP_NUM_THREADS is set)
        import numpy  # noqa: PLC0415
        import tokenizers  # noqa: PLC0415

        self._ct2 = ctranslate2
        self._np = numpy
        self.model = model or ctranslate2.models.Whisper(
            model_dir, device="cpu", compute_type="int8", intra_threads=threads, inter_threads=1
        )
        self.tokenizer = tokenizers.Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        if features is None:
            from faster_whisper.feature_extractor import FeatureExtractor  # noqa: PLC0415

            features = FeatureExtractor(feature_size=self.model.n_mels)
        self.features = features
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

    def encode_text(self, text: str) -> List[int]:
        return self.tokenizer.encode(text, add_special_tokens=False).ids

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
        sequences = without_shared_prefixes([self.encode_text(f) for f in forms])
        return TriggerSpec(trigger, sequences[: MAX_SPELLINGS + len(aliases)], threshold)

    def score(self, samples, triggers: List[TriggerSpec], keyword_only: bool = False) -> Scores:
        """Scores 16 kHz float samples (at most 5 s) for every trigger, and transcribes them.

        One encoder pass and one greedy decode, which returns the logits of each step: the first
        step's distribution gives every spelling's first token, and the greedy path gives the
        later tokens of spellings that follow it. A spelling that leaves the greedy path while
        its probability so far is still above threshold / (number of spellings) is finished by a
        forced decode (`align`); below that it is dropped. `keyword_only` decodes just enough
        steps for the longest spelling (the text is then only its start)."""
        np = self._np
        started = time.perf_counter()
        window = np.zeros(WINDOW_FRAMES * HOP, dtype=np.float32)
        count = min(len(samples), len(window))
        window[:count] = samples[-count:] if count else samples[:0]
        mel = self.features(window, padding=0)[:, :WINDOW_FRAMES]
        mel = np.ascontiguousarray(mel[None], dtype=np.float32)
        encoded = self.model.encode(self._ct2.StorageView.from_array(mel), to_cpu=False)
        frames = max(1, min(WINDOW_FRAMES, count // HOP))
        seconds = count / SAMPLE_RATE
        longest = max((len(seq) for t in triggers for seq in t.spellings), default=1)
        limit = longest + 1 if keyword_only else 6 + int(4 * seconds)
        result = self.model.generate(
            encoded, [self.prefix], beam_size=1, max_length=limit, suppress_blank=True, return_logits_vocab=True
        )[0]
        path = list(result.sequences_ids[0])
        # Only the steps a spelling can reach: each is a softmax over the whole vocabulary.
        steps = [self._probabilities(step) for step in result.logits[0][:longest]]
        ids = [t for t in path if t < self.eot]
        text = self.tokenizer.decode(ids).strip()
        keyword: Dict[str, float] = {}
        for trigger in triggers:
            total = 0.0
            # A spelling is finished only while it could still matter: below threshold / n it
            # adds nothing (so the sum undercounts by less than the threshold, never over).
            floor = trigger.threshold / max(1, len(trigger.spellings))
            for sequence in trigger.spellings:
                total += self._spelling(sequence, path, steps, floor, encoded, frames)
            keyword[trigger.name] = min(total, 1.0)
        return Scores(keyword, text, time.perf_counter() - started)

    def _probabilities(self, logits):
        np = self._np
        values = np.asarray(logits, dtype=np.float64).reshape(-1)
        values = np.exp(values - values.max())
        return values / values.sum()

    def _spelling(self, sequence, path, steps, floor, encoded, frames) -> float:
        """P(the transcript starts with `sequence`), from the greedy decode's steps where it can;
        0 once it falls below `floor`."""
        probability = 1.0
        for index, token in enumerate(sequence):
            if index >= len(steps):
                break
            probability *= float(steps[index][token])
            if probability < floor:
                return 0.0
            if index + 1 == len(sequence):
                return probability
            if index >= len(path) or path[index] != token:
                # Off the greedy path with a chance left: force the rest.
                forced = self.model.align(encoded, self.prefix, [list(sequence)], frames)[0]
                probability = 1.0
                for p in forced.text_token_probs:
                    probability *= float(p)
                return probability
        return probability if len(steps) >= len(sequence) else 0.0


# ---- the Wyoming service -----------------------------------------------------------------------


@dataclass
class Segment:
    """One speech segment of one connection."""

    start_ms: int = 0
    samples: list = field(default_factory=list)
    count: int = 0
    scored_until: int = 0
    fired: set = field(default_factory=set)


class Service:
    """What every connection shares: the scorer, one worker thread, defaults."""

    def __init__(self, args: argparse.Namespace, scorer: Optional[KeywordScorer] = None, worker=None) -> None:
        """`scorer` and `worker` (an executor) are given when another server shares them."""
        self.args = args
        self.scorer = scorer or KeywordScorer(args.model, args.threads)
        self.worker = worker or ThreadPoolExecutor(max_workers=1, thread_name_prefix="scorer")
        self.spec_cache: Dict[tuple, TriggerSpec] = {}

    def specs(self, names: List[str], thresholds: Dict[str, float], aliases: Dict[str, List[str]]) -> List[TriggerSpec]:
        specs = []
        for name in names:
            threshold = float(thresholds.get(name, self.args.threshold))
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
            self.converter = AudioChunkConverter(rate=SAMPLE_RATE, width=2, channels=1)
            self.segment: Optional[Segment] = None
            self.scoring: Optional[asyncio.Task] = None
            self.again = False

        async def handle_event(self, event: Event) -> bool:
            if Describe.is_type(event.type):
                await self.write_event(self.service.info().event())
            elif Detect.is_type(event.type):
                self.choose(event.data or {})
            elif AudioStart.is_type(event.type):
                await self.finish_scoring()
                start = AudioStart.from_event(event)
                self.segment = Segment(start_ms=int(start.timestamp or 0))
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
            LOGGER.debug("triggers: %s", ", ".join(t.name for t in self.triggers))

        def add(self, audio: bytes) -> None:
            import numpy as np  # noqa: PLC0415

            segment = self.segment
            samples = np.frombuffer(audio, dtype="<i2").astype(np.float32) / 32768.0
            segment.samples.append(samples)
            segment.count += len(samples)
            args = self.service.args
            ms = SAMPLE_RATE // 1000
            due = pass_due(
                segment.count, segment.scored_until, args.first_ms * ms, args.interval_ms * ms,
                args.early_ms * ms, args.late_interval_ms * ms,
            )
            if due:
                if self.scoring is None or self.scoring.done():
                    self.scoring = asyncio.create_task(self.score(final=False))
                else:
                    self.again = True

        def window(self, segment: Segment):
            import numpy as np  # noqa: PLC0415

            audio = np.concatenate(segment.samples) if segment.samples else np.zeros(0, np.float32)
            segment.samples = [audio]
            longest = self.service.args.segment_ms * SAMPLE_RATE // 1000
            if len(audio) <= longest:
                return audio
            keep = self.service.args.window_ms * SAMPLE_RATE // 1000
            segment.samples = [audio[-longest:]]
            return audio[-keep:]

        async def score(self, final: bool) -> None:
            """Scores the segment: whole while it is at most --segment-ms long (keyword score and
            text; while it goes on, the keyword score only), else its last --window-ms (text
            only: a window cut out of running speech does not start after a pause)."""
            while True:
                segment = self.segment
                if segment is None or not self.triggers:
                    return
                until = segment.count
                whole = until <= self.service.args.segment_ms * SAMPLE_RATE // 1000
                audio = self.window(segment)
                segment.scored_until = until
                loop = asyncio.get_running_loop()
                scores = await loop.run_in_executor(
                    self.service.worker,
                    partial(self.service.scorer.score, audio, self.triggers, keyword_only=whole and not final),
                )
                await self.report(segment, until, scores, whole=whole, final=final)
                if final or not self.again:
                    return
                self.again = False

        async def report(self, segment: Segment, until: int, scores: Scores, whole: bool, final: bool) -> None:
            from wyoming.wake import Detection  # noqa: PLC0415

            TRANSCRIPT_LOGGER.debug("%s", scores.text)
            for trigger in self.triggers:
                if trigger.name in segment.fired:
                    continue
                score = scores.keyword.get(trigger.name, 0.0) if whole else 0.0
                method = None
                if score >= trigger.threshold:
                    method = "keyword"
                elif (final or not whole) and text_match(scores.text, trigger.name, at_start=whole, at_end=final):
                    method = "text"
                if method is None:
                    continue
                segment.fired.add(trigger.name)
                timestamp = segment.start_ms + until * 1000 // SAMPLE_RATE
                event = Detection(name=trigger.name, timestamp=timestamp).event()
                event.data["score"] = round(score, 6)
                event.data["method"] = method
                event.data["compute_ms"] = int(scores.seconds * 1000)
                LOGGER.info(
                    "detection trigger=%s method=%s score=%.4g audio_ms=%d compute_ms=%d",
                    trigger.name, method, score, until * 1000 // SAMPLE_RATE, scores.seconds * 1000,
                )
                await self.write_event(event)

        async def finish_scoring(self) -> None:
            if self.scoring is not None:
                self.again = False
                await self.scoring
                self.scoring = None

        async def stop(self) -> None:
            await self.finish_scoring()
            segment = self.segment
            if segment is None:
                await self.write_event(NotDetected().event())
                return
            if segment.count > segment.scored_until or segment.scored_until == 0:
                await self.score(final=True)
            if not segment.fired:
                await self.write_event(NotDetected().event())
            self.segment = None

    return Handler


def add_scoring_arguments(parser: argparse.ArgumentParser) -> None:
    """The wake-scoring options (shared with clawtalk-speech)."""
    parser.add_argument("--trigger", action="append", help="default trigger (repeatable; default: openclaw, claude, computer)")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD, help="default keyword score threshold (default %(default)s)")
    parser.add_argument("--first-ms", type=int, default=1000, help="score a segment first once it holds (default %(default)s)")
    parser.add_argument("--interval-ms", type=int, default=500, help="then again every (default %(default)s)")
    parser.add_argument("--early-ms", type=int, default=2000, help="for its first (default %(default)s)")
    parser.add_argument("--late-interval-ms", type=int, default=0, help="then every (default %(default)s: only at its end)")
    parser.add_argument("--segment-ms", type=int, default=5000, help="longest segment scored whole (default %(default)s)")
    parser.add_argument("--window-ms", type=int, default=3000, help="window of a longer segment (default %(default)s)")


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
    OpenMP's idle threads spin: only the inference threads, set before ctranslate2 loads."""
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, args.threads)))
    try:
        asyncio.run(serve_with(args))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
