"""The speed tricks of rlnb.fast against the public paths they replace, on a DQN-sized update.

For each: FusedAdam.step + zero_grad against torch's fused Adam (a [4, 256, 256, 2] MLP, batch 64 gradients);
clip_grad_norm against torch.nn.utils.clip_grad_norm_ (the same gradients, clipping and not); DrawAhead against
one Generator.integers call per batch of 64 slots. Each is timed over many calls, alternating with its public
path, one torch thread; the per-call microseconds are medians over repeats and the ratio is rlnb's over the public path's.
Ends with one JSON line.

    python bench/fast.py [--repeats 7] [--calls 2000]
"""
import argparse, json, statistics, time
from record import add_save, report
import numpy as np, torch
from torch import nn

def per_call(f, calls):
    t0 = time.perf_counter()
    for _ in range(calls): f()
    return (time.perf_counter() - t0) / calls * 1e6

def net_and_grads():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 2))
    net(torch.randn(64, 4)).pow(2).mean().backward()
    return net, [p.grad.clone() for p in net.parameters()]

def adam_step(opt_cls, calls, **kw):
    net, grads = net_and_grads(); ps = list(net.parameters()); opt = opt_cls(ps, lr=1e-4, **kw)
    def step():
        for p, g in zip(ps, grads): p.grad = g
        opt.step(); opt.zero_grad(set_to_none=True)
    step()   # the state exists: FusedAdam's direct path from here on
    return per_call(step, calls)

def clip(f, max_norm, calls):
    net, grads = net_and_grads(); ps = list(net.parameters())
    for p, g in zip(ps, grads): p.grad = g.clone()
    return per_call(lambda: f(ps, max_norm), calls)

def draws(ahead, calls):
    from rlnb.fast import DrawAhead
    rng = np.random.default_rng(0); d = DrawAhead(rng)
    return per_call((lambda: d.integers(100_000, 64)) if ahead else (lambda: rng.integers(0, 100_000, 64)), calls)

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--repeats', type=int, default=7)
    ap.add_argument('--calls', type=int, default=2000)
    add_save(ap)
    a = ap.parse_args()
    torch.set_num_threads(1)
    from rlnb.fast import FusedAdam, clip_grad_norm
    pairs = {
        'adam_step': (lambda: adam_step(FusedAdam, a.calls), lambda: adam_step(torch.optim.Adam, a.calls, fused=True)),
        'clip_noclip': (lambda: clip(clip_grad_norm, 1e6, a.calls), lambda: clip(torch.nn.utils.clip_grad_norm_, 1e6, a.calls)),
        'clip_clip': (lambda: clip(clip_grad_norm, 1e-6, a.calls), lambda: clip(torch.nn.utils.clip_grad_norm_, 1e-6, a.calls)),
        'draw_64': (lambda: draws(True, a.calls * 10), lambda: draws(False, a.calls * 10)),
    }
    out = {}
    for name, (mine, theirs) in pairs.items():
        m, t = [], []
        for _ in range(a.repeats): m.append(mine()); t.append(theirs())
        out[name] = dict(rlnb_us=round(statistics.median(m), 2), torch_us=round(statistics.median(t), 2), ratio=round(statistics.median(x / y for x, y in zip(m, t)), 3))
        print(f"{name:12s} rlnb {out[name]['rlnb_us']:8.2f} us  public path {out[name]['torch_us']:8.2f} us  ratio {out[name]['ratio']:.3f}", flush=True)
    report(out, a.save)

if __name__ == '__main__': main()
