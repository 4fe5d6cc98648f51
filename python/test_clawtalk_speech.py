"""Tests of clawtalk-speech: `python3 -m unittest test_clawtalk_speech` from python/, with the
venv's python.

The pure parts need numpy only. The integration tests start the real server on a unix socket
with the installed models (${XDG_DATA_HOME:-~/.local/share}/clawtalk/models, as the node finds
them); without them they fail, unless CLAWTALK_SPEECH_TESTS_NO_MODELS=1 (then they are skipped).
Nothing here depends on machine speed: ordering and counters, never wall-clock thresholds.
"""

import asyncio
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

import clawtalk_speech as speech

RATE = speech.SAMPLE_RATE


class WindowTests(unittest.TestCase):
    def test_window_is_the_audio_plus_padding_rounded_up(self):
        cases = [
            # (seconds of audio, padding frames, window frames)
            (0.0, 0, 1000),
            (1.5, 100, 1000),
            (9.0, 100, 1000),
            (9.01, 100, 1200),
            (11.0, 100, 1200),
            (14.0, 100, 1500),
            (19.0, 100, 2000),
            (28.0, 100, 3000),
            (29.5, 100, 3000),
            (45.0, 100, 3000),
        ]
        for seconds, pad, frames in cases:
            with self.subTest(seconds=seconds, pad=pad):
                self.assertEqual(speech.window_frames(int(seconds * RATE), pad), frames)

    def test_sizes_are_few_and_at_most_30_s(self):
        self.assertLessEqual(len(speech.WINDOW_SIZES), 16)
        self.assertEqual(speech.WINDOW_SIZES[-1], speech.FULL_FRAMES)
        self.assertEqual(list(speech.WINDOW_SIZES), sorted(set(speech.WINDOW_SIZES)))

    def test_long_audio_is_split_into_equal_pieces_that_fit_30_s(self):
        cases = [
            # (seconds, padding frames, number of pieces)
            (5.0, 100, 1),
            (29.0, 100, 1),
            (29.5, 100, 2),
            (45.0, 100, 2),
            (61.0, 100, 3),
            (300.0, 100, 11),
        ]
        for seconds, pad, count in cases:
            with self.subTest(seconds=seconds):
                samples = int(seconds * RATE)
                parts = speech.pieces(samples, pad)
                self.assertEqual(len(parts), count)
                self.assertEqual(parts[0][0], 0)
                self.assertEqual(parts[-1][1], samples)
                for (_, end), (start, _) in zip(parts, parts[1:]):
                    self.assertEqual(end, start)
                for start, end in parts:
                    self.assertLessEqual(speech.window_frames(end - start, pad), speech.FULL_FRAMES)
                    self.assertLessEqual(math.ceil((end - start) / speech.HOP) + pad, speech.FULL_FRAMES)


class SilenceTests(unittest.TestCase):
    @staticmethod
    def tone(dbfs, seconds=1.0):
        amplitude = 10 ** (dbfs / 20) * math.sqrt(2)  # a sine's RMS is its amplitude / sqrt 2
        t = np.arange(int(seconds * RATE)) / RATE
        return (amplitude * np.sin(2 * math.pi * 440 * t)).astype(np.float32)

    def test_levels(self):
        cases = [
            (np.zeros(RATE, np.float32), True),
            (np.zeros(0, np.float32), True),
            (self.tone(-70), True),
            (self.tone(-55), True),
            (self.tone(-45), False),
            (self.tone(-20), False),
        ]
        for audio, silent in cases:
            with self.subTest(level=speech.peak_dbfs(audio)):
                self.assertEqual(speech.is_silent(audio), silent)

    def test_one_loud_frame_is_enough(self):
        audio = np.zeros(2 * RATE, np.float32)
        audio[RATE:RATE + 320] = self.tone(-20, 320 / RATE)
        self.assertFalse(speech.is_silent(audio))

    def test_peak_level_of_a_sine(self):
        self.assertAlmostEqual(speech.peak_dbfs(self.tone(-30)), -30.0, delta=0.2)


class LanguageTests(unittest.TestCase):
    KNOWN = ["en", "de", "fr"]

    def test_choice(self):
        cases = [
            # (request, server --language, chosen)
            ("en", "en", "en"),
            ("de-DE", "en", "de"),
            ("fr_CA", "en", "fr"),
            ("DE", "en", "de"),
            (None, "en", "en"),
            ("", "de", "de"),
            ("xx", "de", "de"),
            (None, "auto", None),
            ("de", "auto", "de"),
            ("xx", "auto", None),
            (None, "zz", "en"),
        ]
        for requested, server, chosen in cases:
            with self.subTest(requested=requested, server=server):
                self.assertEqual(speech.choose_language(requested, server, self.KNOWN), chosen)

    def test_whisper_languages(self):
        self.assertEqual(len(speech.WHISPER_LANGUAGES), 100)
        self.assertEqual(speech.WHISPER_LANGUAGES[0], "en")


class TextTests(unittest.TestCase):
    def test_punctuation_only_answers_nothing(self):
        cases = [
            ("", ""),
            ("  ", ""),
            (".", ""),
            (" ... ", ""),
            ("- !?", ""),
            ("♪", ""),
            (" Yes.", "Yes."),
            ("42", "42"),
            (" Ja, bitte. ", "Ja, bitte."),
        ]
        for text, answer in cases:
            with self.subTest(text=text):
                self.assertEqual(speech.clean_text(text), answer)

    def test_no_speech_rule(self):
        cases = [
            # (text, no-speech probability, average log-probability, silent)
            ("", 0.9, -0.2, True),
            (".", 0.7, -0.2, True),
            ("Thank you.", 0.9, -1.5, True),
            ("Thank you.", 0.9, -0.3, False),
            ("", 0.1, -0.2, False),
            ("Turn on the light.", 0.2, -2.0, False),
        ]
        for text, no_speech, logprob, silent in cases:
            with self.subTest(text=text, no_speech=no_speech, logprob=logprob):
                self.assertEqual(speech.sounds_silent(text, no_speech, logprob), silent)

    def test_repetition_loops_are_cut_after_the_first_round(self):
        cases = [
            ([1, 2, 3, 1, 2, 3, 1, 2], [1, 2, 3]),
            ([9, 1, 2, 3, 4, 1, 2, 3, 4, 1], [9, 1, 2, 3, 4]),
            ([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]),
            ([5, 1, 5, 1, 5], [5, 1]),
            ([1, 1, 1, 1], [1, 1]),  # blocks of at least two tokens
            ([], []),
        ]
        for tokens, cut in cases:
            with self.subTest(tokens=tokens):
                self.assertEqual(speech.cut_loop(tokens), cut)


class LoopTests(unittest.TestCase):
    """A decode that loops is decoded once more in the same window with a repetition penalty,
    reusing the encoder's output; a second loop is cut after its first round."""

    class Model:
        # Whisper's decoder as CTranslate2 answers: each decode pops the next token list.
        is_multilingual = False

        def __init__(self, answers):
            self.answers = list(answers)
            self.calls = []

        def encode(self, features):
            return ("encoded", features)

        def generate(self, features, prompts, **options):
            self.calls.append((features, options.get("repetition_penalty", 1.0)))
            ids = self.answers.pop(0)
            result = type("Result", (), {})()
            result.sequences_ids, result.scores, result.no_speech_prob = [ids], [-0.1], 0.01
            return [result]

    def transcriber(self, answers):
        model = self.Model(answers)
        transcriber = speech.Transcriber.__new__(speech.Transcriber)
        transcriber.model, transcriber._np = model, np
        transcriber.beam_size, transcriber.pad_frames, transcriber.sizes = 5, 100, speech.WINDOW_SIZES
        transcriber.features = speech.LogMel(80)
        transcriber.window = lambda audio, frames, pad=False: ("mel", frames)
        transcriber.prefix = lambda language, previous: [1]
        transcriber.tokenizer = type("Tokenizer", (), {"decode": lambda self, ids: " ".join(map(str, ids))})()
        transcriber.eot, transcriber.prompt_tokens = 10_000, []
        transcriber.decodes = transcriber.loop_redecodes = 0
        return transcriber, model

    def test_loops_are_decoded_again_with_a_penalty_in_the_same_window(self):
        audio = np.zeros(3 * speech.SAMPLE_RATE, np.float32)
        cases = [
            # (decoder answers, text, second decodes, penalties asked)
            ([[5, 6, 7, 8]], "5 6 7 8", 0, [1.0]),
            ([[5, 6, 7, 8, 5, 6, 7, 8], [5, 6, 7, 9]], "5 6 7 9", 1, [1.0, speech.LOOP_REPETITION_PENALTY]),
            ([[5, 6, 7, 8, 5, 6, 7, 8], [5, 6, 7, 9, 5, 6, 7, 9]], "5 6 7 9", 1, [1.0, speech.LOOP_REPETITION_PENALTY]),
        ]
        for answers, text, redecodes, penalties in cases:
            with self.subTest(answers=answers):
                transcriber, model = self.transcriber(answers)
                result = transcriber.transcribe(audio, "en")
                self.assertEqual(result.text, text)
                self.assertEqual(transcriber.loop_redecodes, redecodes)
                self.assertEqual([penalty for _, penalty in model.calls], penalties)
                self.assertTrue(all(features[0] == "encoded" for features, _ in model.calls))


class QueueRuleTests(unittest.TestCase):
    def test_a_request_runs_only_while_wanted(self):
        cases = [
            # (cancelled, connection open, its number, the connection's latest, runs)
            (False, True, 3, 3, True),
            (True, True, 3, 3, False),
            (False, False, 3, 3, False),
            (False, True, 2, 3, False),
            (True, False, 2, 3, False),
        ]
        for cancelled, open_, generation, current, runs in cases:
            with self.subTest(cancelled=cancelled, open=open_, generation=generation, current=current):
                self.assertEqual(speech.should_run(cancelled, open_, generation, current), runs)

    def test_the_worker_skips_unwanted_and_cancelled_jobs_in_order(self):
        worker = speech.Worker()
        gate = __import__("threading").Event()
        order = []
        first = worker.run(lambda: gate.wait(10) and order.append("first"))
        unwanted = worker.run(lambda: order.append("unwanted"), wanted=lambda: False)
        cancelled = worker.run(lambda: order.append("cancelled"))
        self.assertTrue(cancelled.cancel())
        last = worker.run(lambda: order.append("last") or "done")
        gate.set()
        self.assertEqual(last.result(10), "done")
        first.result(10)
        self.assertTrue(unwanted.cancelled())
        self.assertEqual(order, ["first", "last"])
        self.assertEqual((worker.ran, worker.skipped), (2, 2))

    def test_the_worker_runs_its_idle_work_once_after_each_burst(self):
        import threading

        idled = threading.Semaphore(0)
        worker = speech.Worker(on_idle=idled.release, idle_seconds=0.05)
        self.assertEqual(worker.run(lambda: "one").result(10), "one")
        self.assertTrue(idled.acquire(timeout=30), "idle work after the first job")
        self.assertEqual(worker.idled, 1)
        # A burst: the second job is queued while the first runs; one idle call after both.
        gate = threading.Event()
        first = worker.run(lambda: gate.wait(10))
        second = worker.run(lambda: "two")
        gate.set()
        self.assertEqual(second.result(10), "two")
        first.result(10)
        self.assertTrue(idled.acquire(timeout=30), "idle work after the burst")
        # A third job proves the worker went on serving after its idle work, and the count shows
        # that the burst earned one call, not one per job.
        self.assertEqual(worker.run(lambda: worker.idled).result(10), 2)

    def test_no_idle_work_without_an_idle_hook(self):
        worker = speech.Worker()
        self.assertEqual(worker.run(lambda: 1).result(10), 1)
        self.assertEqual(worker.run(lambda: worker.idled).result(10), 0)


class LogMelTests(unittest.TestCase):
    def test_matches_faster_whisper(self):
        try:
            from faster_whisper.feature_extractor import FeatureExtractor
        except ImportError:
            self.skipTest("faster_whisper is not installed (run with the venv's python)")
        reference = FeatureExtractor(feature_size=80)
        ours = speech.LogMel(80)
        rng = np.random.default_rng(7)
        t = np.arange(3 * RATE) / RATE
        signals = [
            (rng.standard_normal(RATE) * 0.1).astype(np.float32),
            (0.3 * np.sin(2 * np.pi * 220 * t) + 0.01 * rng.standard_normal(len(t))).astype(np.float32),
            (rng.standard_normal(12345) * 0.5).astype(np.float32),
            np.zeros(8000, np.float32),
        ]
        for signal in signals:
            for padding in (0, 160):
                with self.subTest(samples=len(signal), padding=padding):
                    a = reference(signal, padding=padding)
                    b = ours(signal, padding=padding)
                    self.assertEqual(a.shape, b.shape)
                    self.assertLess(float(np.abs(a - b).max()), 1e-4)


# ---- integration: the real server ----------------------------------------------------------------


def models_dir():
    return os.path.join(os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "clawtalk", "models")


def model_paths():
    base = models_dir()
    return (os.path.join(base, "whisper-base"), os.path.join(base, "whisper-tiny-en"),
            os.path.join(base, "smart-turn-v3.2", "smart-turn-v3.2-cpu.onnx"))


def espeak(text, voice="en-us"):
    """16 kHz 16-bit mono PCM of `text` spoken by espeak-ng (resampled by sox)."""
    raw = subprocess.run(["espeak-ng", "--stdout", "-v", voice, text], check=True, capture_output=True).stdout
    return subprocess.run(
        ["sox", "-t", "wav", "-", "-t", "raw", "-r", str(RATE), "-c", "1", "-b", "16", "-e", "signed-integer", "-"],
        input=raw, check=True, capture_output=True,
    ).stdout


class StartOpenTests(unittest.TestCase):
    """The real scorer says whether a trigger can still start a segment (issue 32: later early
    passes of a segment no trigger can start are left out)."""

    def test_a_trigger_keeps_the_start_open_and_plain_speech_closes_it(self):
        import clawtalk_wake as wake

        _, tiny, _ = model_paths()
        if not os.path.isfile(os.path.join(tiny, "model.bin")) or shutil.which("espeak-ng") is None:
            if os.environ.get("CLAWTALK_SPEECH_TESTS_NO_MODELS") == "1":
                self.skipTest("tiny.en or espeak-ng missing; CLAWTALK_SPEECH_TESTS_NO_MODELS=1")
            self.fail("needs models/whisper-tiny-en and espeak-ng (run scripts/setup)")
        scorer = wake.KeywordScorer(tiny, 1)
        triggers = [scorer.spec(t, wake.default_threshold(t), []) for t in ("openclaw", "claude", "computer")]

        def first_second(text):
            pcm = np.frombuffer(espeak(text), dtype="<i2").astype(np.float32) / 32768.0
            return scorer.score(pcm[:RATE], triggers, keyword_only=True)

        for text in ("Computer, what time is it?", "Hey Claude, what's the weather?"):
            self.assertTrue(first_second(text).start_open, text)
        for text in ("The weather this weekend looks fine.", "Please read me the last email."):
            self.assertFalse(first_second(text).start_open, text)
        # A first second that holds only a lead-in may end before the trigger ("Hey ... Claude").
        self.assertTrue(first_second("Hey.").start_open)


class ServerTests(unittest.TestCase):
    server = None

    @classmethod
    def setUpClass(cls):
        asr, wake_model, turn = model_paths()
        missing = [p for p in (os.path.join(asr, "model.bin"), os.path.join(wake_model, "model.bin")) if not os.path.isfile(p)]
        tools = [t for t in ("espeak-ng", "sox") if shutil.which(t) is None]
        if missing or tools:
            if os.environ.get("CLAWTALK_SPEECH_TESTS_NO_MODELS") == "1":
                raise unittest.SkipTest(f"models/tools missing ({missing + tools}); CLAWTALK_SPEECH_TESTS_NO_MODELS=1")
            raise AssertionError(
                f"clawtalk-speech integration tests need {', '.join(missing + tools)} (run scripts/setup; "
                "or set CLAWTALK_SPEECH_TESTS_NO_MODELS=1 to skip them)"
            )
        cls.dir = tempfile.mkdtemp(prefix="clawtalk-speech-test-")
        cls.socket = os.path.join(cls.dir, "speech.sock")
        cls.uri = "unix://" + cls.socket
        cls.log_path = os.path.join(cls.dir, "server.log")
        # As `clawtalk run` starts it by default (stt.model tiny.en): tiny.en transcribes English
        # and scores wake words; base is the multilingual model, loaded when first asked for.
        command = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "clawtalk_speech.py"),
                   "--uri", cls.uri, "--asr-model", wake_model, "--wake-model", wake_model,
                   "--multilingual-model", asr]
        if os.path.isfile(turn):
            command += ["--turn-model", turn]
        cls.log = open(cls.log_path, "w")
        cls.server = subprocess.Popen(command, stderr=cls.log, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 300
        while "ready uri=" not in cls.read_log():
            if cls.server.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"clawtalk-speech did not start:\n{cls.read_log()}")
            time.sleep(0.1)

    @classmethod
    def tearDownClass(cls):
        if cls.server is not None:
            cls.server.terminate()
            cls.server.wait(30)
            cls.log.close()
            shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def read_log(cls):
        with open(cls.log_path) as f:
            return f.read()

    def request_lines(self):
        return [line for line in self.read_log().splitlines() if "|transcript audio_ms=" in line]

    # -- a minimal Wyoming client --

    async def connect(self):
        from wyoming.client import AsyncClient

        client = AsyncClient.from_uri(self.uri)
        await client.connect()
        return client

    async def send_request(self, client, pcm, data=None):
        from wyoming.audio import AudioChunk, AudioStart, AudioStop
        from wyoming.event import Event

        await client.write_event(Event("transcribe", data or {"language": "en"}))
        await client.write_event(AudioStart(rate=RATE, width=2, channels=1).event())
        for start in range(0, len(pcm), 3200):
            await client.write_event(AudioChunk(rate=RATE, width=2, channels=1, audio=pcm[start:start + 3200]).event())
        await client.write_event(AudioStop().event())

    async def read_transcript(self, client):
        while True:
            event = await asyncio.wait_for(client.read_event(), 300)
            self.assertIsNotNone(event, "the server closed the connection")
            if event.type == "transcript":
                return event.data

    def transcribe(self, pcm, data=None):
        async def run():
            client = await self.connect()
            try:
                await self.send_request(client, pcm, data)
                return await self.read_transcript(client)
            finally:
                await client.disconnect()

        return asyncio.run(run())

    # -- the tests --

    def test_socket_is_private(self):
        self.assertEqual(os.stat(self.socket).st_mode & 0o777, 0o600)

    def test_describe_lists_asr_and_wake(self):
        async def run():
            from wyoming.info import Describe

            client = await self.connect()
            try:
                await client.write_event(Describe().event())
                while True:
                    event = await asyncio.wait_for(client.read_event(), 60)
                    if event.type == "info":
                        return event.data
            finally:
                await client.disconnect()

        info = asyncio.run(run())
        self.assertEqual(info["asr"][0]["name"], "clawtalk-speech")
        self.assertEqual(info["asr"][0]["models"][0]["name"], "whisper-tiny-en")
        # English from tiny.en, and every language of the multilingual model, loaded or not.
        self.assertIn("en", info["asr"][0]["models"][0]["languages"])
        self.assertIn("de", info["asr"][0]["models"][0]["languages"])
        self.assertEqual(info["wake"][0]["name"], "clawtalk-wake")

    def test_a_spoken_sentence(self):
        answer = self.transcribe(espeak("Please turn on the kitchen lights."), {"language": "en-US", "turn": True})
        words = re.findall(r"[a-z]+", answer["text"].lower())
        for word in ("turn", "on", "kitchen"):
            self.assertIn(word, words, answer)
        self.assertEqual(answer["language"], "en")
        self.assertFalse(answer["silent"])
        self.assertGreater(answer["audio_ms"], 1000)
        for field in ("compute_ms", "queue_ms"):
            self.assertGreaterEqual(answer[field], 0)
        if os.path.isfile(model_paths()[2]):
            self.assertGreaterEqual(answer["turn_complete"], 0.0)
            self.assertLessEqual(answer["turn_complete"], 1.0)
            self.assertIn("turn_ms", answer)

    def test_another_language_loads_the_multilingual_model_once(self):
        loaded = "multilingual model loaded"
        before = self.read_log().count(loaded)
        answer = self.transcribe(espeak("Guten Morgen. Ich habe heute keine Zeit.", voice="de"), {"language": "de-DE"})
        self.assertEqual(answer["language"], "de")
        self.assertFalse(answer["silent"], answer)
        # Whisper base hears espeak-ng's German roughly ("Roten Morden" was seen), but in German.
        words = set(re.findall(r"\w+", answer["text"].lower()))
        self.assertTrue(words & {"ich", "habe", "heute", "keine", "zeit", "morgen"}, answer)
        self.assertEqual(self.read_log().count(loaded), 1 if before == 0 else before)
        english = self.transcribe(espeak("Good morning."), {"language": "en"})
        self.assertIn("morning", english["text"].lower())
        self.transcribe(espeak("Ich habe heute keine Zeit.", voice="de"), {"language": "de"})
        self.assertEqual(self.read_log().count(loaded), 1, "loaded once, then kept")

    def test_no_turn_probability_unless_asked(self):
        answer = self.transcribe(espeak("Hello there."))
        self.assertNotIn("turn_complete", answer)

    def test_silence_is_answered_without_decoding(self):
        quiet = (np.random.default_rng(3).standard_normal(2 * RATE) * 10).astype("<i2").tobytes()  # about -70 dBFS
        answer = self.transcribe(quiet)
        self.assertEqual(answer["text"], "")
        self.assertTrue(answer["silent"])
        line = self.request_lines()[-1]
        self.assertIn("silent=true", line)
        self.assertIn("decoded=false", line)

    def test_a_client_gone_while_queued_does_not_delay_the_next(self):
        long_pcm = espeak(" ".join(["This is a long sentence that keeps the worker busy for a while."] * 4))

        async def run():
            busy = await self.connect()
            gone = await self.connect()
            waiting = await self.connect()
            try:
                # `busy` occupies the worker; `gone` queues behind it and leaves; `waiting` queues
                # last and must be answered without `gone`'s request running.
                await self.send_request(busy, long_pcm)
                await self.send_request(gone, long_pcm)
                await asyncio.sleep(0.2)
                await gone.disconnect()
                await asyncio.sleep(0.2)
                await self.send_request(waiting, espeak("Good morning, how are you today?"))
                first = await self.read_transcript(busy)
                answer = await self.read_transcript(waiting)
                return first, answer
            finally:
                await busy.disconnect()
                await waiting.disconnect()

        before = len(self.request_lines())
        first, answer = asyncio.run(run())
        self.assertIn("morning", answer["text"].lower())
        self.assertIn("long sentence", first["text"].lower())
        lines = self.request_lines()[before:]
        cancelled = [line for line in lines if "cancelled=true" in line]
        self.assertEqual(len(cancelled), 1, lines)
        # The gone client's request never ran: nothing decoded, no compute.
        self.assertIn("decoded=false", cancelled[0])
        self.assertIn("compute_ms=0", cancelled[0])

    def test_wake_detection_still_works(self):
        async def run():
            from wyoming.audio import AudioChunk, AudioStart, AudioStop
            from wyoming.event import Event

            client = await self.connect()
            try:
                await client.write_event(Event("detect", {"names": ["computer"]}))
                pcm = espeak("Computer, what time is it?")
                await client.write_event(AudioStart(rate=RATE, width=2, channels=1, timestamp=0).event())
                for start in range(0, len(pcm), 3200):
                    await client.write_event(AudioChunk(rate=RATE, width=2, channels=1, audio=pcm[start:start + 3200]).event())
                await client.write_event(AudioStop().event())
                while True:
                    event = await asyncio.wait_for(client.read_event(), 120)
                    if event.type in ("detection", "not-detected"):
                        return event
            finally:
                await client.disconnect()

        event = asyncio.run(run())
        self.assertEqual(event.type, "detection")
        self.assertEqual(event.data["name"], "computer")


if __name__ == "__main__":
    unittest.main()
