"""A small ONNX runner in numpy, for the one graph clawtalk-speech runs: Smart Turn v3.2.

Smart Turn ships as an ONNX file quantised the QDQ way: int8 weights, and activations passed
through QuantizeLinear/DequantizeLinear pairs with fixed scales (opset 18). onnxruntime runs it in
about 50 ms, but its library and session hold about 48 MB of the speech server's memory, for one
call per turn. This runner reads the same file (the protobuf wire format, no `onnx` package),
keeps the weights as they are stored (8 MB, int8), and evaluates the graph node by node with
numpy, which the server has loaded anyway. Each intermediate value is dropped after its last use,
so a call's working set is a few MB and goes back to the heap.

Only the operators the graph uses are implemented, each as the ONNX operator specification
defines it (onnx.ai/onnx/operators); a graph that needs another fails at load with the names it
lacks. The arithmetic is float32 as the QDQ graph describes it; onnxruntime fuses the pairs into
integer kernels, so the two agree closely, not bit for bit (the tests compare them)."""

from __future__ import annotations

import math
import struct
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

# ---- the protobuf wire format (developers.google.com/protocol-buffers/docs/encoding) -----------

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


def _varint(data: memoryview, at: int) -> Tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def _fields(data: memoryview):
    """(field number, wire type, value) for each field of a message: an int for varints and
    fixed-width fields, a memoryview for length-delimited ones."""
    at, end = 0, len(data)
    while at < end:
        key, at = _varint(data, at)
        number, kind = key >> 3, key & 7
        if kind == _VARINT:
            value, at = _varint(data, at)
        elif kind == _LEN:
            size, at = _varint(data, at)
            value, at = data[at : at + size], at + size
        elif kind == _I32:
            value, at = bytes(data[at : at + 4]), at + 4
        elif kind == _I64:
            value, at = bytes(data[at : at + 8]), at + 8
        else:
            raise ValueError(f"unsupported protobuf wire type {kind}")
        yield number, kind, value


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _packed_ints(kind: int, value) -> List[int]:
    if kind == _VARINT:
        return [_signed(value)]
    out, at = [], 0
    while at < len(value):
        item, at = _varint(value, at)
        out.append(_signed(item))
    return out


# ONNX TensorProto.DataType → numpy
_DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32, 7: np.int64, 9: np.bool_, 11: np.float64}


def _tensor(data: memoryview) -> Tuple[str, np.ndarray]:
    dims: List[int] = []
    dtype, name, raw = 0, "", None
    floats: List[float] = []
    ints: List[int] = []
    for number, kind, value in _fields(data):
        if number == 1:
            dims += _packed_ints(kind, value)
        elif number == 2:
            dtype = value
        elif number == 4:
            floats += list(struct.unpack(f"<{len(value) // 4}f", value)) if kind == _LEN else [struct.unpack("<f", value)[0]]
        elif number in (5, 7):
            ints += _packed_ints(kind, value)
        elif number == 8:
            name = bytes(value).decode()
        elif number == 9:
            raw = value
        elif number == 14 and value == 1:
            raise ValueError(f"tensor {name}: external data is not supported")
    if dtype not in _DTYPES:
        raise ValueError(f"tensor {name}: data type {dtype} is not supported")
    numpy_type = _DTYPES[dtype]
    if raw is not None:
        array = np.frombuffer(raw, dtype=numpy_type)  # a view of the file's bytes: no copy
    elif floats:
        array = np.asarray(floats, dtype=numpy_type)
    else:
        array = np.asarray(ints, dtype=np.int64).astype(numpy_type)
    return name, array.reshape(dims)


def _attribute(data: memoryview) -> Tuple[str, object]:
    name, value, ints, floats = "", None, [], []
    for number, kind, item in _fields(data):
        if number == 1:
            name = bytes(item).decode()
        elif number == 2:
            value = struct.unpack("<f", item)[0]
        elif number == 3:
            value = _signed(item)
        elif number == 4:
            value = bytes(item)
        elif number == 5:
            value = _tensor(item)[1]
        elif number == 7:
            floats += list(struct.unpack(f"<{len(item) // 4}f", item)) if kind == _LEN else [struct.unpack("<f", item)[0]]
        elif number == 8:
            ints += _packed_ints(kind, item)
    if ints:
        value = ints
    elif floats:
        value = floats
    return name, value


class Node:
    """One operator of the graph: its type, its inputs and outputs by name, its attributes."""

    __slots__ = ("op", "inputs", "outputs", "attributes")

    def __init__(self, data: memoryview) -> None:
        self.op, self.inputs, self.outputs, self.attributes = "", [], [], {}
        for number, _, value in _fields(data):
            if number == 1:
                self.inputs.append(bytes(value).decode())
            elif number == 2:
                self.outputs.append(bytes(value).decode())
            elif number == 4:
                self.op = bytes(value).decode()
            elif number == 5:
                key, item = _attribute(value)
                self.attributes[key] = item


# ---- the operators -------------------------------------------------------------------------------


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to within 1.5e-7 (Abramowitz and Stegun 7.1.26), in float32, with few temporaries."""
    z = np.abs(x, dtype=np.float32)
    t = 1.0 / (1.0 + np.float32(0.3275911) * z)
    poly = np.float32(1.061405429) * t
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(coefficient)
        poly *= t
    np.multiply(z, z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z
    np.subtract(np.float32(1.0), poly, out=poly)
    return np.copysign(poly, x, out=poly)


def _per_axis(parameter: np.ndarray, rank: int, axis: int) -> np.ndarray:
    if parameter.ndim == 0:
        return parameter
    shape = [1] * rank
    shape[axis % rank] = parameter.shape[0]
    return parameter.reshape(shape)


def _quantize(node: Node, x, scale, zero_point=None):
    zero = zero_point if zero_point is not None else np.uint8(0)
    axis = node.attributes.get("axis", 1)
    scale, zero_p = _per_axis(scale, x.ndim, axis), _per_axis(zero, x.ndim, axis)
    info = np.iinfo(zero.dtype)
    q = np.rint(x / scale) + zero_p.astype(np.float32)
    return np.clip(q, info.min, info.max).astype(zero.dtype)


def _fake_quantize(node: Node, x, scale, zero_point):
    """QuantizeLinear then DequantizeLinear with the same per-tensor scale and zero point, in one
    pass over float32: round to the grid, clip to the integer type's range, scale back."""
    info = np.iinfo(zero_point.dtype)
    zero = float(zero_point)
    out = np.divide(x, scale, dtype=np.float32)
    np.rint(out, out=out)
    np.clip(out, info.min - zero, info.max - zero, out=out)
    out *= scale
    return out


def _dequantize(node: Node, x, scale, zero_point=None):
    axis = node.attributes.get("axis", 1)
    scale = _per_axis(scale, x.ndim, axis)
    if zero_point is None or not np.any(zero_point):
        return np.multiply(x, scale, dtype=np.float32)  # the cast happens inside the one pass
    return (x.astype(np.float32) - _per_axis(zero_point, x.ndim, axis).astype(np.float32)) * scale


def _layer_norm(node: Node, x, scale, bias=None):
    axis = node.attributes.get("axis", -1)
    axes = tuple(range(axis % x.ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    centred = x - mean
    variance = np.mean(centred * centred, axis=axes, keepdims=True)
    out = centred / np.sqrt(variance + node.attributes.get("epsilon", 1e-5)) * scale
    return out + bias if bias is not None else out


def _softmax(node: Node, x):
    axis = node.attributes.get("axis", -1)
    shifted = np.exp(x - x.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)


def _conv(node: Node, x, weight, bias=None):
    """A 1-D convolution (N, C, T) * (O, C, K), group 1, by im2col and one matrix product."""
    if x.ndim != 3 or node.attributes.get("group", 1) != 1 or any(d != 1 for d in node.attributes.get("dilations", [1])):
        raise ValueError("Conv: only 1-D, group 1, dilation 1 is supported")
    pads = node.attributes.get("pads", [0, 0])
    stride = node.attributes.get("strides", [1])[0]
    out_channels, channels, kernel = weight.shape
    padded = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1])))
    steps = (padded.shape[2] - kernel) // stride + 1
    windows = np.lib.stride_tricks.as_strided(
        padded, shape=(padded.shape[0], steps, channels, kernel),
        strides=(padded.strides[0], padded.strides[2] * stride, padded.strides[1], padded.strides[2]))
    columns = windows.reshape(padded.shape[0], steps, channels * kernel)
    out = columns @ weight.reshape(out_channels, channels * kernel).T  # (N, steps, O)
    if bias is not None:
        out += bias
    return np.ascontiguousarray(out.transpose(0, 2, 1))


def _reshape(node: Node, x, shape):
    shape = [int(s) for s in shape]
    if not node.attributes.get("allowzero", 0):
        shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return x.reshape(shape)


def _shape(node: Node, x):
    dims = np.asarray(x.shape, dtype=np.int64)
    start, end = node.attributes.get("start", 0), node.attributes.get("end")
    return dims[start:end] if end is not None else dims[start:]


def _slice(node: Node, x, starts, ends, axes=None, steps=None):
    axes = range(len(starts)) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    index = [slice(None)] * x.ndim
    for start, end, axis, step in zip(starts, ends, axes, steps):
        index[int(axis)] = slice(int(start), int(end), int(step))
    return x[tuple(index)]


def _reduce_sum(node: Node, x, axes=None):
    keep = bool(node.attributes.get("keepdims", 1))
    if axes is None or len(axes) == 0:
        return x if node.attributes.get("noop_with_empty_axes", 0) else x.sum(keepdims=keep)
    return x.sum(axis=tuple(int(a) for a in axes), keepdims=keep)


def _gemm(node: Node, a, b, c=None):
    a = a.T if node.attributes.get("transA", 0) else a
    b = b.T if node.attributes.get("transB", 0) else b
    out = node.attributes.get("alpha", 1.0) * (a @ b)
    return out + node.attributes.get("beta", 1.0) * c if c is not None else out


OPERATORS: Dict[str, Callable] = {
    "Add": lambda node, a, b: a + b,
    "Sub": lambda node, a, b: a - b,
    "Mul": lambda node, a, b: a * b,
    "Div": lambda node, a, b: a / b if a.dtype.kind == "f" else a // b,
    "MatMul": lambda node, a, b: np.matmul(np.ascontiguousarray(a), np.ascontiguousarray(b)),
    "Erf": lambda node, x: _erf(x),
    "Tanh": lambda node, x: np.tanh(x),
    "Sigmoid": lambda node, x: (1.0 / (1.0 + np.exp(-x))).astype(x.dtype),
    "Softmax": _softmax,
    "LayerNormalization": _layer_norm,
    "QuantizeLinear": _quantize,
    "DequantizeLinear": _dequantize,
    "FakeQuantize": _fake_quantize,  # not ONNX: a QuantizeLinear/DequantizeLinear pair, fused at load
    "Conv": _conv,
    "Gemm": _gemm,
    "Reshape": _reshape,
    "Transpose": lambda node, x: np.transpose(x, node.attributes.get("perm")),
    "Shape": _shape,
    "Gather": lambda node, x, i: np.take(x, i, axis=node.attributes.get("axis", 0)),
    "Slice": _slice,
    "Concat": lambda node, *xs: np.concatenate(xs, axis=node.attributes["axis"]),
    "ReduceSum": _reduce_sum,
}


# ---- the graph -----------------------------------------------------------------------------------


class Graph:
    """An ONNX model file's graph, evaluated with numpy. `run(feeds)` returns the graph's outputs
    in order; the values computed on the way are freed as soon as no later node needs them."""

    def __init__(self, path: str) -> None:
        with open(path, "rb") as handle:
            self._bytes = handle.read()  # the initializers are views of these bytes
        model = memoryview(self._bytes)
        graph = next((value for number, _, value in _fields(model) if number == 7), None)
        if graph is None:
            raise ValueError(f"{path}: no graph")
        self.nodes: List[Node] = []
        self.constants: Dict[str, np.ndarray] = {}
        self.inputs: List[str] = []
        self.outputs: List[str] = []
        for number, _, value in _fields(graph):
            if number == 1:
                self.nodes.append(Node(value))
            elif number == 5:
                name, array = _tensor(value)
                self.constants[name] = array
            elif number in (11, 12):
                name = next(bytes(v).decode() for n, _, v in _fields(value) if n == 1)
                (self.inputs if number == 11 else self.outputs).append(name)
        self.inputs = [name for name in self.inputs if name not in self.constants]
        self._fuse_quantize_pairs()
        missing = sorted({node.op for node in self.nodes} - set(OPERATORS))
        if missing:
            raise ValueError(f"{path}: operators not supported: {', '.join(missing)}")
        self._last_use = self._last_uses()

    def _fuse_quantize_pairs(self) -> None:
        """A QuantizeLinear whose only reader is a DequantizeLinear with the same per-tensor scale
        and zero point becomes one FakeQuantize: the same values, without the integer tensor."""
        readers: Dict[str, List[Node]] = {}
        for node in self.nodes:
            for name in node.inputs:
                readers.setdefault(name, []).append(node)
        fused = set()
        for node in self.nodes:
            if node.op != "QuantizeLinear" or len(node.inputs) != 3:
                continue
            after = readers.get(node.outputs[0], [])
            if len(after) != 1 or after[0].op != "DequantizeLinear" or len(after[0].inputs) != 3:
                continue
            scale, zero = (self.constants.get(name) for name in node.inputs[1:])
            scale2, zero2 = (self.constants.get(name) for name in after[0].inputs[1:])
            if any(v is None or v.ndim != 0 for v in (scale, zero, scale2, zero2)):
                continue
            if scale != scale2 or zero != zero2 or zero.dtype != zero2.dtype:
                continue
            node.op, node.outputs = "FakeQuantize", list(after[0].outputs)
            fused.add(id(after[0]))
        self.nodes = [node for node in self.nodes if id(node) not in fused]

    def _last_uses(self) -> Dict[str, int]:
        last: Dict[str, int] = {}
        for index, node in enumerate(self.nodes):
            for name in node.inputs:
                if name:
                    last[name] = index
        return last

    def run(self, feeds: Dict[str, np.ndarray]) -> List[np.ndarray]:
        values: Dict[str, np.ndarray] = dict(feeds)
        keep = set(self.outputs)
        for index, node in enumerate(self.nodes):
            arguments: List[Optional[np.ndarray]] = [
                (values[name] if name in values else self.constants[name]) if name else None for name in node.inputs
            ]
            while arguments and arguments[-1] is None:
                arguments.pop()
            results = OPERATORS[node.op](node, *arguments)
            if len(node.outputs) == 1:
                values[node.outputs[0]] = results
            else:
                values.update(zip(node.outputs, results))
            for name in node.inputs:
                if name in values and name not in keep and self._last_use.get(name) == index:
                    del values[name]
        return [values[name] for name in self.outputs]


def erf_error_bound() -> float:
    """The largest |_erf - math.erf| on a fine grid over [-6, 6] (for the tests)."""
    grid = np.linspace(-6, 6, 24001, dtype=np.float32)
    return float(np.max(np.abs(_erf(grid).astype(np.float64) - np.array([math.erf(float(v)) for v in grid]))))
