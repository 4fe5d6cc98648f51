#!/usr/bin/env python3
"""Reference microWakeWord features (and optionally per-inference probabilities) for a WAV file.

Runs the audio through pymicro-features 2.0.2 (the TensorFlow Lite Micro audio frontend) the way
pymicro-wakeword 2.5.0 does (160-sample chunks), and optionally through pymicro-wakeword's
streaming models, and prints JSON:

    {"source": "<wav name>", "sampleRate": 16000, "sampleCount": N,
     "features": [[40 uint16 values], ...],             # one row per 10 ms step
     "models": {"okay_nabu": {"stride": 3, "cutoff": 0.85, "slidingWindowSize": 5,
                              "probabilities": [...],    # dequantised output, one per inference
                              "means": [...],            # what process_streaming_prob returned
                              "detectedAtInference": k or null}}}

Features are the frontend's uint16 output (the Python wrapper returns them times 0.0390625;
that product is exact in float32, so dividing back is exact).

Set up (outside the repository):
    /usr/bin/python3 -m venv /tmp/mfvenv
    /tmp/mfvenv/bin/pip install pymicro-features==2.0.2 pymicro-wakeword==2.5.0 numpy
Usage:
    /tmp/mfvenv/bin/python scripts/reference-features.py clip.wav \
        [--model Models/microwakeword/okay_nabu.json ...] > clip.json
"""

import argparse
import json
import sys
import wave
from pathlib import Path

from pymicro_wakeword import MicroWakeWord, MicroWakeWordFeatures

FEATURE_SCALE = 0.0390625


def read_wav(path: Path) -> bytes:
    with wave.open(str(path), "rb") as wav:
        if (wav.getframerate(), wav.getsampwidth(), wav.getnchannels()) != (16000, 2, 1):
            sys.exit(f"{path}: need 16 kHz, 16-bit, mono")
        return wav.readframes(wav.getnframes())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wav", type=Path)
    parser.add_argument("--model", action="append", default=[], type=Path,
                        help="microWakeWord JSON manifest (repeatable)")
    args = parser.parse_args()

    audio = read_wav(args.wav)
    frames = list(MicroWakeWordFeatures().process_streaming(audio))
    features = []
    for frame in frames:
        row = []
        for value in frame.reshape(-1).tolist():
            scaled = value / FEATURE_SCALE
            if scaled != round(scaled):
                sys.exit(f"feature {value} is not a multiple of {FEATURE_SCALE}")
            row.append(int(round(scaled)))
        features.append(row)

    models = {}
    for manifest in args.model:
        mww = MicroWakeWord.from_config(manifest)
        probabilities, means, detected = [], [], None
        for index, frame in enumerate(frames):
            mean = mww.process_streaming_prob(frame)
            if (index + 1) % mww.stride != 0:
                continue  # this frame was only buffered; no inference ran
            probabilities.append(round(float(mww._probabilities[-1]), 6))
            means.append(round(float(mean), 6))
            if detected is None and mean > mww.probability_cutoff:
                detected = len(probabilities) - 1
        models[mww.id] = {
            "stride": int(mww.stride),
            "cutoff": mww.probability_cutoff,
            "slidingWindowSize": mww.sliding_window_size,
            "probabilities": probabilities,
            "means": means,
            "detectedAtInference": detected,
        }
        mww.close()

    result = {
        "source": args.wav.name,
        "sampleRate": 16000,
        "sampleCount": len(audio) // 2,
        "features": features,
        "models": models,
    }
    # One feature row per line keeps the fixture diffable.
    text = json.dumps(result, separators=(",", ":"))
    text = text.replace("],[", "],\n[")
    print(text)


if __name__ == "__main__":
    main()
