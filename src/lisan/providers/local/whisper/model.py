"""Whisper's transformer in numpy, from the weights `weights` reads: the encoder on a window as
long as the audio (not Whisper's fixed 30 s: a 2 s command costs a fifteenth), and the decoder one
position at a time for many contexts at once, which is what scoring a set of candidate texts
needs (`scorer`). No free decoding: the service only ever asks which of the commands a screen
allows was said."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from lisan.providers.local.whisper.weights import Weights

Array = np.ndarray


def _erf(x: Array) -> Array:
    # Abramowitz and Stegun 7.1.26: |error| < 1.5e-7, enough for float32.
    sign, a = np.sign(x), np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t
            + 0.254829592) * t  # fmt: skip
    result: Array = sign * (1.0 - poly * np.exp(-a * a))
    return result


def gelu(x: Array) -> Array:
    result: Array = 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))
    return result


def layer_norm(x: Array, gamma: Array, beta: Array) -> Array:
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    result: Array = (x - mean) / np.sqrt(variance + 1e-5) * gamma + beta
    return result


def log_softmax(z: Array) -> Array:
    top = z.max(-1, keepdims=True)
    result: Array = z - top - np.log(np.exp(z - top).sum(-1, keepdims=True))
    return result


def _softmax(scores: Array) -> Array:
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    result: Array = scores / scores.sum(-1, keepdims=True)
    return result


@dataclass(slots=True)
class State:
    """Decoder contexts: per layer, the self-attention keys and values [N, heads, t, dh]."""

    keys: list[Array]
    values: list[Array]

    def rows(self, picked: Array) -> State:
        return State([k[picked] for k in self.keys], [v[picked] for v in self.values])


class Whisper:
    """The network; `encode` once per utterance, `cross` once per encoding, then `step`."""

    def __init__(self, weights: Weights) -> None:
        w = weights.arrays
        self.width = w["decoder/embeddings/weight"].shape[1]
        self.encoder_heads = int(w["encoder/num_heads"])
        self.decoder_heads = int(w["decoder/num_heads"])
        self.encoder_layers = _count_layers(w, "encoder")
        self.decoder_layers = _count_layers(w, "decoder")
        # Every matrix is kept once, transposed for `x @ matrix` as a contiguous copy, on which
        # the product runs faster than on a transposed view (see docs/benchmarks.md, "Measured
        # choices"): the linear layers' weights, and the embeddings, which are also the output
        # projection (a token's embedding is a column of it).
        self._t = {k: np.ascontiguousarray(v.T) for k, v in w.items() if "/linear_" in k
                   and k.endswith("/weight")}  # fmt: skip
        self._output = np.ascontiguousarray(w["decoder/embeddings/weight"].T)
        dropped = {*self._t, "decoder/embeddings/weight", "decoder/projection/weight"}
        self._w = {k: v for k, v in w.items() if k not in dropped}

    def _linear(self, x: Array, name: str) -> Array:
        result: Array = x @ self._t[name + "/weight"] + self._w[name + "/bias"]
        return result

    def encode(self, mel: Array) -> Array:
        """[80, T] log-mel (T even) -> [T/2, width]."""
        w, frames = self._w, mel.shape[1]
        x = np.pad(mel, ((0, 0), (1, 1)))
        columns = np.stack([x[:, k : k + frames] for k in range(3)], -1)
        columns = columns.transpose(1, 0, 2).reshape(frames, -1)
        conv1 = w["encoder/conv1/weight"].reshape(self.width, -1)
        h = gelu(columns @ conv1.T + w["encoder/conv1/bias"])
        half = frames // 2
        h = np.pad(h, ((1, 1), (0, 0)))
        columns = np.stack([h[k : k + 2 * half : 2] for k in range(3)], -1).reshape(half, -1)
        conv2 = w["encoder/conv2/weight"].reshape(self.width, -1)
        h = gelu(columns @ conv2.T + w["encoder/conv2/bias"])
        h = h + w["encoder/position_encodings/encodings"][:half]
        heads, dh = self.encoder_heads, self.width // self.encoder_heads
        for i in range(self.encoder_layers):
            p = f"encoder/layer_{i}/"
            a = layer_norm(h, w[p + "self_attention/layer_norm/gamma"],
                           w[p + "self_attention/layer_norm/beta"])  # fmt: skip
            q, k, v = np.split(self._linear(a, p + "self_attention/linear_0"), 3, -1)
            q, k, v = (m.reshape(half, heads, dh).transpose(1, 0, 2) for m in (q, k, v))
            attended = _softmax(q @ k.transpose(0, 2, 1) / math.sqrt(dh)) @ v
            h = h + self._linear(
                attended.transpose(1, 0, 2).reshape(half, self.width),
                p + "self_attention/linear_1",
            )
            a = layer_norm(h, w[p + "ffn/layer_norm/gamma"], w[p + "ffn/layer_norm/beta"])
            h = h + self._linear(gelu(self._linear(a, p + "ffn/linear_0")), p + "ffn/linear_1")
        return layer_norm(h, w["encoder/layer_norm/gamma"], w["encoder/layer_norm/beta"])

    def cross(self, encoded: Array) -> list[tuple[Array, Array]]:
        """Per decoder layer, the cross-attention keys and values of one encoding."""
        heads, dh, length = self.decoder_heads, self.width // self.decoder_heads, len(encoded)
        out = []
        for i in range(self.decoder_layers):
            kv = self._linear(encoded, f"decoder/layer_{i}/attention/linear_1")
            k, v = np.split(kv, 2, -1)
            out.append(
                (
                    np.ascontiguousarray(k.reshape(length, heads, dh).transpose(1, 0, 2)),
                    np.ascontiguousarray(v.reshape(length, heads, dh).transpose(1, 0, 2)),
                )
            )
        return out

    def step(
        self, tokens: Array, position: int, state: State | None, cross: list[tuple[Array, Array]]
    ) -> tuple[Array, State]:
        """One token into each of N contexts (all at `position`): their log-probabilities of the
        next token [N, vocabulary], and the contexts grown by it."""
        w, n = self._w, len(tokens)
        heads, dh = self.decoder_heads, self.width // self.decoder_heads
        x = self._output[:, tokens].T + w["decoder/position_encodings/encodings"][position]
        keys, values = [], []
        for i in range(self.decoder_layers):
            p = f"decoder/layer_{i}/"
            a = layer_norm(x, w[p + "self_attention/layer_norm/gamma"],
                           w[p + "self_attention/layer_norm/beta"])  # fmt: skip
            q, k, v = np.split(self._linear(a, p + "self_attention/linear_0"), 3, -1)
            q, k, v = (m.reshape(n, heads, 1, dh) for m in (q, k, v))
            if state is not None:
                k = np.concatenate([state.keys[i], k], 2)
                v = np.concatenate([state.values[i], v], 2)
            keys.append(k)
            values.append(v)
            attended = _softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(dh)) @ v
            x = x + self._linear(attended.reshape(n, self.width), p + "self_attention/linear_1")
            a = layer_norm(x, w[p + "attention/layer_norm/gamma"],
                           w[p + "attention/layer_norm/beta"])  # fmt: skip
            q = self._linear(a, p + "attention/linear_0").reshape(n, heads, dh).transpose(1, 0, 2)
            cross_k, cross_v = cross[i]
            attended = _softmax(q @ cross_k.transpose(0, 2, 1) / math.sqrt(dh)) @ cross_v
            x = x + self._linear(
                attended.transpose(1, 0, 2).reshape(n, self.width), p + "attention/linear_2"
            )
            a = layer_norm(x, w[p + "ffn/layer_norm/gamma"], w[p + "ffn/layer_norm/beta"])
            x = x + self._linear(gelu(self._linear(a, p + "ffn/linear_0")), p + "ffn/linear_1")
        x = layer_norm(x, w["decoder/layer_norm/gamma"], w["decoder/layer_norm/beta"])
        return log_softmax(x @ self._output), State(keys, values)


def _count_layers(w: dict[str, Array], part: str) -> int:
    pattern = re.compile(rf"{part}/layer_(\d+)/")
    return len({m[1] for key in w if (m := pattern.match(key))})
