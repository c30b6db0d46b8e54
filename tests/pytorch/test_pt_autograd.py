"""Regressions found by running PyTorch's test_autograd.py on retrograd (see docs/autograd.md).

Each scenario runs on retrograd and on torch (the oracle) and must log the same values,
gradients, node names, exception types and messages.
"""
import subprocess
import sys
import warnings
import weakref


import retrograd as rg
from parity import same, vec


# ------------------------------------------------------------------ engine: what runs, in which order
def test_unreachable_root_is_not_executed():
    def sc(lib, log):
        calls = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                calls.append(1)
                return g

        x = F.apply(vec(lib, 1.0) * 2)
        y = vec(lib, 3.0)
        log(lib.autograd.grad(x, (y,), allow_unused=True), len(calls))
        lib.autograd.backward(F.apply(vec(lib, 1.0) * 2), inputs=(y,))
        log(y.grad, len(calls))

    same(sc)


def test_prehooks_of_an_input_node_run_for_backward_inputs():
    def sc(lib, log):
        order = []
        a = lib.tensor(1.0, requires_grad=True)
        b = a.clone()
        b.grad_fn.register_prehook(lambda gs: order.append("node") or tuple(g * 2 for g in gs))
        b.register_hook(lambda g: order.append("tensor") or g * 3)
        acc = b.grad_fn.next_functions[0][0]
        acc.register_prehook(lambda gs: order.append("acc"))
        lib.autograd.grad(b.sum(), inputs=(a,), retain_graph=True)
        log(order)
        order.clear()
        b.sum().backward(inputs=(b,))
        log(order, b.grad, a.grad)

    same(sc)


def test_tensor_hook_sees_undefined_grad_of_other_outputs():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0, 3.0)
        parts = x.unbind()
        seen = []
        parts[0].register_hook(lambda g: seen.append(g))
        parts[1].backward()
        log(seen, x.grad)

    same(sc)


def test_post_hook_registered_by_unpack_hook_runs_without_grad_outputs():
    def sc(lib, log):
        a = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        got = []

        def unpack(t):
            node = lib._C._current_autograd_node()

            def hook(grad_inputs, grad_outputs):
                got.append(all(g is None for g in grad_outputs))
                return tuple(g / 2 for g in grad_inputs)

            node.register_hook(hook)
            return t

        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            y = a.exp()
        y.sum().backward()
        log(a.grad, got)

    same(sc)


def test_saved_tensor_hooks_entered_inside_backward_do_not_leak():
    def sc(lib, log):
        def unpack(t):
            ctx.__enter__()  # left open on purpose: the pass restores the hook stack
            return t

        ctx = lib.autograd.graph.saved_tensors_hooks(lambda t: t, unpack)
        x = vec(lib, 1.0)
        with ctx:
            x.sin().sum().backward()
        y = x.exp()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)  # no default hooks active
        log(x.grad)

    same(sc)


def test_grad_fn_call_checks_arguments_and_returns_like_torch():
    def sc(lib, log):
        x = vec(lib, 1.0, 2.0)
        y = x ** 2
        log(type(y.grad_fn(x.detach())).__name__)
        z = x * vec(lib, 3.0, 4.0)
        log(type(z.grad_fn(lib.ones(2, dtype=lib.float64))).__name__)
        try:
            y.grad_fn()
        except TypeError as e:
            log(str(e))

    same(sc)


def test_execution_order_and_engine_queries():
    def sc(lib, log):
        out = []
        a = lib.tensor(1.0, requires_grad=True)
        b = a * 2
        o1, o2, o3 = b.sin(), b.cos(), b.cos()

        def hook(_):
            nodes = lib._C._current_graph_task_execution_order()
            out.append([n.name().split(" ")[-1].split("::")[-1] for n in nodes])
            out.append(lib._C._will_engine_execute_node(b.grad_fn))

        o3.register_hook(hook)
        with lib.autograd.set_multithreading_enabled(False):
            lib.autograd.grad((o1, o3, o2), inputs=(a,))
        log(out, lib._C._current_graph_task_id())
        for bad in (lambda: lib._C._will_engine_execute_node(a), lambda: lib._C._will_engine_execute_node(b.grad_fn)):
            try:
                bad()
            except RuntimeError as e:
                log(str(e))

    same(sc)


def test_queue_callback_runs_at_the_end_of_the_pass():
    def sc(lib, log):
        calls = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                engine = lib.autograd.Variable._execution_engine
                engine.queue_callback(lambda: calls.append("first") or engine.queue_callback(
                    lambda: calls.append("second")))
                return g

        F.apply(vec(lib, 1.0)).sum().backward()
        log(calls)

    same(sc)


def test_deep_reentrant_backward():
    class Deep(rg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with rg.enable_grad():
                ctx.x = x.detach().requires_grad_() - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, g):
            if ctx.x > 0:
                with rg.enable_grad():
                    Deep.apply(ctx.x).sum().backward()
            return g

    v = rg.tensor(400.0, requires_grad=True)
    Deep.apply(v).sum().backward()  # each level nests frames: deep chains move to fresh threads
    assert v.grad.item() == 1.0


# ------------------------------------------------------------------ saving only what the rules need
def test_constant_operand_saves_no_reference():
    def sc(lib, log):
        x = lib.ones(3, requires_grad=True)

        def make():
            y = x * 2
            y.retain_grad()
            return y / 2, lib._C._WeakTensorRef(y)

        z, ref = make()
        log(ref.expired())
        z.sum().backward()
        log(x.grad)

    same(sc)


def test_python_scalar_is_not_seen_by_pack_hooks():
    def sc(lib, log):
        packed = []
        x = vec(lib, 1.0, 2.0)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(tuple(t.shape)) or t, lambda t: t):
            y = (x * 2) * x
        y.sum().backward()
        log(packed, x.grad)

    same(sc)


# ------------------------------------------------------------------ Function, once_differentiable, helpers
def _graph_desc(fn):
    if fn is None:
        return "None"
    name = type(fn).__name__
    return name + "(" + ", ".join(_graph_desc(n) for n, _ in fn.next_functions) + ")"


def test_once_differentiable_graph_and_error():
    def sc(lib, log):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, k, b):
                ctx.save_for_backward(a, b)
                return a * b * k

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                return g * b, None, g * a

        x, y = vec(lib, 1.0, 2.0), vec(lib, 3.0, 4.0)
        F.apply(x, 2, y).sum().backward(create_graph=True)
        log(_graph_desc(x.grad.grad_fn))
        try:
            x.grad.sum().backward()
        except RuntimeError as e:
            log(str(e))

    same(sc)


def test_delayed_error_and_undefined_grad():
    def sc(lib, log):
        class Id(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                log("grad", g)
                return g

        x = vec(lib, 1.0)
        safe = lib._C._functions.DelayedError("Boom!", 1)(x)
        log(safe.grad_fn.name().split("::")[-1])
        try:
            (safe * 2).sum().backward()
        except RuntimeError as e:
            log(str(e))
        log(lib.autograd.grad((safe * 2).sum(), safe))
        lib._C._functions.UndefinedGrad()(Id.apply(x)).sum().backward()

    same(sc)


def test_function_non_diff_outputs_materialization_and_vmap_defaults():
    def sc(lib, log):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                a, b = x.clone(), x.clone()
                ctx.mark_non_differentiable(b)
                ctx._materialize_non_diff_grads = False
                return a, b

            @staticmethod
            def backward(ctx, ga, gb):
                log("gb", gb)
                return ga

        F.apply(vec(lib, 1.0))[0].sum().backward()
        log(F.generate_vmap_rule, hasattr(F, "vmap"))

    same(sc)


def test_mark_dirty_checks():
    def sc(lib, log):
        class NotInput(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                c = a * 3
                c.add_(1)
                ctx.mark_dirty(c)
                return c

            @staticmethod
            def backward(ctx, g):
                return g

        class Inc(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                a.add_(1)
                ctx.mark_dirty(a)
                return a

            @staticmethod
            def backward(ctx, g):
                return g

        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            NotInput.apply(vec(lib, 1.0).clone())
        log([str(m.message).split(" (Triggered")[0] for m in w])
        a = vec(lib, 1.0, 2.0)
        for inp in (a.split([1, 1])[0], a.view_as(a)):
            try:
                Inc.apply(inp)
            except RuntimeError as e:
                log(str(e))

    same(sc)


def test_clear_saved_tensors_on_access():
    def sc(lib, log):
        class F(lib.autograd.Function):
            clear_saved_tensors_on_access = True

            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                ctx.saved_tensors
                return g

        try:
            F.apply(vec(lib, 1.0)).sum().backward()
        except RuntimeError as e:
            log(str(e))

    same(sc)


def test_saved_tensor_objects():
    def sc(lib, log):
        a = lib.tensor(2.0, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            b = a ** 2
        c = b.exp()
        d = c ** 2
        log(b.grad_fn._raw_saved_self.data is a, c.grad_fn._raw_saved_result.data is c,
            d.grad_fn._raw_saved_self.data is d.grad_fn._saved_self, c.grad_fn._raw_saved_result.unpack_hook)
        e = a * a
        raw = e.grad_fn._raw_saved_self
        raw.register_hooks(lambda t: t, lambda t: t)
        for args in ((lambda t: t,), (lambda t: t, lambda t: t)):
            try:
                raw.register_hooks(*args)
            except (TypeError, RuntimeError) as err:
                log(type(err).__name__, str(err).split(".")[0].split(":")[0])
        e.sum().backward()
        try:
            e.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
        except RuntimeError as err:
            log(str(err).split(".")[0])
        try:
            lib.autograd.SavedTensor()
        except RuntimeError as err:
            log(str(err))

    same(sc)


# ------------------------------------------------------------------ grad modes, tensor attributes
def test_grad_mode_generators_and_class_decoration():
    def sc(lib, log):
        @lib.no_grad()
        def gen():
            for i in range(3):
                try:
                    yield lib.is_grad_enabled()
                except KeyError:
                    log("caught", lib.is_grad_enabled())

        g = gen()
        log(next(g), lib.is_grad_enabled())
        log(g.throw(KeyError), lib.is_grad_enabled())
        g.close()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")

            @lib.no_grad()
            class Foo:
                def __init__(self):
                    log("init", lib.is_grad_enabled())

            Foo()
        log([m.category.__name__ for m in w])

    same(sc)


def test_materialized_grads_require_grad_only_with_create_graph():
    def sc(lib, log):
        x, y = vec(lib, 1.0), vec(lib, 2.0)
        for cg in (False, True):
            g = lib.autograd.grad((x * 2).sum(), (x, y), materialize_grads=True, create_graph=cg)
            log(g)

    same(sc)


def test_data_assignment_and_numpy_under_no_grad():
    def sc(lib, log):
        x = lib.randn(1, 2)
        v = x[:]
        x.add_(1)
        before = x._version
        x.data = lib.randn(2, 3)
        log(x._version == before, v._version == x._version)
        a = lib.tensor(1.0, requires_grad=True)
        try:
            a.data = lib.tensor(3)
        except RuntimeError as e:
            log(str(e))
        with lib.no_grad():
            log(a.numpy().tolist())
        log(lib.autograd.torch is lib)

    same(sc)


def test_out_argument_refused_while_recording():
    def sc(lib, log):
        a = vec(lib, 1.0, 2.0)
        for f in (lambda o: lib.mul(a, a, out=o), lambda o: lib.add(a, 1, out=o),
                  lambda o: lib.mul(a.detach(), 2, out=o.requires_grad_())):
            try:
                f(lib.zeros(2, dtype=lib.float64))
            except RuntimeError as e:
                log(str(e))
        with lib.no_grad():
            log(lib.mul(a, a, out=lib.zeros(2, dtype=lib.float64)))

    same(sc)


def test_inplace_on_views_of_leaves_and_views_of_no_grad_views():
    def sc(lib, log):
        a = lib.randn(2, 3)
        b = a[:]
        a.requires_grad = True
        for t in (a, b):
            try:
                t.add_(5)
            except RuntimeError as e:
                log(str(e))
        x = lib.zeros(2)
        with lib.no_grad():
            y = x.view(2)
        y.requires_grad_(True)
        try:
            y.view(2).div_(2)
        except RuntimeError as e:
            log(str(e))

    same(sc)


def test_threshold_inplace_on_view_backward():
    def sc(lib, log):
        x = lib.tensor([[-1.0, 2.0], [3.0, -4.0]], dtype=lib.float64, requires_grad=True)
        t = (x + 1).view_as(x)
        lib.nn.functional.threshold(t, 0.5, 0.0, True)
        (g,) = lib.autograd.grad(lib.sigmoid(t).sum(), x, create_graph=True)
        g.sum().backward()
        log(g, x.grad)

    same(sc)


def test_custom_function_view_outputs_without_grad_refuse_inplace():
    def sc(lib, log):
        class V(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.view_as(x)

            @staticmethod
            def backward(ctx, g):
                return g

        b = lib.rand(1, requires_grad=True)
        for view in (V.apply(lib.rand(1, 2)), lib.rand(1, 2).unbind()[0]):
            try:
                view.copy_(b)
            except RuntimeError as e:
                log(str(e))

    same(sc)


# ------------------------------------------------------------------ checkpoint
def test_checkpoint_recompute_rules():
    def sc(lib, log):
        ckpt = lib.utils.checkpoint
        state = {"n": 0}

        def more_on_recompute(t):
            state["n"] += 1
            return t.sin() if state["n"] % 2 else t.sin().cos()

        a = vec(lib, 0.5)
        ckpt.checkpoint(more_on_recompute, a, use_reentrant=False).backward()  # early stop: fine
        with ckpt.set_checkpoint_early_stop(False):
            try:
                ckpt.checkpoint(more_on_recompute, a, use_reentrant=False).backward()
            except RuntimeError as e:
                log(str(e).splitlines()[0])
        count = [0]

        def fn(x):
            count[0] += 1
            y = x.sin().cos()
            return y, y.sin().cos()

        x = vec(lib, 1.0, 2.0)
        y, z = ckpt.checkpoint(fn, x, use_reentrant=False)
        with ckpt.GraphExecGroup():  # one recomputation serves both passes
            (gy,) = lib.autograd.grad(z.sum(), (y,))
            (gx,) = lib.autograd.grad(y, (x,), grad_outputs=(gy,))
        log(count[0], gx)

        class Keep(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, c):
                ctx.save_for_backward(c)
                return x

            @staticmethod
            def backward(ctx, g):
                (c,) = ctx.saved_tensors
                log(c is const)
                return g, None

        const = lib.tensor(1.0)
        ckpt.checkpoint(Keep.apply, vec(lib, 1.0), const, use_reentrant=False).sum().backward()

    same(sc)


# ------------------------------------------------------------------ gradcheck and forward AD
def test_gradcheck_forward_ad_and_deprecated_helpers():
    def sc(lib, log):
        gc = lib.autograd.gradcheck
        fwAD = lib.autograd.forward_ad

        def bad(x, y):
            if fwAD._current_level >= 0:
                p, t = fwAD.unpack_dual(y)
                y = fwAD.make_dual(p, t * 1.1)
            return x + y, y

        x, y = (lib.rand(2, dtype=lib.float64, requires_grad=True) for _ in range(2))
        log(gc(lambda a, b: (a * b, b), (x, y), check_forward_ad=True))
        try:
            gc(bad, (x, y), check_forward_ad=True)
        except RuntimeError as e:
            log(str(e).splitlines()[0])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            jac = lib.autograd.gradcheck.get_numerical_jacobian(lambda inp: 2 * inp[0] + inp[1], (x, y), eps=1e-6)
        log([m.category.__name__ for m in w], jac[0], jac[1])
        try:
            gc(lambda t: t.to(lib.float32) if bool((t >= 1).all()) else t,
               (lib.ones(1, dtype=lib.float64, requires_grad=True),))
        except AssertionError as e:
            log(str(e).split(" on index")[0])

    same(sc, digits=4)


def test_forward_ad_custom_function_checks():
    def sc(lib, log):
        fwAD = lib.autograd.forward_ad

        class Narrow(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, mode):
                ctx.mode = mode
                return x.narrow(0, 0, 1)

            @staticmethod
            def backward(ctx, g):
                return None, None

            @staticmethod
            def jvp(ctx, t, _):
                r = t.narrow(0, 0, 1)
                return r if ctx.mode == 0 else r.clone() if ctx.mode == 1 else r.clone().view_as(r)

        class Dirty(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x.mul_(2)

            @staticmethod
            def backward(ctx, g):
                return g

            @staticmethod
            def jvp(ctx, t):
                return t

        log(fwAD._current_level)
        with fwAD.dual_level():
            d = fwAD.make_dual(lib.rand(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64))
            log(fwAD._current_level, fwAD.unpack_dual(Narrow.apply(d, 0)).tangent)
            for mode in (1, 2):
                try:
                    Narrow.apply(d, mode)
                except RuntimeError as e:
                    log(str(e))
            try:
                Dirty.apply(fwAD.make_dual(lib.rand(2), lib.ones(2)))
            except RuntimeError as e:
                log(str(e))
            try:
                lib.igamma(d, d)
            except NotImplementedError as e:
                log(str(e).splitlines()[0])

    same(sc)


# ------------------------------------------------------------------ small APIs
def test_private_toggles_and_version_counter_helpers():
    def sc(lib, log):
        ag = lib.autograd
        with ag._force_original_view_tracking(True):
            log(ag.is_view_replay_enabled())
        log(ag.is_view_replay_enabled(), lib._C.is_grad_enabled())
        x = lib.ones(2, requires_grad=True).clone()
        x.add_(1)
        with ag._unsafe_preserve_version_counter(x):
            x.mul_(2)
        log(x._version)
        lib._C._autograd._unsafe_set_version_counter((x,), (0,))
        log(x._version)
        try:
            lib._C._autograd._unsafe_set_version_counter((x,), (-1,))
        except RuntimeError as e:
            log(str(e))
        log(ag._calculate_shape(x, lib.ones(3, 2), True), ag._calculate_shape(x, lib.ones(3, 2), False))

    same(sc)


def test_profiler_event_classes():
    def sc(lib, log):
        util = lib.autograd.profiler_util
        events = util.EventList()
        for i, (thread, start, end) in enumerate([(1, 0, 1), (1, 1, 2), (0, 0, 2), (0, 1, 2), (0, 1, 3)]):
            events.append(util.FunctionEvent(id=i + 1, node_id=0, name="", thread=thread, start_us=start, end_us=end))
        events._populate_cpu_children()
        log([[c.id for c in e.cpu_children] for e in events])
        avg = util.FunctionEventAvg()
        avg.add(util.FunctionEvent(id=0, node_id=0, name="foo", thread=0, start_us=10, end_us=15))
        avg.add(util.FunctionEvent(id=1, node_id=0, name="foo", thread=0, start_us=20, end_us=30))
        avg.add(avg)
        log(avg.key, avg.count, avg.cpu_time_total, avg.self_cpu_time_total, avg.cpu_time)

    same(sc)


def test_torch_alias_keeps_functions_shadowing_submodules():
    code = ("import retrograd; retrograd.register_as_torch()\n"
            "import torch\n"
            "from torch.autograd.gradcheck import get_numerical_jacobian\n"
            "print(callable(torch.autograd.gradcheck), type(torch.autograd.gradcheck).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "function"]


def test_weak_tensor_ref_and_cached_tensor_registry():
    x = rg.rand(2)
    ref = rg._C._WeakTensorRef(x)
    rg._C._add_cached_tensor(x)
    rg._C._add_cached_tensor(x)
    rg._C._remove_cached_tensor(x)
    assert not rg._C._is_cached_tensor(x) and not ref.expired()
    w = weakref.ref(x)
    del x
    assert w() is None and ref.expired()


def test_saved_tensor_hook_switches_and_pack_hook_mutation():
    def sc(lib, log):
        graph = lib.autograd.graph
        with graph.disable_saved_tensors_hooks("no hooks here"):
            log(lib._C._autograd._saved_tensors_hooks_is_enabled())
        log(lib._C._autograd._saved_tensors_hooks_is_enabled())
        y = lib.exp(vec(lib, 1.0))

        def inc(t):
            t += 1
            return t

        try:
            y.grad_fn._raw_saved_result.register_hooks(inc, lambda t: t)
        except RuntimeError as e:
            log(str(e).split(".")[0])

    same(sc)
