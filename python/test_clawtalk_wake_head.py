"""Tests of the acoustic keyword heads (clawtalk_wake_head.py): the shipped file, malformed files,
the window arithmetic, the trainer's forward pass (scripts/train-wake-heads) against the scorer's,
and the heads on real audio through tiny.en (which needs the model and espeak-ng: without them the
last test fails, unless CLAWTALK_SPEECH_TESTS_NO_MODELS=1)."""

import argparse
import contextlib
import importlib.machinery
import importlib.util
import io
import json
import logging
import os
import shutil
import subprocess
import tempfile
import unittest

import numpy as np

import clawtalk_wake as wake
import clawtalk_wake_head as head

TRAINER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "train-wake-heads")


def tiny_head(**changes):
    """A head on 2-dim frames whose part j reads the frame's dimension j: a window of two parts
    of one frame each scores x[t][0] + x[t + 1][1]."""
    net = head.HeadNet(w1=np.eye(2, dtype=np.float32), b1=np.zeros(2, np.float32), w2=np.eye(2, dtype=np.float32),
                       c=np.zeros(2, np.float32), b2=0.0)
    values = dict(name="t", nets=(net,), mean=np.zeros(2, np.float32), scale=np.ones(2, np.float32), parts=2,
                  part_frames=1, sharpness=50.0, threshold=0.0)
    values.update(changes)
    return head.KeywordHead(**values)


class ShippedHeadsTests(unittest.TestCase):
    def test_the_shipped_file_has_both_brand_triggers_on_tiny_en_frames(self):
        heads = head.load_heads(np)
        self.assertEqual(sorted(heads), ["claude", "openclaw"])
        for item in heads.values():
            self.assertGreaterEqual(len(item.nets), 1)
            self.assertEqual(item.mean.shape, (384,))
            for net in item.nets:
                self.assertEqual(net.w1.shape[0], 384)
                self.assertEqual(net.w2.shape, (net.w1.shape[1], item.parts))
            self.assertTrue(np.isfinite(item.threshold))

    def test_silence_is_far_below_every_threshold(self):
        for item in head.load_heads(np).values():
            self.assertLess(item.logit(np, np.zeros((50, 384), np.float32)), item.threshold)


class HeadFileTests(unittest.TestCase):
    def write(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def good(self):
        with open(head.HEADS_FILE, encoding="utf-8") as f:
            return json.load(f)

    def test_malformed_files_are_refused_with_their_reason(self):
        missing = os.path.join(tempfile.gettempdir(), "clawtalk-no-such-heads.json")
        document = self.good()
        document["heads"]["claude"]["nets"][0]["w1"]["f16"] = "not base64!"
        wrong_shape = self.good()
        wrong_shape["heads"]["claude"]["nets"][-1]["w1"]["shape"] = [3, 3]
        other_width = self.good()
        net = other_width["heads"]["claude"]["nets"][-1]
        net["w1"] = head.encode_array(np, np.zeros((384, 5)))
        net["b1"] = head.encode_array(np, np.zeros(5))
        bad_scale = self.good()
        bad_scale["heads"]["openclaw"]["scale"] = head.encode_array(np, np.ones(3))
        no_nets = self.good()
        no_nets["heads"]["openclaw"]["nets"] = []
        no_key = self.good()
        del no_key["heads"]["openclaw"]["threshold"]
        cases = {
            "missing": missing, "not json": self.write("{"), "other format": self.write('{"format": 3, "heads": {}}'),
            "bad base64": self.write(json.dumps(document)), "wrong shape": self.write(json.dumps(wrong_shape)),
            "layers that do not fit": self.write(json.dumps(other_width)), "no networks": self.write(json.dumps(no_nets)),
            "scale of another size": self.write(json.dumps(bad_scale)),
            "no threshold": self.write(json.dumps(no_key)),
        }
        for label, path in cases.items():
            with self.assertRaises(head.HeadFileError, msg=label):
                head.load_heads(np, path)

    def test_a_format_1_file_is_a_head_of_one_network(self):
        document = self.good()
        for entry in document["heads"].values():
            entry.update(entry.pop("nets")[0])
        document["format"] = 1
        heads = head.load_heads(np, self.write(json.dumps(document)))
        shipped = head.load_heads(np)
        frames = np.random.default_rng(1).normal(0, 1, (60, 384)).astype(np.float32)
        for name, item in heads.items():
            self.assertEqual(len(item.nets), 1)
            first = head.KeywordHead(**{**shipped[name].__dict__, "nets": shipped[name].nets[:1]})
            self.assertAlmostEqual(item.logit(np, frames), first.logit(np, frames), places=5)

    def test_arrays_survive_the_files_float16_form(self):
        values = np.array([[0.5, -1.25], [3.0, 0.001]], np.float32)
        back = head._array(np, head.encode_array(np, values))  # noqa: SLF001
        np.testing.assert_allclose(back, values, rtol=1e-3)

    def test_an_unreadable_file_leaves_the_scorer_on_its_decoder(self):
        args = argparse.Namespace(wake_heads=self.write("{"), no_wake_heads=False)
        with self.assertLogs("clawtalk_wake", logging.WARNING) as logs:
            self.assertEqual(wake.heads(args), {})
        self.assertIn("decoder alone", logs.output[0])
        self.assertEqual(wake.heads(argparse.Namespace(wake_heads=None, no_wake_heads=True)), {})
        self.assertEqual(sorted(wake.heads(argparse.Namespace(wake_heads=None, no_wake_heads=False))), ["claude", "openclaw"])


class WindowTests(unittest.TestCase):
    def test_parts_count_in_order(self):
        item = tiny_head()
        in_order = np.array([[0, 0], [1, 0], [0, 1], [0, 0]], np.float32)
        reversed_order = np.array([[0, 0], [0, 1], [1, 0], [0, 0]], np.float32)
        self.assertAlmostEqual(item.logit(np, in_order), 2.0, delta=0.05)
        self.assertLess(item.logit(np, reversed_order), 1.1)

    def test_the_logit_is_a_soft_maximum_over_positions(self):
        item = tiny_head(sharpness=1.0)
        frames = np.array([[1, 0], [0, 1], [1, 0], [0, 1]], np.float32)
        # Positions 0..2 score 2, 0 and 2: log(e^2 + e^0 + e^2).
        self.assertAlmostEqual(item.logit(np, frames), float(np.log(2 * np.exp(2) + 1)), places=5)

    def test_a_heads_logit_is_the_mean_of_its_networks(self):
        one = tiny_head(sharpness=1.0)
        # A second network that reads the parts the other way round, with a bias of its own.
        swapped = head.HeadNet(w1=np.eye(2, dtype=np.float32)[::-1].copy(), b1=np.zeros(2, np.float32),
                               w2=np.eye(2, dtype=np.float32), c=np.zeros(2, np.float32), b2=-1.0)
        other = tiny_head(sharpness=1.0, nets=(swapped,))
        both = tiny_head(sharpness=1.0, nets=(one.nets[0], swapped))
        frames = np.array([[1, 0], [0, 1], [0, 0], [2, 0]], np.float32)
        self.assertNotAlmostEqual(one.logit(np, frames), other.logit(np, frames), places=2)
        self.assertAlmostEqual(both.logit(np, frames), (one.logit(np, frames) + other.logit(np, frames)) / 2, places=5)

    def test_fewer_frames_than_a_window_are_padded_with_the_mean_frame(self):
        mean = np.array([0.5, -0.25], np.float32)
        item = tiny_head(part_frames=3, mean=mean, scale=np.array([2.0, 4.0], np.float32))
        short = np.array([[1, 0], [1, 0]], np.float32)
        padded = np.concatenate([short, np.repeat(mean[None], 4, axis=0)])
        self.assertAlmostEqual(item.logit(np, short), item.logit(np, padded), places=6)
        self.assertNotAlmostEqual(
            item.logit(np, short), item.logit(np, np.concatenate([short, np.zeros((4, 2), np.float32)])), places=3
        )

    def test_a_head_reads_the_frames_of_its_audio_and_a_tail_after_them(self):
        self.assertEqual(head.head_frames(16000, 250), 16000 // 320 + 1 + head.TAIL_FRAMES)
        self.assertEqual(head.head_frames(80000, 250), 250)
        self.assertEqual(head.head_frames(0, 250), 1 + head.TAIL_FRAMES)


def trainer_module():
    """scripts/train-wake-heads as a module (its file has no .py suffix, so it is loaded by path)."""
    loader = importlib.machinery.SourceFileLoader("train_wake_heads", TRAINER)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


class TrainerAgreesWithScorerTests(unittest.TestCase):
    """The trainer scores zero-padded batches of sequences of mixed lengths (Trainer.predict, as it evaluates its
    heads); each sequence must get the logit that KeywordHead.logit, what the scorer runs, gives it alone (a
    sequence shorter than one window included: both pad it with the mean frame)."""

    # (dim, hidden, parts, part_frames, sharpness): the shipped heads' shape, and another.
    SHAPES = [(384, 64, 4, 8, 4.0), (40, 16, 3, 5, 9.0)]

    @classmethod
    def setUpClass(cls):
        cls.train = trainer_module()

    def trainer(self, dim, hidden, parts, part_frames, sharpness):
        """A trainer with random weights and non-zero biases, a normalisation, and float16 sequences (as the
        features are stored) shorter than one window, of one window, a frame longer, and much longer."""
        rng = np.random.default_rng(dim)
        trainer = self.train.Trainer(np, dim, hidden=hidden, parts=parts, part_frames=part_frames, sharpness=sharpness,
                                     seed=dim)
        trainer.b1 = rng.normal(0, 0.5, hidden).astype(np.float32)
        trainer.c = rng.normal(0, 0.5, parts).astype(np.float32)
        trainer.b2 = np.array(rng.normal(-1, 0.5), np.float32)
        mean = rng.normal(0.2, 0.5, dim).astype(np.float32)
        scale = rng.uniform(0.5, 2.0, dim).astype(np.float32)
        lengths = (80, 5, trainer.width + 1, 150, trainer.width)
        return trainer, mean, scale, [rng.normal(0.2, 1.0, (n, dim)).astype(np.float16) for n in lengths]

    def assert_agree(self, trainer, item, mean, scale, seqs, delta):
        logits = trainer.predict(seqs, mean, scale)
        self.assertGreater(np.ptp(logits), 0.5, "the sequences' logits should differ")
        for frames, logit in zip(seqs, logits):
            self.assertAlmostEqual(logit, item.logit(np, frames), delta=delta, msg=f"{len(frames)} frames")

    def test_a_batch_of_mixed_lengths_gives_each_sequence_the_scorers_logit(self):
        for dim, hidden, parts, part_frames, sharpness in self.SHAPES:
            with self.subTest(dim=dim, parts=parts, part_frames=part_frames):
                trainer, mean, scale, seqs = self.trainer(dim, hidden, parts, part_frames, sharpness)
                net = head.HeadNet(w1=trainer.w1, b1=trainer.b1, w2=trainer.w2, c=trainer.c, b2=float(trainer.b2))
                item = head.KeywordHead(name="t", nets=(net,), mean=mean, scale=scale, parts=parts,
                                        part_frames=part_frames, sharpness=sharpness, threshold=0.0)
                self.assert_agree(trainer, item, mean, scale, seqs, delta=1e-4)

    def test_so_does_the_file_the_trainer_exports_with_the_mean_of_its_networks(self):
        for dim, hidden, parts, part_frames, sharpness in self.SHAPES:
            with self.subTest(dim=dim, parts=parts, part_frames=part_frames):
                trainer, mean, scale, seqs = self.trainer(dim, hidden, parts, part_frames, sharpness)
                second = self.train.Trainer(np, dim, hidden=hidden, parts=parts, part_frames=part_frames,
                                            sharpness=sharpness, seed=dim + 1)
                work = tempfile.mkdtemp()
                self.addCleanup(shutil.rmtree, work)
                for trigger in ("openclaw", "claude"):
                    for seed, net in enumerate((trainer, second)):
                        np.savez(self.train.net_path(work, trigger, seed), w1=net.w1, b1=net.b1, w2=net.w2, c=net.c,
                                 b2=net.b2, mean=mean, scale=scale, parts=parts, part_frames=part_frames,
                                 sharpness=sharpness)
                out = os.path.join(work, "heads.json")
                args = argparse.Namespace(work=work, nets=2, out=out, thresholds={"openclaw": 0.5, "claude": -1.0})
                with contextlib.redirect_stderr(io.StringIO()):
                    self.train.export(args)
                item = head.load_heads(np, out)["claude"]
                self.assertEqual((len(item.nets), item.threshold), (2, -1.0))
                # The trainers with the file's float16 weights: the head's logit is the mean of theirs.
                for net, loaded in zip((trainer, second), item.nets):
                    for name in ("w1", "b1", "w2", "c"):
                        setattr(net, name, getattr(loaded, name))
                    net.b2 = np.array(loaded.b2, np.float32)
                logits = (trainer.predict(seqs, item.mean, item.scale) + second.predict(seqs, item.mean, item.scale)) / 2
                self.assertGreater(np.ptp(logits), 0.5, "the sequences' logits should differ")
                for frames, logit in zip(seqs, logits):
                    self.assertAlmostEqual(logit, item.logit(np, frames), delta=1e-4, msg=f"{len(frames)} frames")


class SpeakerWarpTests(unittest.TestCase):
    """The trainer's speed-warped renderings (train_wake_heads.warped): more speakers from the same voices."""

    def test_half_the_clips_are_warped_by_five_to_sixteen_percent_either_way(self):
        warped = trainer_module().warped
        tone = np.sin(2 * np.pi * 200 * np.arange(16000) / 16000).astype(np.float32)
        speeds = []
        for seed in range(200):
            samples, speed = warped(np, np.random.default_rng(seed), tone)
            if samples is None:
                self.assertIsNone(speed)
                continue
            speeds.append(speed)
            self.assertTrue(0.05 <= abs(speed - 1) <= 0.16 + 1e-3, speed)
            self.assertEqual(samples.dtype, np.float32)
            # Played at `speed`: a clip that many times shorter, its 200 Hz tone at 200 x speed.
            self.assertAlmostEqual(len(samples), len(tone) / speed, delta=2)
            crossings = np.count_nonzero(np.diff(np.signbit(samples)))
            self.assertAlmostEqual(crossings / 2 / (len(samples) / 16000), 200 * speed, delta=3)
        self.assertTrue(70 <= len(speeds) <= 130, len(speeds))
        self.assertTrue(any(s < 1 for s in speeds) and any(s > 1 for s in speeds))


class RealAudioTests(unittest.TestCase):
    """tiny.en's encoder frames of espeak-ng speech, as the scorer computes them."""

    def test_each_head_hears_its_own_trigger_and_not_the_other_or_plain_speech(self):
        tiny = os.path.join(os.environ.get("XDG_DATA_HOME", os.path.expanduser("~/.local/share")),
                            "clawtalk", "models", "whisper-tiny-en")
        if not os.path.isfile(os.path.join(tiny, "model.bin")) or shutil.which("espeak-ng") is None:
            if os.environ.get("CLAWTALK_SPEECH_TESTS_NO_MODELS") == "1":
                self.skipTest("tiny.en or espeak-ng missing; CLAWTALK_SPEECH_TESTS_NO_MODELS=1")
            self.fail("needs models/whisper-tiny-en and espeak-ng (run scripts/setup)")
        scorer = wake.KeywordScorer(tiny, 1, heads=head.load_heads(np))
        triggers = [scorer.spec(t, wake.default_threshold(t), []) for t in ("openclaw", "claude", "computer")]

        def acoustic(text):
            pcm = subprocess.run(["espeak-ng", "-v", "en-us", "--stdout", text], capture_output=True, check=True).stdout
            samples = np.frombuffer(pcm[44:], dtype="<i2").astype(np.float32) / 32768.0
            # espeak-ng speaks at 22050 Hz: every 16 kHz sample from the nearest one.
            samples = samples[(np.arange(int(len(samples) * 16000 / 22050)) * 22050 // 16000)]
            # The node's segmenter opens a segment 0.4 s before the first speech frame.
            pre_roll = np.zeros(int(0.4 * 16000), np.float32)
            return scorer.score(np.concatenate([pre_roll, samples]), triggers).acoustic

        openclaw = acoustic("Open Claw, turn on the lights.")
        claude = acoustic("Claude, what time is it?")
        plain = acoustic("The weather this weekend looks fine.")
        self.assertEqual(sorted(openclaw), ["claude", "openclaw"])
        self.assertGreaterEqual(openclaw["openclaw"], scorer.heads["openclaw"].threshold)
        self.assertLess(openclaw["claude"], scorer.heads["claude"].threshold)
        self.assertGreaterEqual(claude["claude"], scorer.heads["claude"].threshold)
        self.assertLess(claude["openclaw"], scorer.heads["openclaw"].threshold)
        for name, logit in plain.items():
            self.assertLess(logit, scorer.heads[name].threshold, name)


if __name__ == "__main__":
    unittest.main()
