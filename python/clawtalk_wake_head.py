"""Acoustic keyword heads for the brand triggers ("openclaw", "claude") on Whisper tiny.en's
encoder frames.

The keyword scorer (clawtalk_wake.py) already runs tiny.en's encoder on every window it scores;
its decoder is what fails on the brand words in noise (it writes the common words that share
their vowels: "Lord", "Open floor"). A head reads the encoder's frames directly: per 20 ms frame
a 64-unit ReLU layer and J part scores; a window of J parts of KP frames each (0.64 s: "open"
then "claw", "hey" then "claude") scores the sum of each part's mean; the head's logit is a soft
maximum (log-sum-exp with sharpness A) over the window's positions. A head holds a few such
networks, trained alike from different random seeds, and its logit is the mean of theirs: each
network errs in places of its own (the trainer's check, 2026-12-07: one seed missed 12 of 180
development clips of "openclaw" at 10 dB, another 18). Three networks cost half a millisecond a
5 s window, in numpy.

The weights are clawtalk's own, trained by `scripts/train-wake-heads` on packaged synthetic
voices that the development set (shared/data/wake-tts) does not have, with noise, reverb and
real speech as negatives; `clawtalk_wake_heads.json` holds them with their provenance.
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

HEADS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "clawtalk_wake_heads.json")
FORMAT = 2
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
class HeadNet:
    """One trained network of a head: the frame layer (w1, b1), the part scores (w2, c) and the
    window's bias (b2)."""

    w1: object
    b1: object
    w2: object
    c: object
    b2: float


@dataclass
class KeywordHead:
    """One trigger's head: its networks (trained alike from different seeds; the head's logit is
    the mean of theirs), the input normalisation they share and the default threshold (a logit)."""

    name: str
    nets: Tuple[HeadNet, ...]
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
        return sum(self._net_logit(np, net, x) for net in self.nets) / len(self.nets)

    def _net_logit(self, np, net: HeadNet, x) -> float:
        """One network's soft maximum over the window's positions in normalised frames `x`."""
        z = np.maximum(x @ net.w1 + net.b1, 0.0) @ net.w2 + net.c
        sums = np.concatenate([np.zeros((1, self.parts), np.float32), np.cumsum(z, axis=0)])
        positions = len(x) - self.frames + 1
        score = np.full(positions, net.b2, np.float32)
        for j in range(self.parts):
            start = j * self.part_frames
            score += (sums[start + self.part_frames:start + self.part_frames + positions, j]
                      - sums[start:start + positions, j]) / self.part_frames
        sharp = self.sharpness * score
        top = float(sharp.max())
        return (top + float(np.log(np.exp(sharp - top).sum()))) / self.sharpness


def _net(np, entry: dict, dim: int, parts: int) -> HeadNet:
    """A network from its file entry, its shapes checked against the head's."""
    net = HeadNet(w1=_array(np, entry["w1"]), b1=_array(np, entry["b1"]), w2=_array(np, entry["w2"]),
                  c=_array(np, entry["c"]), b2=float(entry["b2"]))
    hidden = net.w1.shape[1] if net.w1.ndim == 2 else -1
    if net.w1.shape != (dim, hidden) or net.b1.shape != (hidden,) or net.w2.shape != (hidden, parts) \
            or net.c.shape != (parts,):
        raise HeadFileError(f"a network's shapes {net.w1.shape}, {net.w2.shape} do not fit {dim} inputs, {parts} parts")
    return net


def load_heads(np, path: Optional[str] = HEADS_FILE) -> Dict[str, KeywordHead]:
    """The heads in `path` by trigger name; HeadFileError when it cannot be used."""
    try:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
    except (OSError, ValueError) as error:
        raise HeadFileError(f"{path}: {error}") from error
    if not isinstance(document, dict) or document.get("format") not in (1, FORMAT):
        raise HeadFileError(f"{path}: not a heads file of format 1 or {FORMAT}")
    heads = {}
    try:
        for name, entry in document["heads"].items():
            mean, scale, parts = _array(np, entry["mean"]), _array(np, entry["scale"]), int(entry["parts"])
            if mean.ndim != 1 or scale.shape != mean.shape:
                raise HeadFileError(f"head {name}: a normalisation of {mean.shape} and {scale.shape}")
            # Format 1 held one network in the head's own entry.
            nets = entry["nets"] if document["format"] == FORMAT else [entry]
            if not isinstance(nets, list) or not nets:
                raise HeadFileError(f"head {name} has no networks")
            heads[name] = KeywordHead(
                name=name, nets=tuple(_net(np, net, mean.shape[0], parts) for net in nets), mean=mean,
                scale=scale, parts=parts, part_frames=int(entry["part_frames"]),
                sharpness=float(entry["sharpness"]), threshold=float(entry["threshold"]),
            )
    except HeadFileError as error:
        raise HeadFileError(f"{path}: {error}") from error
    except (KeyError, TypeError, ValueError) as error:
        raise HeadFileError(f"{path}: {error!r}") from error
    return heads
