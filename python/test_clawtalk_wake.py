"""Unit tests of clawtalk-wake's text rules (no model needed): `python3 -m unittest` from python/."""

import argparse
import asyncio
import io
import json
import os
import tempfile
import math
import unittest

import clawtalk_wake as wake


class TextMatchTests(unittest.TestCase):
    def test_trigger_at_the_start(self):
        self.assertTrue(wake.text_match("Computer, what time is it?", "computer"))
        self.assertTrue(wake.text_match("Computer Computer Computer", "computer"))

    def test_trigger_after_a_lead_in_counts_as_at_the_start(self):
        self.assertTrue(wake.text_match("Hey Claude what time is it", "claude", at_end=False))
        self.assertTrue(wake.text_match("Okay OpenClaw set a timer", "openclaw", at_end=False))
        self.assertTrue(wake.text_match("OK, open claw turn on the lights", "openclaw", at_end=False))
        self.assertTrue(wake.text_match("Hi, hey computer what time", "computer", at_end=False))

    def test_a_lead_in_does_not_make_a_near_miss_a_trigger(self):
        self.assertFalse(wake.text_match("Hey cloud.", "claude"))
        self.assertFalse(wake.text_match("Okay, Claudia.", "claude"))
        self.assertFalse(wake.text_match("Hey Claude", "claude", at_start=False, at_end=False))
        self.assertFalse(wake.text_match("Hey there Claude is here", "claude", at_end=False))

    def test_trigger_before_a_pause(self):
        self.assertTrue(wake.text_match("Hey computer, what time is it?", "computer"))
        self.assertTrue(wake.text_match("okay then computer", "computer"))

    def test_trigger_inside_a_sentence_is_not_a_wake(self):
        self.assertFalse(wake.text_match("The computer is slow today.", "computer"))

    def test_whole_words_only(self):
        self.assertFalse(wake.text_match("Computers are everywhere.", "computer"))
        self.assertFalse(wake.text_match("Claudette, come here.", "claude"))

    def test_splits_and_joins_of_the_trigger(self):
        self.assertTrue(wake.text_match("Open Claw, start a timer.", "openclaw"))
        self.assertTrue(wake.text_match("OpenClaw.", "openclaw"))
        self.assertTrue(wake.text_match("Hey, Jarvis!", "hey jarvis"))

    def test_case_and_diacritics_are_ignored(self):
        self.assertTrue(wake.text_match("CLAUDÉ.", "claude"))

    def test_a_window_cut_from_running_speech_has_no_start_or_end_pause(self):
        self.assertFalse(wake.text_match("computer is slow", "computer", at_start=False))
        self.assertFalse(wake.text_match("I asked the computer", "computer", at_end=False))
        self.assertTrue(wake.text_match("and so, computer, what time", "computer", at_start=False, at_end=False))

    def test_empty_inputs(self):
        self.assertFalse(wake.text_match("", "computer"))
        self.assertFalse(wake.text_match("Computer.", "  "))


class SpellingTests(unittest.TestCase):
    def test_case_variants_each_start_with_a_space(self):
        forms = wake.spelling_variants("computer")
        self.assertIn(" computer", forms)
        self.assertIn(" Computer", forms)
        self.assertTrue(all(f.startswith(" ") for f in forms))
        self.assertEqual(len(forms), len(set(forms)))

    def test_splits_give_spaced_and_camel_forms(self):
        forms = wake.spelling_variants("openclaw", ["open claw"])
        for form in (" Open Claw", " open claw", " OpenClaw", " Openclaw"):
            self.assertIn(form, forms)

    def test_a_pause_form_for_phrases(self):
        self.assertIn(" Hey, Jarvis", wake.spelling_variants("hey jarvis"))

    def test_sequences_that_extend_another_are_dropped(self):
        kept = wake.without_shared_prefixes([[1, 2], [1, 2, 3], [1, 2], [4], []])
        self.assertEqual(sorted(kept), [[1, 2], [4]])


class OnlyLeadInsTests(unittest.TestCase):
    def test_a_start_of_lead_ins_only_stays_open(self):
        for text in ("Hey", "Hey,", "Okay.", "OK, hey", ""):
            self.assertTrue(wake.only_lead_ins(text), text)

    def test_any_other_word_decides(self):
        for text in ("Hey, yo.", "What time is it?", "Okay open", "Heya"):
            self.assertFalse(wake.only_lead_ins(text), text)


class TriggerPromptTests(unittest.TestCase):
    @staticmethod
    def scorer(prompting):
        scorer = object.__new__(wake.KeywordScorer)
        scorer.prefix = [100, 101]
        scorer.start_of_previous = 99
        scorer.prompting = prompting
        scorer.prefixes = {}
        scorer.encode_text = lambda text: [ord(c) for c in text]
        return scorer

    def test_the_brand_triggers_are_prompted_before_the_usual_prefix(self):
        triggers = [wake.TriggerSpec(n, [[1]], 0.01) for n in ("computer", "Claude", "openclaw")]
        prefix = self.scorer(True).prefix_for(triggers)
        self.assertEqual(prefix, [99] + [ord(c) for c in " Claude, OpenClaw."] + [100, 101])

    def test_no_prompt_when_off_or_for_other_triggers(self):
        self.assertEqual(self.scorer(False).prefix_for([wake.TriggerSpec("claude", [[1]], 0.01)]), [100, 101])
        self.assertEqual(self.scorer(True).prefix_for([wake.TriggerSpec("computer", [[1]], 0.01)]), [100, 101])


class FirstStepBoundTests(unittest.TestCase):
    def test_the_bound_adds_spellings_and_lead_ins(self):
        scorer = object.__new__(wake.KeywordScorer)
        scorer.lead_ins = [[HEY]]
        first = [0.0] * FakeModel.VOCAB
        first[CLAUDE], first[HEY], first[OPEN] = 0.02, 0.1, 0.3
        trigger = wake.TriggerSpec("claude", [[CLAUDE], [CLOUD]], 0.01)
        self.assertAlmostEqual(scorer.first_step_bound(trigger, first), 0.12)

    def test_the_brand_triggers_end_early_passes_at_a_higher_share(self):
        # Their thresholds are a third of the default: a tenth of them keeps most read speech open.
        for name, share in (("openclaw", 0.3), ("claude", 0.3), ("computer", wake.START_MARGIN)):
            self.assertEqual(wake.early_pass_margin(wake.TriggerSpec(name, [[1]], 0.01)), share)
        self.assertGreaterEqual(min(wake.EARLY_PASS_MARGINS.values()), wake.START_MARGIN)

    def test_the_bound_is_never_below_the_score(self):
        # "Hey" then "Claude": the score is P(Hey) * P(Claude | Hey) = 0.5 * 0.8, the bound 0.5 + P(Claude).
        table = {(): {HEY: 0.5, CLAUDE: 0.1}, (HEY,): {CLAUDE: 0.8}}
        total, _, _ = start_score(table, [[CLAUDE]])
        scorer = object.__new__(wake.KeywordScorer)
        scorer.lead_ins = [[HEY]]
        first = FakeModel(table).distribution([])
        self.assertGreaterEqual(scorer.first_step_bound(wake.TriggerSpec("claude", [[CLAUDE]], 0.01), first), total)


class ScheduleTests(unittest.TestCase):
    @staticmethod
    def passes(seconds, late_ms=0):
        """The segment lengths (ms) at which a segment streamed in 100 ms chunks is scored
        before its end, at the defaults (first 1000, every 500 up to 2000)."""
        ms = wake.SAMPLE_RATE // 1000
        scored, at = 0, []
        for count in range(1600, int(seconds * wake.SAMPLE_RATE) + 1, 1600):
            if wake.pass_due(count, scored, 1000 * ms, 500 * ms, 2000 * ms, late_ms * ms):
                scored = count
                at.append(count // ms)
        return at

    def test_a_segment_is_first_scored_once_a_trigger_fits(self):
        self.assertEqual(self.passes(0.9), [])
        self.assertEqual(self.passes(1.0), [1000])

    def test_early_passes_then_only_the_end(self):
        self.assertEqual(self.passes(8), [1000, 1500, 2000])

    def test_late_passes_when_asked(self):
        self.assertEqual(self.passes(4.5, late_ms=1000), [1000, 1500, 2000, 3000, 4000])


class FakeModel:
    """A decoder over a tiny vocabulary: each step's distribution depends on the tokens so far
    (`table`: prefix tuple -> {token: probability}, the rest on a filler token)."""

    VOCAB = 12
    FILL = 11

    def __init__(self, table):
        self.table = table
        self.generated = []
        self.aligned = []

    def distribution(self, prefix):
        chosen = dict(self.table.get(tuple(prefix), {}))
        chosen[self.FILL] = 1.0 - sum(chosen.values())
        return [chosen.get(token, 0.0) for token in range(self.VOCAB)]

    def logits(self, prefix):
        return [math.log(max(p, 1e-12)) for p in self.distribution(prefix)]

    def generate(self, encoded, prompts, beam_size, max_length, return_logits_vocab, **_):
        """One result per prompt (a batch when there are several: `calls` counts the calls)."""
        self.calls = getattr(self, "calls", 0) + 1
        results = []
        for full in prompts:
            prompt = list(full[len(SCORER_PREFIX):])
            self.generated.append(prompt)
            ids, logits = list(prompt), [self.logits(prompt[:i]) for i in range(len(prompt))]
            while len(ids) < max_length:
                step = self.distribution(ids)
                logits.append(self.logits(ids))
                ids.append(max(range(self.VOCAB), key=lambda t: step[t]))

            class Result:
                sequences_ids = [ids]

            Result.logits = [logits]
            results.append(Result)
        return results

    def align(self, encoded, prefix, sequences, frames):
        """One forced decode per sequence (a batch when there are several)."""
        self.align_calls = getattr(self, "align_calls", 0) + 1
        results = []
        for sequence in sequences:
            self.aligned.append(list(sequence))

            class Forced:
                text_token_probs = [self.distribution(sequence[:i])[t] for i, t in enumerate(sequence)]

            results.append(Forced)
        return results


SCORER_PREFIX = [100]
HEY, COMMA, OPEN, CLAW, CLAUDE, CLOUD, OTHER = 1, 2, 3, 4, 5, 6, 7


class FakeScorer:
    prefix = SCORER_PREFIX

    def __init__(self, table):
        self.model = FakeModel(table)

    @staticmethod
    def max_length(tokens, prompt=0, start=0):
        return prompt + tokens  # the fake returns exactly max_length tokens

    @staticmethod
    def repeat(encoded, count):
        return encoded

    @staticmethod
    def _probabilities(logits):
        values = [math.exp(v) for v in logits]
        total = sum(values)
        return [v / total for v in values]


def start_score(table, spellings, lead_ins=([HEY],), marks=(COMMA,), floor=1e-4, longest=2):
    """The summed probability of the spellings, bare or after a lead-in, as `score` adds it."""
    scorer = FakeScorer(table)
    decoding = wake._Decoding(scorer, encoded=None, frames=10, longest=longest)
    first = scorer.model.generate(None, [SCORER_PREFIX], 1, longest + 3, True)[0]
    steps = [scorer._probabilities(step) for step in first.logits[0]]
    scorer.model.generated.clear()
    contexts = decoding.contexts(first.sequences_ids[0], steps, [list(x) for x in lead_ins], list(marks), floor)
    total = sum(decoding.spelling(c, s, floor) for c in contexts for s in spellings)
    return total, contexts, scorer.model


class LeadInScoringTests(unittest.TestCase):
    def test_a_trigger_at_the_start_scores_as_before(self):
        total, contexts, _ = start_score({(): {CLAUDE: 0.9}}, [[CLAUDE]])
        self.assertAlmostEqual(total, 0.9, places=6)

    def test_a_trigger_after_hey_on_the_greedy_path_costs_no_decode(self):
        table = {(): {HEY: 0.8, CLAUDE: 0.05}, (HEY,): {CLAUDE: 0.7, COMMA: 0.2}, (HEY, COMMA): {CLAUDE: 0.9}}
        total, contexts, model = start_score(table, [[CLAUDE]])
        # bare 0.05 + "Hey Claude" 0.8*0.7 + "Hey, Claude" 0.8*0.2*0.9 (comma off the greedy path)
        self.assertAlmostEqual(total, 0.05 + 0.56 + 0.144, places=6)
        self.assertEqual(model.generated, [[HEY, COMMA]])

    def test_an_unlikely_lead_in_is_not_decoded(self):
        table = {(): {OTHER: 0.99}}
        total, contexts, model = start_score(table, [[CLAUDE]], floor=1e-3)
        self.assertEqual([c.tokens for c in contexts], [[]])
        self.assertEqual(model.generated, [])
        self.assertLess(total, 1e-3)

    def test_a_lead_in_off_the_greedy_path_is_decoded_from(self):
        table = {(): {OTHER: 0.6, HEY: 0.3}, (HEY,): {CLAUDE: 0.9}}
        total, contexts, model = start_score(table, [[CLAUDE]])
        self.assertIn([HEY], [c.tokens for c in contexts])
        self.assertIn([HEY], model.generated)
        self.assertAlmostEqual(total, 0.3 * 0.9, places=6)

    def test_lead_ins_off_the_greedy_path_are_decoded_in_one_batch(self):
        table = {(): {OTHER: 0.5, HEY: 0.2, OPEN: 0.2}, (HEY,): {CLAUDE: 0.9}, (OPEN,): {CLAUDE: 0.5}}
        scorer = FakeScorer(table)
        decoding = wake._Decoding(scorer, encoded=None, frames=10, longest=2)
        first = scorer.model.generate(None, [SCORER_PREFIX], 1, 5, True)[0]
        steps = [scorer._probabilities(step) for step in first.logits[0]]
        scorer.model.generated.clear()
        scorer.model.calls = 0
        contexts = decoding.contexts(first.sequences_ids[0], steps, [[HEY], [OPEN]], [], 1e-4)
        self.assertEqual([c.tokens for c in contexts], [[], [HEY], [OPEN]])
        self.assertEqual(scorer.model.generated, [[HEY], [OPEN]])
        self.assertEqual((scorer.model.calls, decoding.batched), (1, 1), "both continuations in one decoder call")
        self.assertEqual(contexts[1].path[0], CLAUDE)
        self.assertAlmostEqual(float(contexts[2].steps[0][CLAUDE]), 0.5, places=6)

    def test_a_near_miss_after_hey_adds_nothing(self):
        table = {(): {HEY: 0.9}, (HEY,): {CLOUD: 0.95}}
        total, _, _ = start_score(table, [[CLAUDE]], floor=1e-3)
        self.assertEqual(total, 0.0)

    def test_a_two_token_spelling_after_a_lead_in_is_forced_off_the_path(self):
        table = {(): {HEY: 0.9}, (HEY,): {OTHER: 0.6, OPEN: 0.3}, (HEY, OPEN): {CLAW: 0.8}}
        total, _, model = start_score(table, [[OPEN, CLAW]])
        self.assertAlmostEqual(total, 0.9 * 0.3 * 0.8, places=6)
        self.assertIn([HEY, OPEN, CLAW], model.aligned)


class RivalTests(unittest.TestCase):
    @staticmethod
    def trigger_score(table, rivals, threshold=0.01):
        scorer = FakeScorer(table)
        decoding = wake._Decoding(scorer, encoded=None, frames=10, longest=2)
        first = scorer.model.generate(None, [SCORER_PREFIX], 1, 5, True)[0]
        steps = [scorer._probabilities(step) for step in first.logits[0]]
        contexts = decoding.contexts(first.sequences_ids[0], steps, [[HEY]], [COMMA], 1e-4)
        spec = wake.TriggerSpec("claude", [[CLAUDE]], threshold, rivals=rivals)
        return decoding.trigger_score(spec, contexts)

    def test_a_near_miss_that_is_far_likelier_than_the_trigger_is_refused(self):
        # "cloud": tiny.en gives "Claude" a few per cent, "Cloud" nearly all the rest.
        self.assertEqual(self.trigger_score({(): {CLOUD: 0.9, CLAUDE: 0.03}}, [[CLOUD]]), 0.0)

    def test_a_trigger_half_heard_as_its_rival_still_counts(self):
        score = self.trigger_score({(): {CLOUD: 0.6, CLAUDE: 0.3}}, [[CLOUD]])
        self.assertAlmostEqual(score, 0.3, places=6)

    def test_without_rivals_the_score_is_the_sum(self):
        self.assertAlmostEqual(self.trigger_score({(): {CLOUD: 0.9, CLAUDE: 0.03}}, []), 0.03, places=6)

    def test_rivals_after_a_lead_in_count_too(self):
        table = {(): {HEY: 0.9}, (HEY,): {CLOUD: 0.9, CLAUDE: 0.05}}
        self.assertEqual(self.trigger_score(table, [[CLOUD]]), 0.0)


class FakeService:
    """A service whose scorer records the length of every window it is given."""

    def __init__(self):
        self.args = argparse.Namespace(
            trigger=["computer"], threshold=0.01, first_ms=1000, interval_ms=500, early_ms=2000,
            late_interval_ms=0, segment_ms=5000, window_ms=3000,
        )
        self.lengths = []
        self.load = wake.PassLoad()
        self.worker = None
        self.trace = None  # a wake.Trace to record passes
        self.start_open = True  # what every pass says of the segment's start
        self.lead_ins_open = None  # and of its end's lead-in decodes (None: as start_open)
        self.logit = None  # every trigger's acoustic head logit when a pass asks for it (None: no head)
        self.acoustic_asked = []  # whether each pass asked for the heads
        outer = self

        class Scorer:
            heads = {"computer": argparse.Namespace(threshold=0.0)}

            def score(self, audio, triggers, keyword_only=False, text_only=False, lead_ins=True, acoustic=True):
                outer.lengths.append(
                    (len(audio), keyword_only) + (("text only",) if text_only else ()) + (() if lead_ins else ("bare",))
                )
                outer.acoustic_asked.append(acoustic)
                logits = {t.name: outer.logit for t in triggers} if acoustic and outer.logit is not None else {}
                return wake.Scores(
                    {t.name: 0.0 for t in triggers}, "", 0.001, start_open=outer.start_open,
                    lead_ins_open=outer.lead_ins_open, acoustic=logits,
                )

        self.scorer = Scorer()

    def specs(self, names, thresholds, aliases):
        return [wake.TriggerSpec(n, [[1]], 0.01) for n in names]


class HandlerScheduleTests(unittest.TestCase):
    def run_segment(self, seconds, paced, start_open=True, trace=None, lead_ins_open=None, service=None, detect=None):
        """Streams a segment of `seconds` in 100 ms chunks, at once (a file) or letting every
        pass finish before the next chunk (live), after `detect` (its data) if given; the
        (length, keyword only) of each pass, and the events written."""
        try:
            from wyoming.audio import AudioChunk, AudioStart, AudioStop
            from wyoming.wake import Detect
        except ImportError:
            self.skipTest("wyoming is not installed (scripts/setup installs it in the venv)")
        service = service or FakeService()
        service.start_open = start_open
        service.lead_ins_open = lead_ins_open
        service.trace = trace
        written = []
        self.events = []

        async def run():
            handler_class = wake.make_handler_class()
            handler = handler_class(service, asyncio.StreamReader(), None)

            async def write_event(event):
                written.append(event.type)
                self.events.append(event)

            handler.write_event = write_event
            if detect is not None:
                event = Detect(names=detect.get("names")).event()
                event.data.update(detect)
                await handler.handle_event(event)
            await handler.handle_event(AudioStart(rate=16000, width=2, channels=1, timestamp=0).event())
            chunk = bytes(3200)
            for _ in range(int(seconds * 10)):
                await handler.handle_event(AudioChunk(rate=16000, width=2, channels=1, audio=chunk).event())
                if paced:
                    await handler.finish_scoring()
            await handler.handle_event(AudioStop().event())

        asyncio.run(run())
        return service.lengths, written

    def test_a_segment_sent_at_once_is_scored_as_live(self):
        at_once, written = self.run_segment(1.8, paced=False)
        live, _ = self.run_segment(1.8, paced=True)
        self.assertEqual(at_once, live)
        self.assertEqual(at_once, [(16000, True), (24000, True), (28800, False)])
        self.assertEqual(written, ["not-detected"])

    def test_the_end_is_scored_even_right_after_an_early_pass(self):
        lengths, _ = self.run_segment(1.5, paced=False)
        self.assertEqual(lengths, [(16000, True), (24000, True), (24000, False)])

    def test_a_start_no_trigger_can_have_ends_the_early_passes(self):
        # The first pass finds no trigger can start the segment: no further early pass, live or
        # sent at once; the end is still scored whole, keyword score included (the first pass may
        # have heard noise or half the trigger), for the trigger at the very start ("bare").
        for paced in (False, True):
            with self.subTest(paced=paced):
                lengths, written = self.run_segment(1.8, paced=paced, start_open=False)
                self.assertEqual(lengths, [(16000, True), (28800, False, "bare")])
                self.assertEqual(written, ["not-detected"])

    def test_a_start_under_the_early_pass_margin_keeps_its_ends_lead_ins(self):
        # Under a brand trigger's early-pass margin but over START_MARGIN: the early passes end,
        # and the end is scored with its lead-in decodes (not "bare").
        for paced in (False, True):
            with self.subTest(paced=paced):
                lengths, _ = self.run_segment(1.8, paced=paced, start_open=False, lead_ins_open=True)
                self.assertEqual(lengths, [(16000, True), (28800, False)])

    def test_a_long_segment_ends_with_its_last_window(self):
        lengths, _ = self.run_segment(7, paced=False)
        # Its end is a window cut out of running speech: transcribed only (no start to score).
        self.assertEqual(lengths, [(16000, True), (24000, True), (32000, True), (48000, False, "text only")])

    def test_a_head_over_its_threshold_wakes_on_a_whole_window(self):
        service = FakeService()
        service.logit = 1.5
        _, written = self.run_segment(1.8, paced=False, service=service)
        self.assertEqual(written, ["detection"])
        self.assertEqual(self.events[0].data["method"], "acoustic")
        self.assertEqual(self.events[0].data["logit"], 1.5)

    def test_detect_can_turn_the_heads_off(self):
        # wake.acousticHeads false: the node's detect says "acoustic": false; no pass runs a head.
        service = FakeService()
        service.logit = 1.5
        _, written = self.run_segment(1.8, paced=False, service=service, detect={"names": ["computer"], "acoustic": False})
        self.assertEqual(written, ["not-detected"])
        self.assertEqual(service.acoustic_asked, [False, False, False])

    def test_the_heads_run_only_on_whole_windows(self):
        # A long segment's end is a window cut out of running speech, where no head may wake.
        service = FakeService()
        service.start_open = True
        self.run_segment(7, paced=False, service=service)
        self.assertEqual(service.acoustic_asked, [True, True, True, False])

    def test_the_trace_numbers_segments_and_records_every_pass(self):
        stream = io.StringIO()
        trace = wake.Trace(stream)
        self.run_segment(1.8, paced=False, trace=trace)
        self.run_segment(1.2, paced=False, trace=trace)
        records = [json.loads(line) for line in stream.getvalue().splitlines()]
        self.assertEqual(
            [(r["segment"], r["until_ms"], r["final"]) for r in records],
            [(1, 1000, False), (1, 1500, False), (1, 1800, True), (2, 1000, False), (2, 1200, True)],
        )
        self.assertEqual(records[0]["keyword"], {"computer": 0.0})
        self.assertEqual(records[0]["fired"], [])


class TraceFileTests(unittest.TestCase):
    def test_the_trace_file_is_private_and_appended_to(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "trace.jsonl")
            for line in ("one\n", "two\n"):
                stream = wake.open_trace(path)
                stream.write(line)
                stream.close()
            with open(path, encoding="utf-8") as written:
                self.assertEqual(written.read(), "one\ntwo\n")
            self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        self.assertIsNone(wake.open_trace(None))



class PassLoadTests(unittest.TestCase):
    def test_sums_a_minute_of_passes_then_starts_anew(self):
        now = [100.0]
        load = wake.PassLoad(clock=lambda: now[0])
        self.assertIsNone(load.add("early", 1.0, 0.05))
        now[0] = 130.0
        self.assertIsNone(load.add("text_only", 3.0, 0.08))
        now[0] = 160.0
        line = load.add("early", 1.0, 0.05)
        self.assertEqual(line, "wake.passes period_s=60 early=2 text_only=1 audio_s=5.0 compute_ms=180 load_pct=0.3")
        now[0] = 170.0
        self.assertIsNone(load.add("final", 2.0, 0.1), "a new period began at 160 s")


if __name__ == "__main__":
    unittest.main()
