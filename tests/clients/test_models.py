"""Scenarios distilled from running popular model code unchanged on retrograd.

nanoGPT / minGPT (GPT training and sampling), a torchvision-style ResNet, the seq2seq-with-
attention tutorial and the DCGAN example were run under ``retrograd.register_as_torch()`` and
under PyTorch with the same seeds.  Each test below is a small piece of such client code, written
against a library ``T`` and run on both; what it logs (losses, sampled tokens, shapes, reprs,
state_dict keys, dtypes) must agree.  Floats are compared to 1e-4 relative: float32 sums in
another order differ in the last digits, which is not a bug.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


def _plain(x):
    """Comparable plain data: tensors -> (shape, short dtype, values); names without the module."""
    if isinstance(x, (rg.Tensor, torch.Tensor)):
        x = x.detach()
        return ("T", tuple(x.shape), str(x.dtype).split(".")[-1], x.reshape(-1).tolist())
    if isinstance(x, (rg.dtype, torch.dtype)):
        return str(x).split(".")[-1]
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, str):
        return re.sub(r"\b(torch|retrograd)\.", "", x)
    return x


def _close(a, b, path="log"):
    if isinstance(a, float) or isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6) or (math.isnan(a) and math.isnan(b)), \
            f"{path}: {a} != {b}"
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), f"{path}: {a} != {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            _close(a[k], b[k], f"{path}[{k!r}]")
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def _same(scenario):
    """Run ``scenario(T, log)`` on retrograd and on torch; the logs must agree (see ``_close``)."""
    logs = []
    for T in (rg, torch):
        log = []
        old = T.get_default_dtype()
        try:
            scenario(T, lambda *a: log.append(_plain(a)))
        finally:
            T.set_default_dtype(old)
        logs.append(log)
    assert len(logs[0]) == len(logs[1])
    _close(logs[0], logs[1])
    return logs[0]


# ------------------------------------------------------------------ fixes: default-dtype results
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_square_subsequent_mask_follows_the_default_dtype(default):
    # nn.Transformer.generate_square_subsequent_mask used to be float32 always; under
    # set_default_dtype(float64) the mask then has another dtype than the model's activations.
    def scenario(T, log):
        T.set_default_dtype(getattr(T, default))
        log(T.nn.Transformer.generate_square_subsequent_mask(4))
        log(T.nn.Transformer.generate_square_subsequent_mask(3, dtype=T.float16))
        log(T.nn.Transformer.generate_square_subsequent_mask(2, device="cpu", dtype=T.float64))
        log(repr(T.nn.Transformer.generate_square_subsequent_mask(2)))
    _same(scenario)


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_causal_mask_drives_a_float64_encoder(default):
    def scenario(T, log):
        T.set_default_dtype(getattr(T, default))
        T.manual_seed(5)
        layer = T.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
        enc = T.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        src = T.randn(2, 5, 8)
        mask = T.nn.Transformer.generate_square_subsequent_mask(5)
        out = enc(src, mask=mask, is_causal=True)
        log(out.dtype, tuple(out.shape), out[0, :2, :3])
    _same(scenario)


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_total_norm_of_no_gradients_is_in_the_default_dtype(default):
    # clip_grad_norm_ over parameters that have no .grad yet (a frozen model) returns tensor(0.)
    def scenario(T, log):
        T.set_default_dtype(getattr(T, default))
        w = T.zeros(2, requires_grad=True)
        log(repr(T.nn.utils.clip_grad_norm_([w], 1.0)))
        log(repr(T.nn.utils.clip_grad_norm_([], 1.0)))
        log(repr(T.nn.utils.get_total_norm([])))
        log(w.grad is None)
    _same(scenario)


# ------------------------------------------------------------------ model scenarios (regressions)
def _gpt(T, n_embd=16, n_head=2, vocab=23, block=12, bias=False, flash=True, dropout=0.0):
    """A nanoGPT-shaped model: bias-free LayerNorm via F.layer_norm, tied embeddings, SDPA."""
    nn, F = T.nn, T.nn.functional

    class LN(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.weight = nn.Parameter(T.ones(d))
            self.bias = nn.Parameter(T.zeros(d)) if bias else None

        def forward(self, x):
            return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=bias)
            self.c_proj = nn.Linear(n_embd, n_embd, bias=bias)
            self.drop = nn.Dropout(dropout)
            if not flash:
                self.register_buffer("bias", T.tril(T.ones(block, block)).view(1, 1, block, block))

        def forward(self, x):
            B, L, C = x.size()
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            q, k, v = (t.view(B, L, n_head, C // n_head).transpose(1, 2) for t in (q, k, v))
            if flash:
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=None,
                                                   dropout_p=dropout if self.training else 0, is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(self.bias[:, :, :L, :L] == 0, float("-inf"))
                y = self.drop(F.softmax(att, dim=-1)) @ v
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, L, C))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn, self.ln_2 = LN(n_embd), Attn(), LN(n_embd)
            self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd, bias=bias), nn.GELU(),
                                     nn.Linear(4 * n_embd, n_embd, bias=bias), nn.Dropout(dropout))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(vocab, n_embd), wpe=nn.Embedding(block, n_embd), drop=nn.Dropout(dropout),
                h=nn.ModuleList([Block() for _ in range(2)]), ln_f=LN(n_embd)))
            self.lm_head = nn.Linear(n_embd, vocab, bias=False)
            self.transformer.wte.weight = self.lm_head.weight
            self.apply(self._init)
            for pn, p in self.named_parameters():
                if pn.endswith("c_proj.weight"):
                    T.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(4))

        def _init(self, m):
            if isinstance(m, nn.Linear):
                T.nn.init.normal_(m.weight, mean=0.0, std=0.02)
                if m.bias is not None:
                    T.nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Embedding):
                T.nn.init.normal_(m.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            t = idx.size(1)
            pos = T.arange(0, t, dtype=T.long, device=idx.device)
            x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
            for b in self.transformer.h:
                x = b(x)
            x = self.transformer.ln_f(x)
            if targets is None:
                return self.lm_head(x[:, [-1], :]), None
            logits = self.lm_head(x)
            return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)

    return GPT()


@pytest.mark.parametrize("flash,bias,dropout", [(True, False, 0.0), (True, True, 0.1), (False, False, 0.0)])
def test_nanogpt_train_and_sample(flash, bias, dropout):
    def scenario(T, log):
        T.manual_seed(1337)
        model = _gpt(T, bias=bias, flash=flash, dropout=dropout)
        log(repr(model), list(model.state_dict().keys()), sum(p.numel() for p in model.parameters()))
        params = {n: p for n, p in model.named_parameters() if p.requires_grad}
        groups = [{"params": [p for p in params.values() if p.dim() >= 2], "weight_decay": 0.1},
                  {"params": [p for p in params.values() if p.dim() < 2], "weight_decay": 0.0}]
        opt = T.optim.AdamW(groups, lr=1e-3, betas=(0.9, 0.95))
        model.train()
        for _ in range(3):
            x = T.randint(0, 23, (3, 10))
            y = T.randint(0, 23, (3, 10))
            y[0, :2] = -1
            logits, loss = model(x, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            gn = T.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            log(loss.item(), gn.item(), tuple(logits.shape))
        model.eval()
        idx = T.zeros((2, 1), dtype=T.long)
        with T.no_grad():
            for _ in range(6):
                logits, _ = model(idx)
                logits = logits[:, -1, :] / 0.8
                v, _ = T.topk(logits, 5)
                logits[logits < v[:, [-1]]] = -float("Inf")
                idx = T.cat((idx, T.multinomial(F_softmax(T, logits), num_samples=1)), dim=1)
        log(idx.tolist())
        log([(k, v) for k, v in opt.state_dict()["param_groups"][1].items() if k != "params"])
    _same(scenario)


def F_softmax(T, x):
    return T.nn.functional.softmax(x, dim=-1)


def test_resnet_basic_block_with_zero_init_residual_and_running_stats():
    def scenario(T, log):
        nn, F = T.nn, T.nn.functional

        class BasicBlock(nn.Module):
            def __init__(self, cin, cout, stride):
                super().__init__()
                self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
                self.bn1 = nn.BatchNorm2d(cout)
                self.relu = nn.ReLU(inplace=True)
                self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
                self.bn2 = nn.BatchNorm2d(cout)
                self.downsample = None if stride == 1 and cin == cout else nn.Sequential(
                    nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

            def forward(self, x):
                identity = x
                out = self.relu(self.bn1(self.conv1(x)))
                out = self.bn2(self.conv2(out))
                if self.downsample is not None:
                    identity = self.downsample(x)
                out += identity
                return self.relu(out)

        T.manual_seed(0)
        model = nn.Sequential(nn.Conv2d(3, 8, 7, 2, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                              nn.MaxPool2d(3, 2, 1), BasicBlock(8, 8, 1), BasicBlock(8, 16, 2),
                              nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(16, 5))
        for m in model.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            if isinstance(m, BasicBlock):
                nn.init.constant_(m.bn2.weight, 0)
        log(repr(model), list(model.state_dict().keys()))
        opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4, nesterov=True)
        for _ in range(2):
            out = model(T.randn(4, 3, 24, 24))
            loss = F.cross_entropy(out, T.randint(0, 5, (4,)), label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            log(loss.item(), model[4].bn2.weight.grad[:3])
        log(model[1].running_mean[:3], model[1].running_var[:3], model[1].num_batches_tracked)
        model.eval()
        with T.no_grad():
            log(model(T.randn(2, 3, 24, 24)))
    _same(scenario)


def test_dcgan_step_with_two_optimizers_and_bce():
    def scenario(T, log):
        nn = T.nn
        nz, ngf, ndf = 6, 4, 4
        netG = nn.Sequential(nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 2),
                             nn.ReLU(True), nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
                             nn.BatchNorm2d(ngf), nn.ReLU(True),
                             nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh())
        netD = nn.Sequential(nn.Conv2d(3, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
                             nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2),
                             nn.LeakyReLU(0.2, inplace=True), nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
                             nn.Sigmoid())

        def weights_init(m):
            name = m.__class__.__name__
            if name.find("Conv") != -1:
                T.nn.init.normal_(m.weight, 0.0, 0.02)
            elif name.find("BatchNorm") != -1:
                T.nn.init.normal_(m.weight, 1.0, 0.02)
                T.nn.init.zeros_(m.bias)

        T.manual_seed(7)
        netG.apply(weights_init)
        netD.apply(weights_init)
        log(repr(netG), repr(netD))
        criterion = nn.BCELoss()
        optD = T.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
        optG = T.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
        for _ in range(2):
            real = T.rand(4, 3, 16, 16) * 2 - 1
            netD.zero_grad()
            label = T.full((4,), 1, dtype=real.dtype)
            out = netD(real).view(-1, 1).squeeze(1)
            err_real = criterion(out, label)
            err_real.backward()
            fake = netG(T.randn(4, nz, 1, 1))
            label.fill_(0)
            out = netD(fake.detach()).view(-1, 1).squeeze(1)
            err_fake = criterion(out, label)
            err_fake.backward()
            optD.step()
            netG.zero_grad()
            label.fill_(1)
            out = netD(fake).view(-1, 1).squeeze(1)
            errG = criterion(out, label)
            errG.backward()
            optG.step()
            log((err_real + err_fake).item(), errG.item(), out.mean().item(), tuple(fake.shape))
    _same(scenario)


def test_seq2seq_attention_decoder_step_by_step():
    def scenario(T, log):
        nn, F = T.nn, T.nn.functional
        hidden, vocab_in, vocab_out, max_len = 8, 9, 7, 6
        T.manual_seed(3)
        emb_in = nn.Embedding(vocab_in, hidden)
        gru_enc = nn.GRU(hidden, hidden)
        emb_out = nn.Embedding(vocab_out, hidden)
        attn = nn.Linear(hidden * 2, max_len)
        combine = nn.Linear(hidden * 2, hidden)
        gru_dec = nn.GRU(hidden, hidden)
        out_lin = nn.Linear(hidden, vocab_out)
        mods = nn.ModuleList([emb_in, gru_enc, emb_out, attn, combine, gru_dec, out_lin])
        opt = T.optim.SGD(mods.parameters(), lr=0.05)
        criterion = nn.NLLLoss()
        src = T.tensor([2, 5, 3, 1]).view(-1, 1)
        tgt = T.tensor([4, 2, 6, 1]).view(-1, 1)
        for step in range(2):
            opt.zero_grad()
            h = T.zeros(1, 1, hidden)
            enc_outs = T.zeros(max_len, hidden)
            for i in range(src.size(0)):
                o, h = gru_enc(emb_in(src[i]).view(1, 1, -1), h)
                enc_outs[i] = o[0, 0]
            dec_in = T.tensor([[0]])
            loss = 0
            for i in range(tgt.size(0)):
                e = emb_out(dec_in).view(1, 1, -1)
                w = F.softmax(attn(T.cat((e[0], h[0]), 1)), dim=1)
                applied = T.bmm(w.unsqueeze(0), enc_outs.unsqueeze(0))
                o = F.relu(combine(T.cat((e[0], applied[0]), 1)).unsqueeze(0))
                o, h = gru_dec(o, h)
                o = F.log_softmax(out_lin(o[0]), dim=1)
                loss += criterion(o, tgt[i])
                if step == 0:
                    dec_in = tgt[i]
                else:
                    _, topi = o.topk(1)
                    dec_in = topi.squeeze().detach()
            loss.backward()
            opt.step()
            log(loss.item() / tgt.size(0), type(loss.grad_fn).__name__, w, dec_in.shape)
    _same(scenario)


def test_tutorial_style_checkpoint_round_trip(tmp_path):
    # nanoGPT's resume path: a dict with the model, the optimizer, ints, a 0-d tensor and a config
    def scenario(T, log):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(4, 3), T.nn.LayerNorm(3))
        opt = T.optim.AdamW(model.parameters(), lr=1e-3)
        # weighted, not a plain sum: a LayerNorm output's plain sum is constant, so its gradient
        # would be rounding noise whose sign AdamW's normalized step would then copy
        (model(T.randn(2, 4)) * T.tensor([1.0, -2.0, 3.0])).sum().backward()
        opt.step()
        path = tmp_path / f"{T.__name__}.pt"
        T.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "iter_num": 3,
                "best_val_loss": T.zeros(3).mean(), "config": {"lr": 1e-3, "name": "x"}}, path)
        ck = T.load(path, map_location="cpu")
        log(sorted(ck), ck["iter_num"], ck["best_val_loss"], ck["config"])
        model2 = T.nn.Sequential(T.nn.Linear(4, 3), T.nn.LayerNorm(3))
        log(repr(model2.load_state_dict(ck["model"])))
        opt2 = T.optim.AdamW(model2.parameters(), lr=1e-3)
        opt2.load_state_dict(ck["optimizer"])
        log(opt2.state_dict()["state"][0]["step"], model2[0].weight)
    _same(scenario)


def test_uint16_memmap_batches_are_converted_like_nanogpt(tmp_path):
    # get_batch(): uint16 token files are read with np.memmap and cast to int64 before from_numpy
    path = tmp_path / "train.bin"
    np.arange(40, dtype=np.uint16).tofile(path)
    data = np.memmap(path, dtype=np.uint16, mode="r")

    def scenario(T, log):
        T.manual_seed(1)
        ix = T.randint(len(data) - 8, (3,))
        x = T.stack([T.from_numpy((data[i:i + 8]).astype(np.int64)) for i in ix])
        log(x, x.dtype)
    _same(scenario)
