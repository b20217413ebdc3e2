"""Framework overhead of rlnb's event loop, side by side with plain Python doing the same calls.

Prints per-event microseconds for an event with 0, 1 and 5 listening callbacks, and per-batch
microseconds of `Learner.fit` against a plain training loop making the same torch calls, then one
JSON line with the figures. Medians over interleaved repeats (machines are shared and noisy).

    python bench/loop_overhead.py [--repeats 7] [--events 200000] [--batches 5000]
"""
import argparse, json, statistics, time
from record import add_save, report
import torch
from torch import nn
from rlnb.loop import Loop
from rlnb.callback import Callback
from rlnb.learner import Learner

class Bench(Loop):
    events = ('before_x', 'after_x')

class Noop(Callback):
    def before_x(self): pass

def per_call_us(f, n):
    t0 = time.perf_counter(); f(n); return (time.perf_counter() - t0) / n * 1e6

def rlnb_event(k):
    loop = Bench([Noop() for _ in range(k)])
    def run(n):
        for _ in range(n): loop('before_x')
    return run

def plain_event(k):
    fs = [Noop().before_x for _ in range(k)]
    def run(n):
        for _ in range(n):
            for f in fs: f()
    return run

class NullOpt:
    "An optimizer that does nothing: isolates the loop's own cost"
    def __init__(self, params, lr): pass
    def step(self): pass
    def zero_grad(self, set_to_none=True): pass

class Passthrough(nn.Module):
    "Returns its input; holds one parameter, since a learner refuses a model with nothing to optimize"
    def __init__(self): super().__init__(); self.w = nn.Parameter(torch.zeros(()))
    def forward(self, x): return x

def empty_setup():
    "An 'empty' batch: a pass-through model, a loss that returns a fixed leaf scalar, a no-op optimizer"
    loss = torch.zeros((), requires_grad=True)
    return Passthrough(), [(torch.zeros(1), torch.zeros(1))] * 1000, (lambda pred, y: loss), NullOpt

def real_setup():
    "A tiny real batch: Linear(1, 1), MSE, SGD"
    torch.manual_seed(0)
    x, y = torch.randn(8, 1), torch.randn(8, 1)
    return nn.Linear(1, 1), [(x, y)] * 1000, nn.functional.mse_loss, torch.optim.SGD

def rlnb_batches(n, setup):
    model, data, loss_func, opt_func = setup()
    learn = Learner(model, data, loss_func, opt_func=opt_func, lr=1e-3)
    t0 = time.perf_counter(); learn.fit(n); return (time.perf_counter() - t0) / n * 1e6

def plain_batches(n, setup):
    model, data, loss_func, opt_func = setup()
    opt = opt_func(model.parameters(), lr=1e-3)
    model.train(); it = iter(data)
    t0 = time.perf_counter()
    for i in range(n):
        try: b = next(it)
        except StopIteration: it = iter(data); b = next(it)
        pred = model(b[0]); loss = loss_func(pred, b[1])
        if not torch.isfinite(loss).all(): raise FloatingPointError
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    return (time.perf_counter() - t0) / n * 1e6

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--repeats', type=int, default=7)
    ap.add_argument('--events', type=int, default=200_000)
    ap.add_argument('--batches', type=int, default=5_000)
    add_save(ap)
    a = ap.parse_args()
    torch.set_num_threads(1)
    res = {}
    for k in (0, 1, 5):
        r, p = [], []
        for _ in range(a.repeats):
            r.append(per_call_us(rlnb_event(k), a.events)); p.append(per_call_us(plain_event(k), a.events))
        res[k] = (statistics.median(r), statistics.median(p))
    batch = {}
    for name, setup in (('empty', empty_setup), ('tiny', real_setup)):
        rb, pb = [], []
        rlnb_batches(200, setup); plain_batches(200, setup)   # warm up
        for _ in range(a.repeats):
            rb.append(rlnb_batches(a.batches, setup)); pb.append(plain_batches(a.batches, setup))
        batch[name] = statistics.median(rb), statistics.median(pb)
    batch_r, batch_p = batch['empty']
    print(f"{'what':<32} {'rlnb us':>9} {'plain us':>9} {'ratio':>7}")
    for k, (r, p) in res.items():
        print(f"{f'event, {k} listeners':<32} {r:>9.3f} {p:>9.3f} {r / p if p > 0.01 else float('nan'):>7.2f}")
    for name, (r, p) in batch.items():
        print(f"{f'fit batch ({name}), no callbacks':<32} {r:>9.2f} {p:>9.2f} {r / p:>7.2f}")
    print(f"framework overhead per batch: {batch_r - batch_p:.2f} us (target < 10); unheard event: {res[0][0]:.3f} us (target < 0.5)")
    report({'event0_us': round(res[0][0], 4), 'event1_us': round(res[1][0], 4), 'event5_us': round(res[5][0], 4),
                      'plain1_us': round(res[1][1], 4), 'plain5_us': round(res[5][1], 4),
                      'ratio1': round(res[1][0] / res[1][1], 3), 'ratio5': round(res[5][0] / res[5][1], 3),
                      'batch_us': round(batch_r, 2), 'plain_batch_us': round(batch_p, 2),
                      'batch_overhead_us': round(batch_r - batch_p, 2), 'batch_ratio': round(batch_r / batch_p, 3),
                      'tiny_batch_us': round(batch['tiny'][0], 2), 'tiny_plain_batch_us': round(batch['tiny'][1], 2)}, a.save)

if __name__ == '__main__': main()
