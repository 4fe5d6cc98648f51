#!/usr/bin/env python3
"""clawtalk-speech: one Wyoming server for the node: speech-to-text, wake scoring, end of turn.

One process, one CTranslate2 runtime, one worker thread for model work, serving:

- Speech-to-text (Wyoming asr) with Whisper base (CTranslate2, int8): `transcribe`
  `{"language"?: "en", "name"?: ..., "turn"?: true}`, then `audio-start`, `audio-chunk`s,
  `audio-stop` (16 kHz mono 16-bit; other formats are converted) -> one `transcript`
  `{"text", "language", "audio_ms", "compute_ms", "queue_ms", "silent": bool,
  "turn_complete"?: P(complete), "turn_ms"?}`. Audio before any `transcribe` or `detect` on a
  connection is transcribed (as wyoming-faster-whisper does).
  The encoder window is cut to the audio (plus --pad-ms, rounded up to one of WINDOW_SIZES),
  not padded to 30 s; audio longer than 30 s is decoded in <= 30 s pieces, in order. Greedy
  decoding without timestamps. Audio whose 20 ms frames all stay below --silence-dbfs is
  answered "" with "silent": true without being decoded; so is a decode whose no-speech
  probability is high and whose text is empty or unsure, and text that is only punctuation.
- Wake scoring, clawtalk-wake's protocol unchanged (`detect`, audio... -> `detection` /
  `not-detected`), by clawtalk_wake's own scorer and handler, imported.
- End of turn (optional): Smart Turn v3.2 (ONNX, --turn-model) on the last 8 s of a request
  that asks for it ("turn": true), before decoding.

Cancellation: a request runs only while its connection is open and no later request on that
connection superseded it; a queued request whose client is gone is dropped without running,
a running one is stopped at its next stage and its result discarded. Nothing is downloaded
here: the models come from scripts/fetch-whisper-model, fetch-wake-model, fetch-turn-model.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import logging
import math
import os
import re
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Callable, List, Optional, Sequence, Tuple

import clawtalk_wake as wake

VERSION = "1.0.0"
SAMPLE_RATE = 16000
HOP = 160
N_FFT = 400
FULL_FRAMES = 3000  # Whisper's 30 s window
LOOP_REPETITION_PENALTY = 1.1  # a looped piece's second decode (CTranslate2's repetition_penalty)
# Encoder windows (mel frames, 100 a second): few shapes, at least 10 s (shorter windows lost
# words on short clips and looped: WER 25.1 % at a 5 s minimum, 18.0 % at 10 s, 16.7 % at 30 s
# on 52 espeak-ng clips), each at most 30 s.
WINDOW_SIZES = (1000, 1200, 1500, 2000, 2500, 3000)
DEFAULT_PAD_MS = 1000
SILENCE_FRAME = 320  # 20 ms
DEFAULT_SILENCE_DBFS = -50.0
NO_SPEECH_THRESHOLD = 0.6
LOGPROB_THRESHOLD = -1.0
TURN_SECONDS = 8
TURN_SAMPLES = TURN_SECONDS * SAMPLE_RATE

LOGGER = logging.getLogger("clawtalk_speech")
TRANSCRIPT_LOGGER = logging.getLogger("clawtalk_speech.transcript")

# Whisper's languages (the multilingual models' language tokens), in token order.
WHISPER_LANGUAGES = (
    "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur "
    "hr bg lt la mi ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si "
    "km sn yo so af oc ka be tg sd gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln "
    "ha ba jw su yue"
).split()


class Cancelled(Exception):
    """The request's client is gone or superseded it."""


# ---- pure parts ----------------------------------------------------------------------------------


def window_frames(samples: int, pad_frames: int, sizes: Sequence[int] = WINDOW_SIZES) -> int:
    """The encoder window for `samples` of audio: its frames plus `pad_frames` of trailing
    silence, rounded up to the next of `sizes` (at most the last, 30 s)."""
    wanted = math.ceil(samples / HOP) + pad_frames
    for size in sizes:
        if size >= wanted:
            return size
    return sizes[-1]


def pieces(samples: int, pad_frames: int, full: int = FULL_FRAMES) -> List[Tuple[int, int]]:
    """[start, end) sample ranges of at most 30 s less the padding, of equal length, in order,
    that cover `samples`: each piece and its padding fit one 30 s window."""
    most = max(HOP, (full - pad_frames) * HOP)
    if samples <= most:
        return [(0, samples)]
    count = math.ceil(samples / most)
    size = math.ceil(samples / count)
    return [(start, min(samples, start + size)) for start in range(0, samples, size)]


def peak_dbfs(audio, frame: int = SILENCE_FRAME) -> float:
    """The loudest `frame`-sample RMS level of float samples in [-1, 1], in dBFS (-inf when
    empty or digital silence)."""
    import numpy as np  # noqa: PLC0415

    count = len(audio) // frame
    if count == 0:
        if len(audio) == 0:
            return float("-inf")
        frames = np.asarray(audio, dtype=np.float64)[None, :]
    else:
        frames = np.asarray(audio[: count * frame], dtype=np.float64).reshape(count, frame)
    rms = float(np.sqrt((frames * frames).mean(axis=1)).max())
    return 20.0 * math.log10(rms) if rms > 0 else float("-inf")


def is_silent(audio, threshold_dbfs: float = DEFAULT_SILENCE_DBFS) -> bool:
    """Whether no 20 ms frame of `audio` reaches a speech level."""
    return peak_dbfs(audio) < threshold_dbfs


def primary_language(tag: Optional[str]) -> Optional[str]:
    """A BCP 47 tag's primary subtag, lowercased ("en-US" -> "en"); None for none."""
    if not tag or not str(tag).strip():
        return None
    return re.split(r"[-_]", str(tag).strip())[0].lower() or None


def choose_language(requested: Optional[str], server: str, known: Sequence[str]) -> Optional[str]:
    """The language to decode in: the request's (primary subtag) when Whisper knows it, else the
    server's --language; None means detect (only --language auto with no usable request language)."""
    language = primary_language(requested)
    if language in known:
        return language
    server = primary_language(server) or "en"
    if server == "auto":
        return None
    return server if server in known else "en"


def multilingual_languages(model_dir: str) -> List[str]:
    """The languages a multilingual Whisper directory offers, read from its tokenizer's special
    tokens without loading the model; [] when it has none (an English-only model)."""
    import json  # noqa: PLC0415

    with open(os.path.join(model_dir, "tokenizer.json"), encoding="utf-8") as handle:
        added = {entry.get("content") for entry in json.load(handle).get("added_tokens", [])}
    return [c for c in WHISPER_LANGUAGES if f"<|{c}|>" in added]


def only_punctuation(text: str) -> bool:
    """True when `text` has no letter or digit (".", "...", " - ", "")."""
    return not any(c.isalnum() for c in text)


def clean_text(text: str) -> str:
    """The transcript as answered: stripped, "" when only punctuation."""
    text = text.strip()
    return "" if only_punctuation(text) else text


def sounds_silent(text: str, no_speech_prob: float, avg_logprob: float) -> bool:
    """Whisper's no-speech rule for a decoded window: the no-speech probability is high and the
    text is empty or the decode unsure."""
    if no_speech_prob < NO_SPEECH_THRESHOLD:
        return False
    return only_punctuation(text) or avg_logprob < LOGPROB_THRESHOLD


def cut_loop(tokens: Sequence[int], shortest: int = 2) -> List[int]:
    """A decode that ran to its length limit repeating itself ("A B C A B C A B"), cut after the
    first time round ("A B C"): the earliest block of at least `shortest` tokens that is followed
    by itself. A sequence without such a repeat is returned whole."""
    tokens = list(tokens)
    for start in range(len(tokens)):
        for period in range(shortest, (len(tokens) - start) // 2 + 1):
            if tokens[start:start + period] == tokens[start + period:start + 2 * period]:
                return tokens[:start + period]
    return tokens


def should_run(cancelled: bool, connection_open: bool, generation: int, current: int) -> bool:
    """The queue's rule: a request runs only when nobody cancelled it, its connection is still
    open, and it is its connection's latest request."""
    return not cancelled and connection_open and generation == current


# ---- Whisper log-mel (numpy) ---------------------------------------------------------------------


def _hz_to_mel(freq):
    import numpy as np  # noqa: PLC0415

    freq = np.asarray(freq, dtype=np.float64)
    mel = 3.0 * freq / 200.0
    log_region = freq >= 1000.0
    return np.where(log_region, 15.0 + np.log(np.maximum(freq, 1e-10) / 1000.0) * 27.0 / np.log(6.4), mel)


def _mel_to_hz(mel):
    import numpy as np  # noqa: PLC0415

    mel = np.asarray(mel, dtype=np.float64)
    freq = 200.0 * mel / 3.0
    return np.where(mel >= 15.0, 1000.0 * np.exp((mel - 15.0) * np.log(6.4) / 27.0), freq)


def mel_filters(n_mels: int = 80, n_fft: int = N_FFT, rate: int = SAMPLE_RATE):
    """Slaney-scale, Slaney-normalised triangular filters, shape (n_mels, n_fft // 2 + 1)."""
    import numpy as np  # noqa: PLC0415

    bins = np.linspace(0.0, rate / 2.0, n_fft // 2 + 1)
    edges = _mel_to_hz(np.linspace(0.0, float(_hz_to_mel(rate / 2.0)), n_mels + 2))
    widths = np.diff(edges)
    rising = (bins[None, :] - edges[:-2, None]) / widths[:-1, None]
    falling = (edges[2:, None] - bins[None, :]) / widths[1:, None]
    weights = np.maximum(0.0, np.minimum(rising, falling))
    weights *= (2.0 / (edges[2:] - edges[:-2]))[:, None]
    return weights.astype(np.float32)


class LogMel:
    """Whisper's log-mel spectrogram: 25 ms periodic Hann frames every 10 ms (centred, reflect
    padded), power spectrum, Slaney mel filters, log10 floored at 1e-10, clamped to 8 below the
    maximum, scaled as (x + 4) / 4. The last frame is dropped, so n samples give n // 160 frames.
    Called as `features(samples, padding=0)`: `padding` zero samples are appended first."""

    def __init__(self, n_mels: int = 80) -> None:
        import numpy as np  # noqa: PLC0415

        self._np = np
        self.n_mels = n_mels
        self.filters = mel_filters(n_mels)
        self.window = np.hanning(N_FFT + 1)[:-1].astype(np.float32)

    def __call__(self, samples, padding: int = 0):
        np = self._np
        audio = np.asarray(samples, dtype=np.float32)
        if padding:
            audio = np.pad(audio, (0, padding))
        if len(audio) < N_FFT // 2 + 1:
            audio = np.pad(audio, (0, N_FFT // 2 + 1 - len(audio)))
        padded = np.pad(audio, (N_FFT // 2, N_FFT // 2), mode="reflect")
        frames = np.lib.stride_tricks.sliding_window_view(padded, N_FFT)[::HOP][:-1]
        spectrum = np.fft.rfft(frames * self.window, axis=-1)
        power = (spectrum.real**2 + spectrum.imag**2).astype(np.float32)
        mel = self.filters @ power.T
        log = np.log10(np.maximum(mel, 1e-10))
        log = np.maximum(log, log.max() - 8.0)
        return ((log + 4.0) / 4.0).astype(np.float32)


# ---- the models ----------------------------------------------------------------------------------


@dataclass
class Result:
    text: str
    language: str
    silent: bool
    no_speech_prob: float = 0.0
    decoded: bool = False


class Transcriber:
    """Whisper through CTranslate2 with the encoder window cut to the audio."""

    def __init__(self, model, model_dir: str, features: LogMel, pad_ms: int, initial_prompt: Optional[str],
                 beam_size: int = 5) -> None:
        import ctranslate2  # noqa: PLC0415
        import numpy  # noqa: PLC0415
        import tokenizers  # noqa: PLC0415

        self._ct2 = ctranslate2
        self._np = numpy
        self.model = model
        # Beam search as faster-whisper's default (5): on 52 espeak-ng clips of 1.5-6 s, WER 14.0 %
        # against 17.8 % greedy, for about 40 ms more a request.
        self.beam_size = max(1, beam_size)
        self.features = features
        self.pad_frames = max(0, pad_ms) // 10
        self.sizes = WINDOW_SIZES
        self.tokenizer = tokenizers.Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        token = self.tokenizer.token_to_id
        self.sot = token("<|startoftranscript|>")
        self.sot_prev = token("<|startofprev|>")
        self.transcribe_token = token("<|transcribe|>")
        self.no_timestamps = token("<|notimestamps|>")
        self.eot = token("<|endoftext|>")
        if None in (self.sot, self.no_timestamps, self.eot):
            raise ValueError(f"{model_dir}: tokenizer.json lacks Whisper's special tokens")
        self.multilingual = bool(model.is_multilingual)
        self.languages = [c for c in WHISPER_LANGUAGES if token(f"<|{c}|>") is not None] if self.multilingual else ["en"]
        self.prompt_tokens: List[int] = []
        if initial_prompt and initial_prompt.strip():
            self.prompt_tokens = self.encode(" " + initial_prompt.strip())[-(448 // 2 - 1):]
        self.decodes = 0  # decodes run (tests: silence is never decoded)
        self.loop_redecodes = 0  # pieces decoded again with a repetition penalty after a loop

    def encode(self, text: str) -> List[int]:
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def window(self, audio, frames: int, pad_features: bool = False):
        """The mel features of `audio` in a window of `frames`: the audio followed by silence
        (zero samples; `pad_features`: zero features, as faster-whisper pads to 30 s)."""
        np = self._np
        samples = frames * HOP
        count = min(len(audio), samples)
        if pad_features:
            mel = np.zeros((self.features.n_mels, frames), dtype=np.float32)
            part = self.features(audio[:count], padding=HOP)[:, :frames]
            mel[:, : part.shape[1]] = part
        else:
            clip = np.zeros(samples, dtype=np.float32)
            clip[:count] = audio[:count]
            mel = self.features(clip, padding=0)[:, :frames]
        return self._ct2.StorageView.from_array(np.ascontiguousarray(mel[None], dtype=np.float32))

    def detect_language(self, audio) -> str:
        if not self.multilingual:
            return "en"
        features = self.window(audio[: FULL_FRAMES * HOP], window_frames(min(len(audio), FULL_FRAMES * HOP), self.pad_frames))
        found = self.model.detect_language(features)[0]
        best = found[0][0] if found else "<|en|>"
        return best.strip("<|>") or "en"

    def prefix(self, language: str, previous: Sequence[int]) -> List[int]:
        prompt: List[int] = []
        if previous:
            prompt = [self.sot_prev, *list(previous)[-(448 // 2 - 1):]]
        prompt.append(self.sot)
        if self.multilingual:
            prompt += [self.tokenizer.token_to_id(f"<|{language}|>"), self.transcribe_token]
        prompt.append(self.no_timestamps)
        return prompt

    def decode(self, features, prompt: Sequence[int], limit: int, repetition_penalty: float = 1.0):
        """One beam-search decode of `features` (log-mel, or the encoder's output for them) after
        `prompt`, at most `limit` tokens in all."""
        return self.model.generate(
            features, [list(prompt)], beam_size=self.beam_size, max_length=limit,
            suppress_blank=True, suppress_tokens=[-1], return_no_speech_prob=True, return_scores=True,
            repetition_penalty=repetition_penalty,
        )[0]

    @staticmethod
    def looped(ids: Sequence[int], result, prompt: Sequence[int], limit: int) -> bool:
        """A decode that ran to its length limit (counted with or without the prompt) or repeats
        a block of tokens."""
        generated = len(result.sequences_ids[0])
        return generated >= limit - len(prompt) - 1 or len(prompt) + generated >= limit - 1 or repeats_block(ids)

    def transcribe(self, audio, language: str, check: Callable[[], None] = lambda: None,
                   window: Optional[int] = None, pad_features: bool = False) -> Result:
        """Decodes `audio` (16 kHz float) in `language`, piece by piece; `check` raises Cancelled
        between stages. `window` forces the encoder window (frames; tests and measurements)."""
        texts: List[str] = []
        previous = list(self.prompt_tokens)
        silent_all = True
        no_speech = 0.0
        for start, end in pieces(len(audio), self.pad_frames):
            check()
            piece = audio[start:end]
            frames = window or window_frames(len(piece), self.pad_frames, self.sizes)
            features = self.window(piece, frames, pad_features)
            if window is None:
                # Encoded once: a loop's second decode below reuses it.
                features = self.model.encode(features)
            seconds = len(piece) / SAMPLE_RATE
            prompt = self.prefix(language, previous)
            self.decodes += 1
            limit = min(448, len(prompt) + 16 + int(10 * seconds))
            result = self.decode(features, prompt, limit)
            ids = [t for t in result.sequences_ids[0] if t < self.eot]
            if self.looped(ids, result, prompt, limit) and window is None:
                # No end of text before the limit, or the words said twice over: a short window's
                # repetition loop. Decoded again in the same window with a repetition penalty: on
                # 11 looped wake commands (espeak-ng, 4 voices) that ended every loop in one more
                # decode (0.4-1.7 s on a busy 2-core VM). Whisper's own 30 s window, used here
                # before, heard 3 of the 11 better ("volume" for "file you met") but took
                # 4.3-7.2 s: no turn could stay inside its 1 s budget.
                check()
                self.loop_redecodes += 1
                result = self.decode(features, prompt, limit, repetition_penalty=LOOP_REPETITION_PENALTY)
                ids = [t for t in result.sequences_ids[0] if t < self.eot]
            if self.looped(ids, result, prompt, limit):
                # Still a repetition loop: cut after its first time round.
                ids = cut_loop(ids)
            text = self.tokenizer.decode(ids).strip()
            no_speech = max(no_speech, float(result.no_speech_prob))
            avg_logprob = float(result.scores[0]) if result.scores else 0.0
            if sounds_silent(text, float(result.no_speech_prob), avg_logprob) or only_punctuation(text):
                continue
            silent_all = False
            texts.append(text)
            previous = ids
        text = clean_text(" ".join(texts))
        return Result(text, language, silent=silent_all or not text, no_speech_prob=no_speech, decoded=True)


def repeats_block(tokens: Sequence[int], shortest: int = 4) -> bool:
    """Whether a block of at least `shortest` tokens is followed at once by itself: the mark of a
    decoder caught in a loop (people rarely say four words twice in a row)."""
    return len(cut_loop(tokens, shortest)) < len(tokens)


class TurnModel:
    """Smart Turn v3.2 (ONNX): P(the speaker finished their turn) from the last 8 s of audio.

    Input "input_features" (1, 80, 800): the last 8 s at 16 kHz, zero-padded at the front,
    normalised to zero mean and unit variance, Whisper log-mel (800 frames). Output: a sigmoid
    probability, shape (1, 1).

    The graph runs in clawtalk_onnx (numpy), not onnxruntime: onnxruntime's library and session
    held about 48 MB of the server for one call per turn; this holds the file's 8 MB."""

    def __init__(self, path: str, features: LogMel) -> None:
        import numpy  # noqa: PLC0415

        import clawtalk_onnx  # noqa: PLC0415

        self._np = numpy
        self.graph = clawtalk_onnx.Graph(path)
        if "input_features" not in self.graph.inputs:
            raise ValueError(f"{path}: no input 'input_features' (has {self.graph.inputs})")
        self.features = features

    def input(self, audio):
        np = self._np
        audio = np.asarray(audio, dtype=np.float32)[-TURN_SAMPLES:]
        clip = np.zeros(TURN_SAMPLES, dtype=np.float32)
        clip[TURN_SAMPLES - len(audio):] = audio
        clip = (clip - clip.mean()) / np.sqrt(clip.var() + 1e-7)
        return self.features(clip, padding=0)[None, :, : TURN_SAMPLES // HOP]

    def probability(self, audio) -> float:
        output = self.graph.run({"input_features": self.input(audio)})[0]
        return float(self._np.asarray(output).reshape(-1)[0])


def release_free_memory() -> None:
    """Returns the heap's free pages to the system (glibc's malloc_trim; nothing elsewhere)."""
    import ctypes  # noqa: PLC0415

    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    trim = getattr(libc, "malloc_trim", None)
    if trim is not None:
        trim(0)


# ---- the worker ----------------------------------------------------------------------------------


class Worker:
    """One thread for all model work, first come first served. A job with a `wanted` check that
    answers False when its turn comes is dropped without running (counted in `skipped`); so is a
    job whose future was cancelled. `submit` makes it an executor for asyncio's run_in_executor
    (the wake handler's passes). `on_idle` runs on the worker once it has had no job for
    `idle_seconds` after some work (the service returns freed memory to the system there)."""

    def __init__(self, on_idle: Optional[Callable[[], None]] = None, idle_seconds: float = 2.0) -> None:
        self.jobs: collections.deque = collections.deque()
        self.ready = threading.Condition()
        self.ran = 0
        self.skipped = 0
        self.idled = 0
        self.on_idle = on_idle
        self.idle_seconds = idle_seconds
        self.worked = False
        self.thread = threading.Thread(target=self.loop, name="model-worker", daemon=True)
        self.thread.start()

    def submit(self, fn, *args, **kwargs) -> Future:
        return self.run(partial(fn, *args, **kwargs))

    def run(self, fn: Callable, wanted: Optional[Callable[[], bool]] = None) -> Future:
        future: Future = Future()
        with self.ready:
            self.jobs.append((future, fn, wanted))
            self.ready.notify()
        return future

    def next_job(self):
        """The next job; None once no job came for `idle_seconds` after some work."""
        with self.ready:
            while not self.jobs:
                if not (self.worked and self.on_idle is not None):
                    self.ready.wait()
                elif not self.ready.wait(self.idle_seconds) and not self.jobs:
                    self.worked = False
                    return None
            return self.jobs.popleft()

    def loop(self) -> None:
        while True:
            job = self.next_job()
            if job is None:
                self.idled += 1
                try:
                    self.on_idle()
                except Exception as error:  # noqa: BLE001 (housekeeping: logged, never fatal)
                    LOGGER.warning("idle work failed: %s", error)
                continue
            future, fn, wanted = job
            self.worked = True
            if wanted is not None and not wanted():
                future.cancel()
            if not future.set_running_or_notify_cancel():
                self.skipped += 1
                continue
            self.ran += 1
            try:
                future.set_result(fn())
            except BaseException as error:  # noqa: BLE001 (handed to the waiting request)
                future.set_exception(error)


# ---- the service ---------------------------------------------------------------------------------


class Service:
    """What every connection shares: the models, the worker, the wake service."""

    def __init__(self, args: argparse.Namespace) -> None:
        import ctranslate2  # noqa: PLC0415 (after OMP_NUM_THREADS is set)

        self.args = args
        # Once idle for 2 s after a request or a burst of wake passes: glibc gives the pages that
        # the work freed back to the system (malloc_trim), instead of holding them as the
        # process's RSS until the next request; that one pays for faulting them in again.
        self.worker = Worker(on_idle=release_free_memory)
        self.features = LogMel(80)
        loaded = {}

        def whisper(path: str, threads: int):
            key = os.path.realpath(path)
            if key not in loaded:
                loaded[key] = ctranslate2.models.Whisper(
                    path, device="cpu", compute_type="int8", intra_threads=max(1, threads), inter_threads=1
                )
            return loaded[key]

        asr_model = whisper(args.asr_model, args.threads)
        self.asr_name = os.path.basename(os.path.normpath(args.asr_model)) or "whisper"
        self.transcriber = Transcriber(
            asr_model, args.asr_model, self.features, args.pad_ms, args.initial_prompt, args.beam_size)
        # The multilingual model (--multilingual-model) for any language but English, loaded the
        # first time one is asked for: an English-only node holds one Whisper, not two.
        self.load_whisper = whisper
        self.multilingual: Optional[Transcriber] = None
        self.multilingual_lock = threading.Lock()
        self.multilingual_languages: List[str] = []
        if args.multilingual_model and not self.transcriber.multilingual:
            self.multilingual_languages = multilingual_languages(args.multilingual_model)
            if primary_language(args.language) not in (None, "en"):
                self.multilingual_transcriber()  # the node's own language is not English: at once
        # The scorer's passes run all through speech: one thread, as the standalone clawtalk-wake
        # was measured (two made continuous speech cost 17.7 % of a core instead of ≤ 15 %).
        wake_model = whisper(args.wake_model, args.wake_threads)
        shared = self.transcriber.tokenizer if os.path.realpath(args.wake_model) == os.path.realpath(args.asr_model) else None
        scorer = wake.KeywordScorer(
            args.wake_model, args.wake_threads, model=wake_model, features=self.features, lead_ins=wake.lead_ins(args),
            tokenizer=shared, prompting=args.trigger_prompt, heads=wake.heads(args),
        )
        args.model = args.wake_model
        self.wake = wake.Service(args, scorer=scorer, worker=self.worker)
        self.turn: Optional[TurnModel] = None
        if args.turn_model:
            try:
                self.turn = TurnModel(args.turn_model, self.features)
            except Exception as error:  # noqa: BLE001 (optional: logged once, then left out)
                LOGGER.warning("turn model not loaded (%s): %s; transcripts carry no turn_complete", args.turn_model, error)
        self.turn_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="turn")
        self.requests = 0

    @property
    def languages(self) -> List[str]:
        """What requests may name: the speech-to-text model's languages, and the multilingual
        model's once one is configured (loaded or not)."""
        known = list(self.transcriber.languages)
        return known + [c for c in self.multilingual_languages if c not in known]

    def multilingual_transcriber(self) -> "Transcriber":
        """The multilingual model's transcriber, loaded on first use (on the worker thread: about
        1 s for Whisper base on the 2-core VM, once)."""
        with self.multilingual_lock:
            if self.multilingual is None:
                started = time.perf_counter()
                path = self.args.multilingual_model
                self.multilingual = Transcriber(
                    self.load_whisper(path, self.args.threads), path, self.features, self.args.pad_ms,
                    self.args.initial_prompt, self.args.beam_size)
                LOGGER.info("multilingual model loaded model=%s load_ms=%d", path, (time.perf_counter() - started) * 1000)
            return self.multilingual

    def transcriber_for(self, language: Optional[str]) -> "Transcriber":
        """English (or a multilingual speech-to-text model): the primary transcriber; any other
        language, or detection (None), the multilingual one when configured."""
        if self.transcriber.multilingual or not self.multilingual_languages:
            return self.transcriber
        return self.transcriber if language == "en" else self.multilingual_transcriber()

    def warm_up(self) -> None:
        import numpy as np  # noqa: PLC0415

        second = (np.random.default_rng(0).standard_normal(SAMPLE_RATE) * 0.05).astype(np.float32)
        self.transcriber.transcribe(second, self.transcriber.languages[0])
        self.transcriber.decodes = 0
        self.wake.scorer.score(np.zeros(SAMPLE_RATE, np.float32), self.wake.specs(wake.DEFAULT_TRIGGERS[:1], {}, {}))
        if self.turn is not None:
            self.turn.probability(second)
        # What loading and the first passes freed (about 30 MB): the worker trims only after
        # work, and a node that starts in silence may do none for hours.
        release_free_memory()

    def info(self):
        from wyoming.info import AsrModel, AsrProgram, Attribution, Info  # noqa: PLC0415

        model = AsrModel(
            name=self.asr_name,
            attribution=Attribution(name="OpenAI", url="https://github.com/openai/whisper"),
            installed=True,
            description="Whisper (CTranslate2 int8), encoder window cut to the audio",
            version="1",
            languages=self.languages,
        )
        program = AsrProgram(
            name="clawtalk-speech",
            attribution=Attribution(name="clawtalk", url="https://github.com/openclaw/openclaw"),
            installed=True,
            description="Speech-to-text, wake scoring and end of turn for clawtalk",
            version=VERSION,
            models=[model],
        )
        return Info(asr=[program], wake=self.wake.info().wake)

    def run_request(self, audio, language: Optional[str], turn: bool, connection, generation: int) -> dict:
        """The model work of one request (on the worker thread); stops with Cancelled between
        stages once its client is gone or superseded it."""

        def check() -> None:
            if not connection.wanted(generation):
                raise Cancelled()

        data: dict = {}
        verdict: Optional[Future] = None
        if turn and self.turn is not None:
            # Beside the transcription, on its own thread (both release the GIL): 50-75 ms
            # sooner than one after the other on the 2-core VM.
            verdict = self.turn_thread.submit(self.timed_verdict, audio)
        if is_silent(audio, self.args.silence_dbfs):
            result = Result("", language or connection.language or "en", silent=True)
        else:
            if language is None:
                if connection.language is None:
                    connection.language = self.transcriber_for(None).detect_language(audio)
                    check()
                language = connection.language
            result = self.transcriber_for(language).transcribe(audio, language, check)
        if verdict is not None:
            data["turn_complete"], data["turn_ms"] = verdict.result()
        data["result"] = result
        return data

    def timed_verdict(self, audio) -> Tuple[float, int]:
        """Smart Turn's P(complete) for `audio`, and the milliseconds it took."""
        started = time.perf_counter()
        probability = round(self.turn.probability(audio), 4)
        return probability, int((time.perf_counter() - started) * 1000)


def make_handler_class():
    from wyoming.asr import Transcribe, Transcript  # noqa: PLC0415
    from wyoming.audio import AudioChunk, AudioChunkConverter, AudioStart, AudioStop  # noqa: PLC0415
    from wyoming.event import Event  # noqa: PLC0415
    from wyoming.info import Describe  # noqa: PLC0415
    from wyoming.server import AsyncEventHandler  # noqa: PLC0415
    from wyoming.wake import Detect  # noqa: PLC0415

    WakeHandler = wake.make_handler_class()

    class Handler(AsyncEventHandler):
        """One client connection: wake scoring after `detect`, speech-to-text otherwise."""

        def __init__(self, service: Service, reader, writer) -> None:
            super().__init__(reader, writer)
            self.service = service
            self.wake = WakeHandler(service.wake, reader, writer)
            self.mode = "asr"
            self.open = True
            self.current = 0  # the latest request's number
            self.language: Optional[str] = None  # detected once per connection (--language auto)
            self.request: dict = {}
            self.chunks: list = []
            self.converter = AudioChunkConverter(rate=SAMPLE_RATE, width=2, channels=1)
            self.tasks: set = set()

        def wanted(self, generation: int) -> bool:
            return should_run(False, self.open, generation, self.current)

        async def handle_event(self, event: Event) -> bool:
            if Describe.is_type(event.type):
                await self.write_event(self.service.info().event())
                return True
            if Detect.is_type(event.type):
                self.mode = "wake"
            elif Transcribe.is_type(event.type):
                self.mode = "asr"
                self.request = dict(event.data or {})
                return True
            if self.mode == "wake":
                return await self.wake.handle_event(event)
            if AudioStart.is_type(event.type):
                self.current += 1  # a new request supersedes any earlier one still pending
                self.chunks = []
            elif AudioChunk.is_type(event.type):
                self.chunks.append(self.converter.convert(AudioChunk.from_event(event)).audio)
            elif AudioStop.is_type(event.type):
                task = asyncio.create_task(self.answer(self.current, b"".join(self.chunks), self.request))
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)
                self.chunks = []
                self.request = {}
            return True

        async def answer(self, generation: int, pcm: bytes, request: dict) -> None:
            import numpy as np  # noqa: PLC0415

            service = self.service
            audio = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
            language = choose_language(request.get("language"), service.args.language, service.languages)
            turn = bool(request.get("turn"))
            queued = time.perf_counter()
            timing = {}

            def job():
                timing["start"] = time.perf_counter()
                try:
                    return service.run_request(audio, language, turn, self, generation)
                finally:
                    timing["end"] = time.perf_counter()

            future = service.worker.run(job, wanted=partial(self.wanted, generation))
            cancelled = False
            data = None
            try:
                data = await asyncio.wrap_future(future)
            except (Cancelled, asyncio.CancelledError):
                cancelled = True
            except Exception:  # noqa: BLE001
                LOGGER.exception("transcription failed")
                cancelled = True
            if future.cancelled() or not self.wanted(generation):
                cancelled = True
            start = timing.get("start", time.perf_counter())
            queue_ms = int((start - queued) * 1000)
            compute_ms = int((timing.get("end", start) - start) * 1000)
            audio_ms = len(audio) * 1000 // SAMPLE_RATE
            result: Optional[Result] = data["result"] if data else None
            service.requests += 1
            LOGGER.info(
                "transcript audio_ms=%d compute_ms=%d queue_ms=%d language=%s silent=%s cancelled=%s decoded=%s%s",
                audio_ms, compute_ms, queue_ms, result.language if result else language,
                str(result.silent).lower() if result else "-", str(cancelled).lower(),
                str(result.decoded).lower() if result else "false",
                f" turn_complete={data['turn_complete']:.3f} turn_ms={data['turn_ms']}" if data and "turn_complete" in data else "",
            )
            if cancelled or result is None:
                return
            TRANSCRIPT_LOGGER.debug("%s", result.text)
            event = Transcript(text=result.text, language=result.language).event()
            event.data.update(audio_ms=audio_ms, compute_ms=compute_ms, queue_ms=queue_ms, silent=result.silent)
            if "turn_complete" in data:
                event.data["turn_complete"] = data["turn_complete"]
                event.data["turn_ms"] = data["turn_ms"]
            try:
                await self.write_event(event)
            except (ConnectionError, RuntimeError):
                pass

        async def disconnect(self) -> None:
            self.open = False
            for task in list(self.tasks):
                task.cancel()
            scoring = self.wake.scoring
            if scoring is not None and not scoring.done():
                scoring.cancel()

    return Handler


# ---- entry point ---------------------------------------------------------------------------------


def parse_arguments(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="clawtalk-speech",
        description="Wyoming server for clawtalk: speech-to-text (Whisper), wake scoring, end of turn.",
    )
    parser.add_argument("--uri", default="tcp://127.0.0.1:10300", help="where to listen: tcp://HOST:PORT or unix:///PATH (default %(default)s)")
    parser.add_argument("--asr-model", required=True, help="Whisper CTranslate2 directory for speech-to-text (scripts/fetch-whisper-model)")
    parser.add_argument("--wake-model", required=True, help="Whisper tiny.en CTranslate2 directory for wake scoring (scripts/fetch-wake-model)")
    parser.add_argument("--multilingual-model", help="multilingual Whisper CTranslate2 directory for languages other than English, loaded when first needed (when --asr-model is English-only); optional")
    parser.add_argument("--turn-model", help="Smart Turn v3.2 ONNX file (scripts/fetch-turn-model); optional")
    parser.add_argument("--threads", type=int, default=1, help="inference threads (default %(default)s)")
    parser.add_argument("--wake-threads", type=int, default=1, help="threads of the wake scorer's passes (default %(default)s)")
    parser.add_argument("--beam-size", type=int, default=5, help="speech-to-text beam size (default %(default)s)")
    parser.add_argument("--language", default="en", help="language when a request names none; 'auto' detects once per connection (default %(default)s)")
    parser.add_argument("--initial-prompt", help="text given to Whisper as previous text")
    parser.add_argument("--pad-ms", type=int, default=DEFAULT_PAD_MS, help="silence after the audio in the encoder window (default %(default)s)")
    parser.add_argument("--silence-dbfs", type=float, default=DEFAULT_SILENCE_DBFS, help="audio whose 20 ms frames all stay below this level is not decoded (default %(default)s)")
    wake.add_scoring_arguments(parser)
    parser.add_argument("--log-format", default="%(levelname)s|%(name)s|%(message)s", help="Python logging format")
    parser.add_argument("--debug", action="store_true", help="log debug lines (transcripts included)")
    parser.add_argument("--version", action="version", version=VERSION)
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    from wyoming.server import AsyncServer  # noqa: PLC0415

    started = time.perf_counter()
    service = Service(args)
    service.warm_up()
    handler = make_handler_class()
    server = AsyncServer.from_uri(args.uri)
    await wake.serve_on(server, partial(handler, service), lambda: ready(args, started, service))


def ready(args: argparse.Namespace, started: float, service: Service) -> None:
    LOGGER.info(
        "ready uri=%s asr_model=%s wake_model=%s turn_model=%s load_ms=%d",
        args.uri, args.asr_model, args.wake_model, args.turn_model if service.turn else "-",
        (time.perf_counter() - started) * 1000,
    )


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_arguments(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.INFO, format=args.log_format, stream=sys.stderr)
    for flag, path in (("--asr-model", args.asr_model), ("--wake-model", args.wake_model)):
        if not os.path.isfile(os.path.join(path, "model.bin")):
            LOGGER.error("%s: no model.bin in %s (run scripts/fetch-whisper-model / scripts/fetch-wake-model)", flag, path)
            return 66
    return wake.run_server(serve, args)


if __name__ == "__main__":
    sys.exit(main())
