"""Moonshine's decoder prepared once as ONNX with dequantised weights: the same numbers as
the wheel's file, its branches named, the weights shared by both branches, made once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the moonshine extra (onnx) is not installed")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from banker.speech import onnx_model  # noqa: E402
from banker.speech.moonshine_asr import Moonshine, model_dir  # noqa: E402
from banker.tools import clips  # noqa: E402


def _quantised_model() -> Any:
    """y = x @ W, W stored as int8 and dequantised by Cast -> Mul -> Add (as in the wheel),
    read inside both branches of an If, the branches left unnamed as onnxruntime writes them."""
    q = np.arange(-6, 6, dtype=np.int8).reshape(3, 4)
    inits = [numpy_helper.from_array(q, "q"),
             numpy_helper.from_array(np.float32(0.5), "scale"),
             numpy_helper.from_array(np.float32(0.25), "zero")]
    nodes = [helper.make_node("Cast", ["q"], ["qf"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["qf", "scale"], ["qs"]),
             helper.make_node("Add", ["qs", "zero"], ["w"])]

    def branch(extra: float) -> Any:
        out = helper.make_tensor_value_info(f"y{extra}", TensorProto.FLOAT, [1, 4])
        g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], [f"m{extra}"]),
                               helper.make_node("Add", [f"m{extra}", f"c{extra}"], [f"y{extra}"])],
                              "", [], [out], [numpy_helper.from_array(np.float32(extra), f"c{extra}")])
        return g

    nodes.append(helper.make_node("If", ["flag"], ["y"], then_branch=branch(1.0),
                                  else_branch=branch(2.0)))
    graph = helper.make_graph(
        nodes, "main",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3]),
         helper.make_tensor_value_info("flag", TensorProto.BOOL, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _run(model: Any, flag: bool) -> Any:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = np.array([[1.0, -2.0, 3.0]], np.float32)
    return sess.run(None, {"x": x, "flag": np.array([flag])})[0]


def test_weights_are_dequantised_once_and_shared_by_both_branches() -> None:
    model = _quantised_model()
    with pytest.raises(Exception, match="name"):  # onnxruntime refuses unnamed branches
        _run(model, True)
    onnx_model.name_subgraphs(model.graph)
    before = [_run(model, True), _run(model, False)]
    assert onnx_model.fold_weights(model.graph) == 3
    assert [n.op_type for n in model.graph.node] == ["If"]  # the chain is gone from the graph
    names = {i.name for i in model.graph.initializer}
    assert names == {"w"}  # the int8 original and its scale are no longer kept
    w = numpy_helper.to_array(next(iter(model.graph.initializer)))
    assert w.dtype == np.float32 and w[0, 0] == pytest.approx(-6 * 0.5 + 0.25)
    branches = [a.g.name for a in model.graph.node[0].attribute]
    assert all(branches) and len(set(branches)) == 2
    onnx.checker.check_model(model)  # unnamed branches fail the checker onnxruntime runs
    after = [_run(model, True), _run(model, False)]
    for b, a in zip(before, after, strict=True):
        np.testing.assert_array_equal(b, a)


def test_the_wheels_decoder_prepared_once_gives_the_same_words(tmp_path: Path) -> None:
    ort_file = model_dir() / "decoder_model_merged.ort"
    out = onnx_model.prepared(ort_file, tmp_path)
    assert out.exists() and out.stat().st_size > ort_file.stat().st_size  # float weights
    stamp = out.stat().st_mtime_ns
    assert onnx_model.prepared(ort_file, tmp_path) == out
    assert out.stat().st_mtime_ns == stamp  # made once
    pcm = clips.pad(clips.speech("buy Park Place from the hat for five hundred"))
    fast, wheel = Moonshine(), Moonshine(prepare=False)
    assert fast.prepared and not wheel.prepared
    assert fast.transcribe(pcm) == wheel.transcribe(pcm)
