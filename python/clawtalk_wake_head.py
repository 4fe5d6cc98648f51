"""Acoustic keyword heads for the brand triggers ("openclaw", "claude") on Whisper tiny.en's
encoder frames.

The keyword scorer (clawtalk_wake.py) already runs tiny.en's encoder on every window it scores;
its decoder is what fails on the brand words in noise (it writes the common words that share
their vowels: "Lord", "Open floor"). A head reads the encoder's frames directly: per 20 ms frame
a 64-unit ReLU layer and J part scores; a window of J parts of KP frames each (0.64 s: "open"
then "claw", "hey" then "claude") scores the sum of each part's mean; the head's logit is a soft
maximum (log-sum-exp with sharpness A) over the window's positions. It costs about a millisecond
a window, in numpy.

The weights are clawtalk's own, trained by `scripts/train-wake-heads` on packaged synthetic
voices that the development set (shared/data/wake-tts) does not have, with noise, reverb and
real speech as negatives; `clawtalk_wake_heads.json` holds them with their provenance.
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass
from typing import Dict, Optional

HEADS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "clawtalk_wake_heads.json")
FORMAT = 1
# Encoder frames past the end of the audio that a head reads (0.4 s of the window's zero padding).
# Whisper's encoder marks a word's end in the frames after it: a head that stopped at the last
# frame of audio would judge a trigger at the very end of a segment (the segmenter ends one about
# 0.2 s after the speech) on half its evidence.
TAIL_FRAMES = 20
FRAME_SAMPLES = 320


def head_frames(count: int, available: int) -> int:
    """How many of `available` encoder frames a head reads for `count` samples of audio at the
    start of the window: those that hold audio, and TAIL_FRAMES more."""
    return max(1, min(available, count // FRAME_SAMPLES + 1 + TAIL_FRAMES))


class HeadFileError(ValueError):
    """The heads file is missing, malformed or of another format."""


def _array(np, entry: dict):
    """A float32 array from `{"shape": [...], "f16": base64}`."""
    raw = base64.b64decode(entry["f16"], validate=True)
    values = np.frombuffer(raw, dtype="<f2").astype(np.float32)
    shape = tuple(int(n) for n in entry["shape"])
    if values.size != int(np.prod(shape)):
        raise HeadFileError(f"an array holds {values.size} values, not {shape}")
    return values.reshape(shape)


def encode_array(np, values) -> dict:
    """`{"shape", "f16"}` for an array (float16, little-endian, base64): the file's form."""
    values = np.asarray(values, dtype=np.float32)
    return {"shape": list(values.shape), "f16": base64.b64encode(values.astype("<f2").tobytes()).decode("ascii")}


@dataclass
class KeywordHead:
    """One trigger's head: weights, input normalisation and its default threshold (a logit)."""

    name: str
    w1: object
    b1: object
    w2: object
    c: object
    b2: float
    mean: object
    scale: object
    parts: int
    part_frames: int
    sharpness: float
    threshold: float

    @property
    def frames(self) -> int:
        """How many encoder frames one window of the head spans."""
        return self.parts * self.part_frames

    def logit(self, np, frames) -> float:
        """The head's logit for encoder frames (T x 384, 20 ms each: `head_frames` of a window).
        Fewer frames than one window are padded with the mean frame (zeros after the
        normalisation), as in training."""
        x = (np.asarray(frames, dtype=np.float32) - self.mean) / self.scale
        if len(x) < self.frames:
            x = np.concatenate([x, np.zeros((self.frames - len(x), x.shape[1]), np.float32)])
        z = np.maximum(x @ self.w1 + self.b1, 0.0) @ self.w2 + self.c
        sums = np.concatenate([np.zeros((1, self.parts), np.float32), np.cumsum(z, axis=0)])
        positions = len(x) - self.frames + 1
        score = np.full(positions, self.b2, np.float32)
        for j in range(self.parts):
            start = j * self.part_frames
            score += (sums[start + self.part_frames:start + self.part_frames + positions, j]
                      - sums[start:start + positions, j]) / self.part_frames
        sharp = self.sharpness * score
        top = float(sharp.max())
        return (top + float(np.log(np.exp(sharp - top).sum()))) / self.sharpness


def load_heads(np, path: Optional[str] = HEADS_FILE) -> Dict[str, KeywordHead]:
    """The heads in `path` by trigger name; HeadFileError when it cannot be used."""
    try:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
    except (OSError, ValueError) as error:
        raise HeadFileError(f"{path}: {error}") from error
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise HeadFileError(f"{path}: not a format {FORMAT} heads file")
    heads = {}
    try:
        for name, entry in document["heads"].items():
            heads[name] = KeywordHead(
                name=name, w1=_array(np, entry["w1"]), b1=_array(np, entry["b1"]), w2=_array(np, entry["w2"]),
                c=_array(np, entry["c"]), b2=float(entry["b2"]), mean=_array(np, entry["mean"]),
                scale=_array(np, entry["scale"]), parts=int(entry["parts"]), part_frames=int(entry["part_frames"]),
                sharpness=float(entry["sharpness"]), threshold=float(entry["threshold"]),
            )
    except (KeyError, TypeError, ValueError) as error:
        raise HeadFileError(f"{path}: {error!r}") from error
    return heads
