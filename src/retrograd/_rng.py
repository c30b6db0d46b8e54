"""PyTorch-identical CPU random numbers: the engine and the distribution transforms.

PyTorch's CPU generator is a 32-bit Mersenne Twister (mt19937) seeded with the classic
``init_genrand`` on the low 32 bits of the seed. NumPy's ``MT19937`` bit generator runs the
same recurrence, so we set its key ourselves and read raw 32-bit words from it in blocks;
every transform below is a vectorised copy of what PyTorch does with those words, so
``manual_seed(s)`` followed by the same calls gives the same numbers as PyTorch.

Where PyTorch's result depends on the C math library (log, sin, cos in double precision)
we call the C library too (through ``math``), since NumPy's vectorised versions can differ
in the last bit; the float32 normal fill copies PyTorch's AVX2 polynomial kernels step by step.

>>> from retrograd._rng import Engine
>>> e = Engine(0)
>>> int(e.words(1)[0])
2357136044
"""
from __future__ import annotations

import math
import struct

import numpy as np

DEFAULT_SEED = 67280421310721
STATE_SIZE = 5056      # sizeof(CPUGeneratorImplState) in PyTorch (x86-64)
LEGACY_STATE_SIZE = 5048  # the older THGeneratorState layout PyTorch still accepts
_N = 624
_U64 = np.uint64
_M64 = (1 << 64) - 1


def _init_genrand(seed32: int) -> np.ndarray:
    key = [0] * _N
    key[0] = seed32
    for j in range(1, _N):
        prev = key[j - 1]
        key[j] = (1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF
    return np.array(key, dtype=np.uint32)


class Engine:
    """One mt19937 stream plus PyTorch's cached second Box-Muller normals.

    >>> import numpy as np
    >>> from retrograd._rng import Engine
    >>> Engine(0).uniform(2, np.float32).tolist()
    [0.49625658988952637, 0.7682217955589294]
    """

    __slots__ = ("bg", "gen", "seed", "fresh", "normal_double", "normal_float")

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self.bg = np.random.MT19937(0)
        # full-range uint32 ``integers`` hands out the raw words unchanged, and faster
        # than ``random_raw`` (which widens them to uint64)
        self.gen = np.random.Generator(self.bg)
        self.manual_seed(seed)

    def manual_seed(self, seed: int) -> None:
        seed = int(seed) & _M64  # PyTorch keeps the seed as uint64 (-1 -> 2**64 - 1)
        self.seed = seed
        self.bg.state = {"bit_generator": "MT19937", "state": {"key": _init_genrand(seed & 0xFFFFFFFF), "pos": _N}}
        self.fresh = True
        self.normal_double = None
        self.normal_float = None

    # ------------------------------------------------------------------ raw words
    def words(self, n: int) -> np.ndarray:
        """``n`` raw 32-bit draws (``generator->random()``), as uint32."""
        self.fresh = False
        return self.gen.integers(0, 0xFFFFFFFF, size=n, dtype=np.uint32, endpoint=True)

    def words64(self, n: int) -> np.ndarray:
        """``n`` 64-bit draws (``random64()``: the first word is the high half)."""
        w = self.words(2 * n).astype(_U64)
        return (w[0::2] << _U64(32)) | w[1::2]

    # ------------------------------------------------------------------ uniform
    def unit(self, n: int, dtype) -> np.ndarray:
        """[0, 1) as ``uniform_real_distribution<T>(0, 1)``: 53 bits of a 64-bit draw for double,
        else the low ``digits`` bits of one word, in float32 (PyTorch's accumulate type)."""
        dtype = np.dtype(dtype)
        if dtype == np.float64:
            return (self.words64(n) & _U64((1 << 53) - 1)).astype(np.float64) * (2.0 ** -53)
        digits = 11 if dtype == np.float16 else 24
        w = self.words(n)
        w &= np.uint32((1 << digits) - 1)
        return w.astype(np.float32) * np.float32(2.0 ** -digits)

    def uniform(self, n: int, dtype, low: float = 0.0, high: float = 1.0) -> np.ndarray:
        """``uniform_(low, high)`` samples in ``dtype`` (the top end folds back to ``low``)."""
        dtype = np.dtype(dtype)
        op = np.float64 if dtype == np.float64 else np.float32
        x = self.unit(n, dtype)
        lo, hi = op(low), op(high)
        with np.errstate(over="ignore", invalid="ignore"):
            if lo == 0 and hi == 1:
                v = x.astype(dtype, copy=False)
            elif op is np.float32:  # fma(x, to - from, from), as PyTorch's compiled kernel
                v = (x.astype(np.float64) * float(hi - lo) + float(lo)).astype(dtype)
            else:
                v = _fma64(x, float(hi - lo), float(lo)).astype(dtype, copy=False)
            top = dtype.type(high)
            if np.any(v == top):  # a rounding up to the excluded bound counts as the lower one
                v[v == top] = dtype.type(low)
        return v

    # ------------------------------------------------------------------ normal
    def normal_pairs(self, n: int, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
        """``n`` draws of ``normal_distribution<double>`` (one at a time in PyTorch): Box-Muller
        on two doubles, the sine half cached for the next draw. Float64 results."""
        out = np.empty(n, np.float64)
        i = 0
        if n and self.normal_double is not None:
            out[0] = self.normal_double
            self.normal_double = None
            i = 1
        m = n - i
        if m > 0:
            pairs = (m + 1) // 2
            u = self.unit(2 * pairs, np.float64)
            u1, u2 = u[0::2], u[1::2]
            r = np.sqrt(-2.0 * _libm(math.log1p, -u2))
            theta = 2.0 * math.pi * u1
            z = np.empty(2 * pairs)
            z[0::2] = r * _libm(math.cos, theta)
            z[1::2] = r * _libm(math.sin, theta)
            out[i:] = z[:m]
            if m % 2:
                self.normal_double = float(z[-1])
        return _fma64(out, float(std), float(mean))  # val * std + mean, fused by the compiler

    def normal_fill(self, n: int, dtype, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
        """``normal_`` of a contiguous tensor of ``n >= 16`` elements: uniforms, then Box-Muller
        over blocks of 16 (8 pairs); a partial last block is redrawn and written over the tail."""
        dtype = np.dtype(dtype)
        dbl = dtype == np.float64
        op = np.float64 if dbl else np.float32
        data = self.unit(n, dtype)
        full = n // 16 * 16
        out = np.empty(n, op)
        box = _box16_double if dbl else _box16_float
        _in_chunks(box, data[:full], out[:full], mean, std)
        if n % 16:
            out[n - 16:] = box(self.unit(16, dtype), mean, std)
        return out.astype(dtype, copy=False)

    def normal(self, n: int, dtype, mean: float = 0.0, std: float = 1.0, contiguous: bool = True) -> np.ndarray:
        """``normal_(mean, std)`` on a tensor of ``n`` elements, PyTorch's path chosen by size."""
        if n >= 16 and contiguous:
            return self.normal_fill(n, dtype, mean, std)
        return self.normal_pairs(n, mean, std).astype(dtype)

    # ------------------------------------------------------------------ integers
    def randint(self, n: int, low: int, high: int) -> np.ndarray:
        """``random_(low, high)``: a word (or a 64-bit draw when the range is >= 2**28) mod range."""
        rng = high - low
        if rng >= 1 << 64:  # the whole int64 range: the 64-bit draw itself
            return self.words64(n).view(np.int64)
        v = self.words64(n) if rng >= 1 << 28 else self.words(n)
        return (v % _U64(rng)).astype(np.int64) + np.int64(low) if rng < 1 << 63 else \
            ((v % _U64(rng)) + _U64(low & _M64)).view(np.int64)

    def randperm(self, n: int) -> list[int]:
        """PyTorch's CPU ``randperm`` (a Fisher-Yates shuffle driven by words mod (n - i))."""
        if n < 0xFFFFFFFF // 20:
            perm = list(range(n))
            if n > 1:
                z = (self.words(n - 1) % np.arange(n, 1, -1, dtype=_U64)).tolist()
                for i, k in enumerate(z):
                    j = i + k
                    perm[i], perm[j] = perm[j], perm[i]
            return perm
        # the huge-n branch: an inside-out shuffle on 64-bit draws
        z = (self.words64(n) % np.arange(1, n + 1, dtype=_U64)).tolist()
        perm = [0] * n
        for i, k in enumerate(z):
            perm[i] = perm[k]
            perm[k] = i
        return perm

    # ------------------------------------------------------------------ state bytes
    def get_state(self) -> np.ndarray:
        """PyTorch's ``CPUGeneratorImplState`` bytes (5056, little-endian x86-64 layout)."""
        st = self.bg.state["state"]
        pos = int(st["pos"])
        if self.fresh:
            left, nxt = 1, 0
        else:
            left, nxt = (1, _N) if pos >= _N else (_N + 1 - pos, pos)
        buf = bytearray(STATE_SIZE)
        struct.pack_into("<QiiQ", buf, 0, self.seed, left, 1, nxt)
        buf[24:24 + 8 * _N] = np.asarray(st["key"], dtype="<u8").tobytes()
        nd, nf = self.normal_double, self.normal_float
        struct.pack_into("<dddi", buf, 24 + 8 * _N, 0.0, 0.0 if nd is None else nd, 0.0, int(nd is not None))
        struct.pack_into("<f?", buf, LEGACY_STATE_SIZE, 0.0 if nf is None else nf, nf is not None)
        return np.frombuffer(bytes(buf), dtype=np.uint8).copy()

    def set_state(self, raw: bytes) -> None:
        """Load bytes from :meth:`get_state` (or PyTorch's ``get_rng_state()``)."""
        seed, left, _seeded, nxt = struct.unpack_from("<QiiQ", raw, 0)
        key = np.frombuffer(raw, dtype="<u8", count=_N, offset=24).astype(np.uint32)
        _x, ny, _rho, nvalid = struct.unpack_from("<dddi", raw, 24 + 8 * _N)
        pos = _N if left <= 1 else int(nxt)
        if not 0 <= pos <= _N:
            raise RuntimeError("Expected a valid mt19937 state (next index out of range)")
        self.bg.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self.seed = seed
        self.fresh = left == 1 and nxt == 0
        self.normal_double = ny if nvalid else None
        self.normal_float = None
        if len(raw) >= STATE_SIZE:
            nf, fvalid = struct.unpack_from("<f?", raw, LEGACY_STATE_SIZE)
            self.normal_float = nf if fvalid else None


_EXACT_LIBM_MAX = 1 << 16  # elements: above this, NumPy's vectorised twin (see _libm)
_NUMPY_TWIN = {math.log: np.log, math.log1p: np.log1p, math.sin: np.sin, math.cos: np.cos,
               math.tan: np.tan, math.exp: np.exp}


def _libm(fn, x: np.ndarray) -> np.ndarray:
    """``fn`` (a ``math`` function, i.e. the C library's) applied elementwise: bit-equal to
    what PyTorch's scalar C++ code gets, unlike NumPy's SIMD versions.

    Element by element this costs ~0.1 µs per value, so big float64 draws (a million
    ``randn`` values: ~0.3 s) use NumPy's vectorised function instead, which differs from the
    C library in the last bit for about 0.2% of values; small draws (gradcheck inputs, test
    data, parameter inits) stay bit-identical to torch.
    """
    if x.size == 0:
        return x.astype(np.float64)
    if x.size > _EXACT_LIBM_MAX and fn in _NUMPY_TWIN:
        return _NUMPY_TWIN[fn](x.astype(np.float64, copy=False))
    return np.frompyfunc(fn, 1, 1)(x).astype(np.float64)


_POOL = None
_CHUNK = 1 << 16  # elements per task (a multiple of 16)


def _in_chunks(box, data: np.ndarray, out: np.ndarray, mean: float, std: float) -> None:
    """Run a block-of-16 transform over big inputs in threads (NumPy releases the GIL; the
    blocks are independent, so the result is the same as one pass)."""
    global _POOL
    n = data.size
    if n <= _CHUNK or box is _box16_double:  # (the double path holds the GIL in math calls)
        out[...] = box(data, mean, std)
        return
    if _POOL is None:
        import os
        from concurrent.futures import ThreadPoolExecutor

        _POOL = ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1), thread_name_prefix="retrograd-rng")
    starts = range(0, n, _CHUNK)

    def work(i: int) -> None:
        out[i:i + _CHUNK] = box(data[i:i + _CHUNK], mean, std)
    list(_POOL.map(work, starts))


def _box16_double(data: np.ndarray, mean: float, std: float) -> np.ndarray:
    """PyTorch's scalar ``NormalFill16<double>``: radius from the first 8, angle from the last 8."""
    x = data.reshape(-1, 16)
    u1, u2 = 1.0 - x[:, :8], x[:, 8:]
    radius = np.sqrt(-2.0 * _libm(math.log, u1))
    theta = 2.0 * math.pi * u2
    out = np.empty_like(x)
    out[:, :8] = _fma64(radius * _libm(math.cos, theta), std, mean)
    out[:, 8:] = _fma64(radius * _libm(math.sin, theta), std, mean)
    return out.reshape(-1)


def _fma64(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """``fma(a, b, c)`` in double: exact for the common b == 1, c == 0; otherwise the product's
    and the sum's rounding errors (Dekker / Knuth) are added back, right but for rare ties."""
    if b == 1.0 and c == 0.0:
        return a
    with np.errstate(over="ignore", invalid="ignore"):
        p = a * b
        split = 134217729.0  # 2**27 + 1
        ah = a * split
        ah = ah - (ah - a)
        al = a - ah
        bh = b * split
        bh = bh - (bh - b)
        bl = b - bh
        err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s = p + c
        bb = s - p
        e2 = (p - (s - bb)) + (c - bb)
        out = s + (e2 + err)
    return np.where(np.isfinite(out), out, p + c)


# ---------------------------------------------------------------------------- float32 Box-Muller
# PyTorch's float kernel (the AVX2 one, also used on AVX-512 machines) computes log, sin and cos
# with the cephes-style polynomials of avx_mathfun.h, and its compiler fuses some multiply-adds.
# We follow it operation by operation in float32; a fused multiply-add is "exact product in
# double, one add in double, round to float32" (_Fma), right but for astronomically rare ties.
_f32 = np.float32
_f64 = np.float64


def _c(v: float):
    return _f32(v)


_LOG_P = tuple(_c(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                                1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                                3.3333331174E-1))


class _Fma:
    """fma(a, b, c) -> float32, reusing one float64 scratch buffer."""

    def __init__(self, shape) -> None:
        self.t = np.empty(shape, _f64)

    def __call__(self, a, b, c, out=None):
        np.multiply(a, b, out=self.t, dtype=_f64)
        if out is None:
            out = np.empty(self.t.shape, _f32)
        np.add(self.t, c, out=out, dtype=_f64, casting="unsafe")
        return out


def _log_ps(x: np.ndarray, fma: _Fma) -> np.ndarray:
    """avx_mathfun's log256_ps on contiguous float32 ``x`` in (0, 1]."""
    bits = x.view(np.int32)
    e = ((bits >> 23) - 126).astype(_f32)  # (x >= 2**-24 here: no denormals to cut off)
    m = ((bits & ~0x7F800000) | 0x3F000000).view(_f32)
    small = (m < _c(0.707106781186547524)).astype(_f32)  # (masks as 0/1 arithmetic: exact, and
    e -= small                                            # far cheaper than np.where)
    tmp = m * small
    m -= _f32(1)
    m += tmp
    z = m * m
    y = np.full_like(m, _LOG_P[0])
    for p in _LOG_P[1:]:
        fma(y, m, p, out=y)
    y *= m
    fma(y, z, e * _c(-2.12194440e-4), out=y)
    fma(z, _f32(-0.5), y, out=y)
    m += y
    return fma(e, _c(0.693359375), m, out=m)


def _sincos_ps(x: np.ndarray, fma: _Fma) -> tuple[np.ndarray, np.ndarray]:
    """avx_mathfun's sincos256_ps for contiguous float32 angles in [0, 2*pi)."""
    j = (x * _c(1.27323954473516)).astype(np.int32)
    j += 1
    j &= ~1
    y = j.astype(_f32)
    x = x.copy()
    for dp in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8):
        x += y * _c(dp)
    z = x * x
    yc = np.full_like(z, _c(2.443315711809948E-005))
    fma(yc, z, _c(-1.388731625493765E-003), out=yc)
    fma(yc, z, _c(4.166664568298827E-002), out=yc)
    yc *= z
    fma(yc, z, -(z * _f32(0.5)), out=yc)
    yc += _f32(1)
    ys = np.full_like(z, _c(-1.9515295891E-4))
    fma(ys, z, _c(8.3321608736E-3), out=ys)
    fma(ys, z, _c(-1.6666654611E-1), out=ys)
    ys *= z
    fma(ys, x, x, out=ys)
    # pick the polynomial by quadrant and flip signs, as 0/1 and +-1 arithmetic (exact)
    second = ((j >> 1) & 1).astype(_f32)
    s = ys - ys * second + yc * second
    c = yc - yc * second + ys * second
    s *= (1 - ((j & 4) >> 1)).astype(_f32)
    c *= ((((j - 2) & 4) >> 1) - 1).astype(_f32)
    return s, c


def _box16_float(data: np.ndarray, mean: float, std: float) -> np.ndarray:
    x = data.reshape(-1, 16)
    fma = _Fma((x.shape[0], 8))
    u1 = _f32(1) - x[:, :8]
    lg = _log_ps(u1, fma)
    lg *= _f32(-2)
    radius = np.sqrt(lg, out=lg)
    s, c = _sincos_ps(_c(2.0 * math.pi) * x[:, 8:], fma)
    out = np.empty(x.shape, _f32)
    np.multiply(radius, c, out=out[:, :8])
    np.multiply(radius, s, out=out[:, 8:])
    m, sd = _f32(mean), _f32(std)
    if not (sd == 1 and m == 0):
        out = _Fma(out.shape)(out, sd, m)
    return out.reshape(-1)


# ---------------------------------------------------------------------------- other transforms
def exponential(eng: Engine, n: int, lambd: float) -> np.ndarray:
    """``exponential_``: -1/lambda * log1p(-u) in double."""
    return (-1.0 / lambd) * _libm(math.log1p, -eng.unit(n, np.float64))


def geometric(eng: Engine, n: int, p: float) -> np.ndarray:
    """``geometric_``: ceil(log(u) / log1p(-p)) in double."""
    u = eng.unit(n, np.float64)
    with np.errstate(divide="ignore"):
        lu = np.where(u > 0, _libm(math.log, np.where(u > 0, u, 1.0)), -np.inf)
    return np.ceil(lu / math.log1p(-p))


def cauchy(eng: Engine, n: int, median: float, sigma: float) -> np.ndarray:
    """``cauchy_``: median + sigma * tan(pi * (u - 0.5)) in double (the compiler fuses the
    multiply-add)."""
    return _fma64(_libm(math.tan, math.pi * (eng.unit(n, np.float64) - 0.5)), float(sigma), float(median))


def log_normal(eng: Engine, n: int, mean: float, std: float) -> np.ndarray:
    """``log_normal_``: exp of one-at-a-time double normals (sharing the Box-Muller cache)."""
    return _libm(math.exp, eng.normal_pairs(n, mean, std))


def bernoulli_scalar(eng: Engine, n: int, p: float) -> np.ndarray:
    """``bernoulli_(p)`` with a number p: a double uniform < p."""
    return eng.unit(n, np.float64) < p


def bernoulli_tensor(eng: Engine, probs: np.ndarray) -> np.ndarray:
    """``bernoulli_(p_tensor)`` / ``torch.bernoulli``: a uniform of p's precision (double for
    float64 p, else 24 bits in float32) < p, one per element in order."""
    if probs.dtype == np.float64:
        return eng.unit(probs.size, np.float64).reshape(probs.shape) < probs
    return eng.unit(probs.size, np.float32).reshape(probs.shape) < probs.astype(np.float32)


def rrelu_noise(eng: Engine, x: np.ndarray, lower: float, upper: float) -> np.ndarray:
    """RReLU's training slopes as PyTorch draws them: one double uniform in [lower, upper) per
    element <= 0, in memory order (cast to x's dtype); 1 elsewhere."""
    flat = np.ascontiguousarray(x).reshape(-1)
    neg = flat <= 0
    noise = np.ones(flat.shape, x.dtype)
    k = int(np.count_nonzero(neg))
    if k:
        op = np.float64 if x.dtype == np.float64 else np.float32  # the bounds pass through x's math type
        lo, hi = float(op(lower)), float(op(upper))
        noise[neg] = _fma64(eng.unit(k, np.float64), hi - lo, lo).astype(x.dtype)
    return noise.reshape(x.shape)


class _DoubleStream:
    """Double uniforms handed out one at a time for rejection samplers, drawn in blocks; on
    close the engine is left exactly as many draws further on as were used."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng
        self.saved = eng.bg.state
        self.fresh = eng.fresh
        self.buf: list[float] = []
        self.i = 0
        self.used = 0

    def __call__(self) -> float:
        if self.i == len(self.buf):
            self.buf = self.eng.unit(max(64, 2 * len(self.buf)), np.float64).tolist()
            self.i = 0
        self.i += 1
        self.used += 1
        return self.buf[self.i - 1]

    def close(self) -> None:
        self.eng.bg.state = self.saved
        self.eng.fresh = self.fresh
        if self.used:
            self.eng.words(2 * self.used)


def poisson(eng: Engine, rates: np.ndarray) -> np.ndarray:
    """PyTorch's CPU Poisson sampler, element by element in order: products of uniforms for
    rates below 10, Hormann's transformed rejection (PTRS) from 10 up."""
    uni = _DoubleStream(eng)
    out = np.empty(rates.size, np.float64)
    try:
        for idx, lam in enumerate(np.ascontiguousarray(rates, dtype=np.float64).reshape(-1).tolist()):
            out[idx] = _poisson_one(lam, uni)
    finally:
        uni.close()
    return out.reshape(rates.shape)


def _poisson_one(lam: float, uni) -> int:
    if lam >= 10:
        slam = math.sqrt(lam)
        loglam = math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uni() - 0.5
            v = uni()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)) <= \
                    (-lam + k * loglam - math.lgamma(k + 1.0)):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    x, prod = 0, 1.0
    while True:
        prod *= uni()
        if prod > enlam:
            x += 1
        else:
            return x


def random_full(eng: Engine, n: int, dtype) -> np.ndarray:
    """``random_()`` without bounds: [0, 2**mantissa] for floats, [0, max] for integers."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return (eng.words(n) & _U64(1)).astype(np.bool_)
    wide = dtype in (np.float64, np.int64)
    v = eng.words64(n) if wide else eng.words(n)
    if dtype.kind == "f":
        mod = (1 << (np.finfo(dtype).nmant + 1)) + 1
    else:
        mod = int(np.iinfo(dtype).max) + 1
    return (v % _U64(mod)).astype(dtype)


def arrange(flat: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``flat`` laid out with ``like``'s shape in the order PyTorch's serial kernels visit
    ``like``: memory order (smallest stride fastest), so fills of transposed views match."""
    if like.flags.c_contiguous or like.ndim < 2:
        return flat.reshape(like.shape)
    order = memory_axes(like)
    out = np.empty(like.shape, flat.dtype)
    view = out.transpose(order)
    view[...] = flat.reshape(view.shape)
    return out


def memory_axes(like: np.ndarray) -> list[int]:
    """``like``'s axes from the largest stride to the smallest."""
    return sorted(range(like.ndim), key=lambda d: (-abs(like.strides[d]), d))
