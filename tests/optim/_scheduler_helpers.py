"""Runs a learning-rate scheduler in retrograd and torch side by side (shared by the scheduler and swa_utils tests)."""




# ---------------------------------------------------------------- schedulers
def sched_run(lib, make_sched, n=25, opt_name="SGD", okw=None, epochs=None):
    okw = okw or dict(lr=0.5, momentum=0.9)
    ps = [lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)]
    opt = getattr(lib.optim, opt_name)([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.2}], **okw)
    sched = make_sched(lib.optim.lr_scheduler, opt)
    lrs, moms = [list(sched.get_last_lr())], []
    for k in range(n):
        opt.step()
        sched.step(epochs[k]) if epochs else sched.step()
        lrs.append(list(sched.get_last_lr()))
        moms.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
    return lrs, moms, sched, opt
