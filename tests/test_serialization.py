"""retrograd.save / retrograd.load: round trips, PyTorch checkpoints, and files that must never run code."""
import io
import json
import pickle
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


def roundtrip(obj):
    buf = io.BytesIO()
    rg.save(obj, buf)
    buf.seek(0)
    return rg.load(buf)


def saved_bytes(obj) -> bytes:
    buf = io.BytesIO()
    rg.save(obj, buf)
    return buf.getvalue()


@pytest.mark.parametrize("dtype", [rg.bool, rg.uint8, rg.int8, rg.int16, rg.int32, rg.int64, rg.float16, rg.float32,
                                   rg.float64])
def test_tensor_round_trip_every_dtype(dtype):
    t = rg.tensor(np.arange(-3, 9).reshape(3, 4) % 5, dtype=dtype)
    out = roundtrip(t)
    assert out.dtype is dtype and out.shape == t.shape
    np.testing.assert_array_equal(out.numpy(), t.numpy())


def test_special_tensors_round_trip():
    w = rg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    objs = {"scalar": rg.tensor(3.5), "empty": rg.zeros(0, 3), "transposed": w.detach().t(), "w": w,
            "nan": rg.tensor([float("nan"), float("inf")])}
    out = roundtrip(objs)
    assert out["scalar"].shape == () and out["scalar"].item() == 3.5
    assert out["empty"].shape == (0, 3)
    np.testing.assert_array_equal(out["transposed"].numpy(), [[1.0, 3.0], [2.0, 4.0]])
    assert out["w"].requires_grad and out["w"].is_leaf and not out["scalar"].requires_grad
    assert np.isnan(out["nan"].numpy()[0]) and np.isinf(out["nan"].numpy()[1])


def test_nested_containers_round_trip():
    t = rg.arange(3)
    od = OrderedDict([("layer.weight", rg.ones(2, 2)), ("layer.bias", rg.zeros(2))])
    od._metadata = OrderedDict([("", {"version": 1})])
    obj = {"t": t, "same": t, "list": [1, 2.5, "s", None, True, b"raw", (1, (2, 3))], 3: "int key",
           (1, "a"): "tuple key", "inf": float("-inf"), "big": 2 ** 70, "od": od,
           "counter": Counter([2, 5, 5]), "dtype": rg.float64, "size": rg.Size([2, 3]),
           "np": np.float32(1.25)}
    out = roundtrip(obj)
    assert out["t"] is out["same"]  # one object saved once, loaded once
    assert out["list"] == [1, 2.5, "s", None, True, b"raw", (1, (2, 3))]
    assert type(out["list"][6]) is tuple and out[3] == "int key" and out[(1, "a")] == "tuple key"
    assert out["inf"] == float("-inf") and out["big"] == 2 ** 70
    assert type(out["od"]) is OrderedDict and list(out["od"]) == ["layer.weight", "layer.bias"]
    assert out["od"]._metadata == {"": {"version": 1}}
    assert out["counter"] == Counter([2, 5, 5]) and type(out["counter"]) is Counter
    assert out["dtype"] is rg.float64 and out["size"] == (2, 3) and type(out["size"]) is rg.Size
    assert out["np"] == np.float32(1.25) and type(out["np"]) is np.float32


def test_parameter_round_trip():
    from retrograd.nn.parameter import Parameter

    out = roundtrip({"p": Parameter(rg.ones(2)), "frozen": Parameter(rg.zeros(1), requires_grad=False)})
    assert type(out["p"]) is Parameter and out["p"].requires_grad
    assert type(out["frozen"]) is Parameter and not out["frozen"].requires_grad


def test_paths_and_deterministic_bytes(tmp_path):
    obj = {"a": rg.ones(3), "b": [1, 2]}
    rg.save(obj, str(tmp_path / "a.pt"))
    rg.save(obj, tmp_path / "b.pt")
    assert (tmp_path / "a.pt").read_bytes() == (tmp_path / "b.pt").read_bytes() == saved_bytes(obj)
    with open(tmp_path / "a.pt", "rb") as fh:
        assert rg.load(fh, map_location="cpu")["b"] == [1, 2]
    assert zipfile.is_zipfile(tmp_path / "a.pt")
    names = zipfile.ZipFile(tmp_path / "a.pt").namelist()
    assert names == ["retrograd.json", "tensors/0.npy"]


def test_unsupported_objects_are_refused_before_writing(tmp_path):
    class Thing:
        pass

    with pytest.raises(TypeError, match="cannot save an object of type .*Thing"):
        rg.save({"x": Thing()}, tmp_path / "x.pt")
    assert not (tmp_path / "x.pt").exists()
    with pytest.raises(TypeError, match="NumPy arrays are not saved directly"):
        rg.save(np.zeros(2), io.BytesIO())


def test_optimizer_state_dict_round_trip():
    w = rg.tensor([1.0, -2.0], requires_grad=True)
    opt = rg.optim.Adam([w], lr=0.1, amsgrad=True)
    for _ in range(3):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    sd = roundtrip(opt.state_dict())
    ref = opt.state_dict()
    assert sd["param_groups"] == ref["param_groups"]
    for k, v in ref["state"][0].items():
        assert sd["state"][0][k].dtype is v.dtype
        np.testing.assert_array_equal(sd["state"][0][k].numpy(), v.numpy())


def test_reads_torch_save_of_a_model_state_dict(tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.BatchNorm1d(4))
    torch.save(model.state_dict(), tmp_path / "model.pt")
    sd = rg.load(tmp_path / "model.pt")
    ref = model.state_dict()
    assert type(sd) is OrderedDict and list(sd) == list(ref)
    for k, v in ref.items():
        assert sd[k].dtype.name == str(v.dtype).split(".")[1] and tuple(sd[k].shape) == tuple(v.shape)
        np.testing.assert_array_equal(sd[k].numpy(), v.numpy())
    assert sd._metadata[""]["version"] == ref._metadata[""]["version"]


def test_reads_torch_views_parameters_dtypes_and_sizes():
    buf = io.BytesIO()
    base = torch.arange(12, dtype=torch.float64).view(3, 4)
    torch.save({"view": base[1:, ::2], "t": base.t(), "p": torch.nn.Parameter(torch.ones(2)), "d": torch.float16,
                "s": torch.Size([1, 2]), "h": torch.ones(2, dtype=torch.float16), "b": torch.tensor([True, False]),
                "i": torch.tensor(7)}, buf)
    buf.seek(0)
    out = rg.load(buf)
    np.testing.assert_array_equal(out["view"].numpy(), base[1:, ::2].numpy())
    np.testing.assert_array_equal(out["t"].numpy(), base.t().numpy())
    assert out["p"].requires_grad and type(out["p"]).__name__ == "Parameter"
    assert out["d"] is rg.float16 and out["s"] == (1, 2)
    assert out["h"].dtype is rg.float16 and out["b"].dtype is rg.bool and out["i"].item() == 7


# ---------------------------------------------------------------------------------------- hostile files
class _Evil:
    """Unpickling this calls ``open(path, 'w')``: it creates a file."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _fake_torch_zip(payload: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", payload)
        zf.writestr("archive/byteorder", "little")
        zf.writestr("archive/version", "3\n")
    return buf.getvalue()


def test_the_hostile_payload_really_runs_code_when_unpickled(tmp_path):
    """Sanity check for the tests below: plain pickle.loads of this payload does create the file."""
    probe = tmp_path / "probe"
    pickle.loads(pickle.dumps(_Evil(probe))).close()
    assert probe.exists()


@pytest.mark.parametrize("wrap", ["raw", "fake_torch_zip", "torch_save", "nested_in_state_dict"])
@pytest.mark.parametrize("ext", [".rgd", ".pt"])
def test_hostile_files_execute_nothing(tmp_path, wrap, ext):
    marker = tmp_path / "pwned"
    path = tmp_path / f"evil{ext}"
    if wrap == "raw":
        path.write_bytes(pickle.dumps(_Evil(marker)))
    elif wrap == "fake_torch_zip":
        path.write_bytes(_fake_torch_zip(pickle.dumps(_Evil(marker), protocol=2)))
    elif wrap == "torch_save":
        torch.save(_Evil(marker), path)
    else:
        torch.save(OrderedDict(weight=torch.ones(2), extra=_Evil(marker)), path)
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError) as e:
        rg.load(path)
    assert not marker.exists()
    if wrap == "raw":
        assert "pickle stream" in str(e.value)
    else:
        assert "refusing to load the global 'io.open'" in str(e.value)  # pickle names open() io.open
    with pytest.raises(pickle.UnpicklingError):
        rg.load(path, weights_only=False)  # still weights-only
    assert not marker.exists()


def test_object_array_inside_our_format_is_refused(tmp_path):
    marker = tmp_path / "pwned"
    good = saved_bytes(rg.ones(2))
    evil_npy = io.BytesIO()
    np.save(evil_npy, np.array([_Evil(marker)], dtype=object), allow_pickle=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(buf, "w") as dst:
        dst.writestr("retrograd.json", src.read("retrograd.json"))
        dst.writestr("tensors/0.npy", evil_npy.getvalue())
    buf.seek(0)
    with pytest.raises(RuntimeError, match="unsupported dtype object"):
        rg.load(buf)
    assert not marker.exists()


# ---------------------------------------------------------------------------------------- broken files
def test_truncated_files_raise_clearly():
    data = saved_bytes({"w": rg.ones(100), "b": rg.zeros(3)})
    for cut in (len(data) - 1, len(data) - 30, len(data) // 2, 10, 3):
        with pytest.raises(RuntimeError, match="truncated|corrupted|bad magic"):
            rg.load(io.BytesIO(data[:cut]))
    with pytest.raises(RuntimeError, match="the file is empty"):
        rg.load(io.BytesIO(b""))


def test_corrupted_bytes_raise_clearly():
    data = bytearray(saved_bytes({"w": rg.ones(100)}))
    pos = data.index(b"\x00\x00\x80\x3f")  # inside the float32 ones
    data[pos + 2] ^= 0xFF
    with pytest.raises(RuntimeError, match="corrupted archive entry 'tensors/0.npy'.*CRC"):
        rg.load(io.BytesIO(bytes(data)))


def test_wrong_magic_raises_clearly(tmp_path):
    (tmp_path / "x.pt").write_bytes(b"hello, this is not a checkpoint")
    with pytest.raises(RuntimeError, match="bad magic bytes b'hell'"):
        rg.load(tmp_path / "x.pt")
    with pytest.raises(RuntimeError, match="neither a retrograd checkpoint"):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("readme.txt", "hi")
        rg.load(io.BytesIO(buf.getvalue()))


def test_zip_bomb_is_refused_without_inflating():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("retrograd.json", b" " * (50 << 20))  # 50 MiB of spaces, a few KiB compressed
    assert len(buf.getvalue()) < 1 << 20
    with pytest.raises(RuntimeError, match="compressed.*zip bomb"):
        rg.load(io.BytesIO(buf.getvalue()))


def _with_entry(data: bytes, name: str, payload: bytes) -> io.BytesIO:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for n in src.namelist():
            dst.writestr(n, payload if n == name else src.read(n))
    out.seek(0)
    return out


def test_huge_declared_array_is_refused():
    data = saved_bytes(rg.ones(2))
    hdr = io.BytesIO()
    np.lib.format.write_array_header_1_0(hdr, {"descr": "<f4", "fortran_order": False, "shape": (10 ** 12,)})
    bad = hdr.getvalue() + b"\x00" * 8
    with pytest.raises(RuntimeError, match=r"declares shape \(1000000000000,\)"):
        rg.load(_with_entry(data, "tensors/0.npy", bad))


@pytest.mark.parametrize("edit,msg", [
    (lambda h: h.update(version=99), "unsupported format version 99"),
    (lambda h: h.update(root={"$": "eval", "v": "__import__('os')"}), "unknown node tag 'eval'"),
    (lambda h: h.update(root={"$": "tensor", "i": 5}), "tensor reference 5 is out of range"),
    (lambda h: h.update(format="other"), "not a retrograd.save header"),
])
def test_tampered_header_raises_clearly(edit, msg):
    data = saved_bytes(rg.ones(2))
    header = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("retrograd.json"))
    edit(header)
    with pytest.raises(RuntimeError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        rg.load(_with_entry(data, "retrograd.json", json.dumps(header).encode()))
    with pytest.raises(RuntimeError, match="JSON header is corrupted"):
        rg.load(_with_entry(data, "retrograd.json", b"{not json"))


# ---------------------------------------------------------------------------------------- torch-written files
def _torch_round(obj, **kw):
    buf = io.BytesIO()
    torch.save(obj, buf, **kw)
    buf.seek(0)
    return rg.load(buf)


def test_reads_torch_optimizer_state():
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.AdamW(model.parameters(), lr=0.1, amsgrad=True)
    model(torch.ones(4, 3)).sum().backward()
    opt.step()
    ref = opt.state_dict()
    sd = _torch_round(ref)
    assert sd["param_groups"] == ref["param_groups"]
    for i, state in ref["state"].items():
        for k, v in state.items():
            assert sd["state"][i][k].dtype.name == str(v.dtype).split(".")[1]
            np.testing.assert_array_equal(sd["state"][i][k].numpy(), v.numpy())


@pytest.mark.parametrize("protocol", [2, 4])
def test_reads_torch_nested_containers_and_values(protocol):
    obj = {"list": [1, 2.5, "s", None, True, (1, (2, 3))], 3: "int key", (1, "a"): "tuple key",
           "od": OrderedDict(a=torch.ones(1)), "counter": Counter("aab"), "size": torch.Size([2, 3]),
           "dtypes": [torch.float32, torch.int64, torch.bool, torch.float16, torch.uint8],
           "device": torch.device("cpu"),
           "bytes": b"\x00\xff", "set": {1, 2}, "complex": 1 + 2j, "big": 2 ** 70, "neg": -(2 ** 40),
           "float": float("-inf")}
    out = _torch_round(obj, pickle_protocol=protocol)
    assert out["list"] == obj["list"] and out[3] == "int key" and out[(1, "a")] == "tuple key"
    assert type(out["od"]) is OrderedDict and out["od"]["a"].item() == 1.0
    assert out["counter"] == Counter("aab") and type(out["counter"]) is Counter
    assert out["size"] == (2, 3) and type(out["size"]) is rg.Size
    assert out["dtypes"] == [rg.float32, rg.int64, rg.bool, rg.float16, rg.uint8]
    assert str(out["device"]) == "cpu" and out["bytes"] == b"\x00\xff" and out["set"] == {1, 2}
    assert out["complex"] == 1 + 2j and out["big"] == 2 ** 70 and out["neg"] == -(2 ** 40)
    assert out["float"] == float("-inf")


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool,
                                   torch.float16, torch.float32, torch.float64])
def test_reads_torch_tensors_of_every_dtype(dtype):
    t = (torch.arange(-3, 9).reshape(3, 4) % 5).to(dtype)
    out = _torch_round({"t": t, "col": t[:, 1]})
    assert out["t"].dtype.name == str(dtype).split(".")[1]
    np.testing.assert_array_equal(out["t"].numpy(), t.numpy())
    np.testing.assert_array_equal(out["col"].numpy(), t[:, 1].numpy())


def test_reads_torch_bfloat16_as_float32():
    t = torch.tensor([1.5, -2.25, 3e38], dtype=torch.bfloat16)
    out = _torch_round(t)
    np.testing.assert_array_equal(out.numpy(), t.float().numpy())  # bfloat16 widens to float32 exactly


def test_torch_tensors_sharing_a_storage_share_memory_after_loading():
    base = torch.arange(12.0)
    obj = {"base": base, "view": base[2:10].view(2, 4)[:, 1::2], "t": base.view(3, 4).t()}
    out = _torch_round(obj)
    for k, v in obj.items():
        np.testing.assert_array_equal(out[k].numpy(), v.numpy())
    out["base"][3] = 100.0  # element 3 is view[0, 0] and t[3, 0]
    assert out["view"][0, 0].item() == 100.0 and out["t"][3, 0].item() == 100.0


def _big_endian(data: bytes) -> bytes:
    """A torch checkpoint as a big-endian machine writes it: byteorder 'big', every storage byte-swapped."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for n in src.namelist():
            raw = src.read(n)
            if n.endswith("byteorder"):
                raw = b"big"
            elif "/data/" in n and not n.endswith("serialization_id"):
                raw = np.frombuffer(raw, "<f4").astype(">f4").tobytes()
            dst.writestr(n, raw)
    return out.getvalue()


def test_reads_big_endian_torch_checkpoints():
    buf = io.BytesIO()
    t = torch.tensor([1.5, -2.0, 3.25])
    torch.save({"t": t}, buf)
    out = rg.load(io.BytesIO(_big_endian(buf.getvalue())))
    assert out["t"].dtype is rg.float32 and out["t"].numpy().dtype.isnative
    np.testing.assert_array_equal(out["t"].numpy(), t.numpy())


def test_retrograd_round_trip_of_fortran_and_big_endian_arrays():
    """.npy entries in Fortran order or big-endian byte order (which other writers produce) load correctly."""
    data = saved_bytes(rg.ones(2, 3))
    for arr in (np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)), np.arange(6, dtype=">f4").reshape(2, 3)):
        npy = io.BytesIO()
        np.save(npy, arr)
        out = rg.load(_with_entry(data, "tensors/0.npy", npy.getvalue()))
        np.testing.assert_array_equal(out.numpy(), np.arange(6).reshape(2, 3))
        assert out.numpy().dtype.isnative


def test_load_guarantees_are_documented():
    doc = rg.serialization.__doc__
    for words in ("regular file", "256", "UnpicklingError", "RuntimeError", "BUILD", "size of its tensors"):
        assert words in doc, words
