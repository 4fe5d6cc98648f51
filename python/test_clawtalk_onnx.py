"""Tests of clawtalk_onnx: the numpy runner for Smart Turn's ONNX graph.

Small graphs are written here in the protobuf wire format by hand, so each operator is checked
against its ONNX definition; the installed Smart Turn model is checked against onnxruntime."""

import math
import os
import struct
import tempfile
import unittest

import numpy as np

import clawtalk_onnx as onnx_runner

# ---- a minimal protobuf writer (the fields ONNX uses) ---------------------------------------------


def varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number: int, payload) -> bytes:
    if isinstance(payload, int):
        return varint(number << 3) + varint(payload)
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def tensor(name: str, array: np.ndarray) -> bytes:
    kinds = {np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3, np.dtype(np.int64): 7}
    dims = b"".join(field(1, d) for d in array.shape)
    return dims + field(2, kinds[array.dtype]) + field(8, name) + field(9, array.tobytes())


def attribute(name: str, value) -> bytes:
    if isinstance(value, float):
        return field(1, name) + varint(2 << 3 | 5) + struct.pack("<f", value)
    if isinstance(value, int):
        return field(1, name) + field(3, value)
    packed = b"".join(varint(v) for v in value)
    return field(1, name) + field(8, packed)


def node(op: str, inputs, outputs, **attributes) -> bytes:
    body = b"".join(field(1, i) for i in inputs) + b"".join(field(2, o) for o in outputs) + field(4, op)
    return body + b"".join(field(5, attribute(k, v)) for k, v in attributes.items())


def model(nodes, initializers, inputs, outputs) -> bytes:
    graph = b"".join(field(1, n) for n in nodes) + field(2, "g")
    graph += b"".join(field(5, tensor(k, v)) for k, v in initializers.items())
    graph += b"".join(field(11, field(1, i)) for i in inputs) + b"".join(field(12, field(1, o)) for o in outputs)
    return field(7, graph)


def load(data: bytes) -> onnx_runner.Graph:
    with tempfile.NamedTemporaryFile(suffix=".onnx", delete=False) as handle:
        handle.write(data)
    try:
        return onnx_runner.Graph(handle.name)
    finally:
        os.unlink(handle.name)


class OperatorTests(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(7)

    def test_a_quantised_linear_layer_matches_the_qdq_definition(self):
        x = self.rng.standard_normal((1, 5, 8)).astype(np.float32)
        weight = self.rng.integers(-127, 128, (8, 4)).astype(np.int8)
        weight_scale = (self.rng.random(4) * 0.01 + 0.001).astype(np.float32)
        bias = self.rng.standard_normal(4).astype(np.float32)
        graph = load(model(
            [node("QuantizeLinear", ["x", "s", "z"], ["xq"]),
             node("DequantizeLinear", ["xq", "s", "z"], ["xd"]),
             node("DequantizeLinear", ["w", "ws"], ["wd"], axis=1),
             node("MatMul", ["xd", "wd"], ["y0"]),
             node("Add", ["y0", "b"], ["y"])],
            {"s": np.array(0.02, np.float32), "z": np.array(128, np.uint8), "w": weight, "ws": weight_scale, "b": bias},
            ["x"], ["y"]))
        self.assertEqual([n.op for n in graph.nodes], ["FakeQuantize", "DequantizeLinear", "MatMul", "Add"],
                         "the Q/DQ pair is fused into one node")
        quantised = (np.clip(np.rint(x / 0.02) + 128, 0, 255) - 128) * np.float32(0.02)
        expected = quantised @ (weight.astype(np.float32) * weight_scale) + bias
        np.testing.assert_allclose(graph.run({"x": x})[0], expected, rtol=1e-5, atol=1e-5)
        # Saturation: values beyond the uint8 range clip to its ends.
        big = np.full((1, 5, 8), 100.0, np.float32)
        expected = np.full((1, 5, 8), (255 - 128) * 0.02, np.float32) @ (weight.astype(np.float32) * weight_scale) + bias
        np.testing.assert_allclose(graph.run({"x": big})[0], expected, rtol=1e-5, atol=1e-4)

    def test_gelu_layer_norm_and_softmax(self):
        x = self.rng.standard_normal((2, 3, 6)).astype(np.float32) * 3
        gamma = self.rng.standard_normal(6).astype(np.float32)
        beta = self.rng.standard_normal(6).astype(np.float32)
        graph = load(model(
            [node("Div", ["x", "root2"], ["a"]), node("Erf", ["a"], ["b"]), node("Add", ["b", "one"], ["c"]),
             node("Mul", ["half", "c"], ["d"]), node("Mul", ["x", "d"], ["gelu"]),
             node("LayerNormalization", ["gelu", "gamma", "beta"], ["n"], axis=-1, epsilon=1e-5),
             node("Softmax", ["n"], ["y"], axis=-1)],
            {"root2": np.array(math.sqrt(2), np.float32), "one": np.array(1, np.float32),
             "half": np.array(0.5, np.float32), "gamma": gamma, "beta": beta},
            ["x"], ["y"]))
        gelu = x * 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
        mean, var = gelu.mean(-1, keepdims=True), gelu.var(-1, keepdims=True)
        normed = (gelu - mean) / np.sqrt(var + 1e-5) * gamma + beta
        soft = np.exp(normed - normed.max(-1, keepdims=True))
        np.testing.assert_allclose(graph.run({"x": x})[0], soft / soft.sum(-1, keepdims=True), rtol=1e-4, atol=1e-6)

    def test_a_strided_padded_1d_convolution(self):
        x = self.rng.standard_normal((1, 3, 11)).astype(np.float32)
        weight = self.rng.standard_normal((4, 3, 3)).astype(np.float32)
        bias = self.rng.standard_normal(4).astype(np.float32)
        graph = load(model([node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1], strides=[2])],
                           {"w": weight, "b": bias}, ["x"], ["y"]))
        padded = np.pad(x[0], ((0, 0), (1, 1)))
        expected = np.stack([
            np.array([np.sum(padded[:, t * 2 : t * 2 + 3] * weight[o]) + bias[o] for t in range(6)])
            for o in range(4)])[None]
        np.testing.assert_allclose(graph.run({"x": x})[0], expected, rtol=1e-5, atol=1e-5)

    def test_shape_arithmetic_reshape_transpose_and_gemm(self):
        x = self.rng.standard_normal((1, 4, 6)).astype(np.float32)
        weight = self.rng.standard_normal((5, 6)).astype(np.float32)
        graph = load(model(
            [node("Shape", ["x"], ["shape"], start=0, end=1),
             node("Concat", ["shape", "rest"], ["target"], axis=0),
             node("Reshape", ["x", "target"], ["r"], allowzero=1),        # (1, 4, 2, 3)
             node("Transpose", ["r"], ["t"], perm=[0, 2, 1, 3]),           # (1, 2, 4, 3)
             node("Slice", ["t", "starts", "ends"], ["s"]),                # the first head
             node("ReduceSum", ["x", "axis1"], ["sum"], keepdims=0),       # (1, 6)
             node("Gemm", ["sum", "w"], ["g"], transB=1)],
            {"rest": np.array([4, 2, 3], np.int64), "starts": np.array([0, 0], np.int64),
             "ends": np.array([1, 1], np.int64), "axis1": np.array([1], np.int64), "w": weight},
            ["x"], ["s", "g"]))
        sliced, gemm = graph.run({"x": x})
        np.testing.assert_allclose(sliced, x.reshape(1, 4, 2, 3).transpose(0, 2, 1, 3)[:1, :1])
        np.testing.assert_allclose(gemm, x.sum(axis=1) @ weight.T, rtol=1e-5, atol=1e-5)

    def test_an_unknown_operator_fails_at_load_with_its_name(self):
        with self.assertRaisesRegex(ValueError, "operators not supported: LSTM"):
            load(model([node("LSTM", ["x"], ["y"])], {}, ["x"], ["y"]))

    def test_a_file_without_a_graph_fails_at_load(self):
        with self.assertRaisesRegex(ValueError, "no graph"):
            load(field(1, 8))

    def test_erf_is_within_a_millionth_of_math_erf(self):
        self.assertLess(onnx_runner.erf_error_bound(), 1e-6)


SMART_TURN = os.path.join(
    os.environ.get("XDG_DATA_HOME", os.path.expanduser("~/.local/share")),
    "clawtalk", "models", "smart-turn-v3.2", "smart-turn-v3.2-cpu.onnx")


@unittest.skipUnless(os.path.isfile(SMART_TURN), "Smart Turn is not installed (scripts/setup installs it)")
class SmartTurnTests(unittest.TestCase):
    def test_the_numpy_runner_agrees_with_onnxruntime_on_smart_turn(self):
        try:
            import onnxruntime as ort
        except ImportError:
            self.skipTest("onnxruntime is not in this Python (scripts/setup's venv has it)")
        import clawtalk_speech as speech

        model = speech.TurnModel(SMART_TURN, speech.LogMel(80))
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        reference = ort.InferenceSession(SMART_TURN, options, providers=["CPUExecutionProvider"])
        rng = np.random.default_rng(3)
        rate = speech.SAMPLE_RATE
        clips = []
        for seconds in (0.6, 1.5, 3.0, 8.0, 10.0):
            t = np.arange(int(seconds * rate)) / rate
            voiced = np.sin(2 * np.pi * (140 + 40 * np.sin(2 * np.pi * 3 * t)) * t) * (0.5 + 0.5 * np.sin(2 * np.pi * 4 * t))
            tail = np.zeros(int(0.3 * rate))
            clips.append(np.concatenate([voiced * 0.3, tail]).astype(np.float32))
            clips.append((rng.standard_normal(int(seconds * rate)) * 0.05).astype(np.float32))
        for clip in clips:
            features = model.input(clip)
            ours = model.probability(clip)
            theirs = float(np.asarray(reference.run(None, {"input_features": features})[0]).reshape(-1)[0])
            self.assertLess(abs(ours - theirs), 0.06, f"{len(clip) / rate:.1f} s: numpy {ours:.4f}, onnxruntime {theirs:.4f}")
            if abs(theirs - 0.5) > 0.06:
                self.assertEqual(ours > 0.5, theirs > 0.5)


if __name__ == "__main__":
    unittest.main()
