"""Rainbow's cost beside DQN's on MinAtar, and the noisy layers' share of it.

1. End to end: `rainbow_minatar` and `dqn_minatar` each train `--steps` env steps on MinAtar Breakout from their preset settings,
   learning from step `--starts` on (both presets' `learning_starts` lowered to it, so that the timed steps are the steady state of a
   long run), without evaluation; paired alternating repeats, medians of env steps per second and of process CPU time, and the
   paired ratio of rainbow's rate to dqn's (`rate_ratio`: the issue asks at least 1 / 1.3 = 0.77). The presets differ in more than
   the network: Rainbow updates once every 4 env steps on batches of 32 (Revisiting Rainbow's schedule), DQN on every step.
2. Per update: each of `--update-presets` (default `rainbow_minatar`, `rainbow`) runs `--updates` updates on one real minibatch fed
   again and again, with its noisy layers (`exploration='noisy'`) and with plain linear layers and ε-greedy (the same network
   otherwise), alternating; the difference of the medians is the noisy layers' cost per update (drawing the noise, the second
   matrix product of each layer, and their gradients).

    python bench/rainbow.py [--steps 30000] [--starts 1000] [--repeats 3] [--updates 300] [--save bench/results/rainbow_speed.json]
"""
import argparse, statistics
from record import add_save, report
from timing import alternate, clock, since, no_eval

ENV = 'MinAtar/Breakout-v1'

def end_to_end(algo, steps, starts, seed=0):
    "(wall, CPU) seconds of `steps` env steps of preset `algo`, learning from `starts` on, without evaluation"
    from rlnb.presets import get_preset, with_changes
    p = get_preset(algo)
    cfg = with_changes(p.cfg, dict(total_steps=steps, learning_starts=starts, eval_every=10**12), algo)
    learn = no_eval(cfg.learner(ENV, seed, progress=False))
    t0 = clock(); learn.train(); return since(t0)

def per_update(algo, k, noisy, seed=0):
    "(wall, CPU) seconds of `k` updates of preset `algo` on one real minibatch, with noisy layers or with plain ones and ε-greedy"
    from rlnb.presets import get_preset, with_changes
    from learners import Given
    p = get_preset(algo)
    cfg = with_changes(p.cfg, dict(exploration='noisy' if noisy else 'epsilon'), algo)
    learn = cfg.learner(p.env, seed, progress=False)
    with learn:
        batch = next(iter(learn.data))
        learn.data = Given([batch] * (k + 3), learn.data)
        learn.fit(3)   # warm-up
        t0 = clock(); learn.fit(k); return since(t0)

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--steps', type=int, default=30_000, help='env steps of each end-to-end run')
    ap.add_argument('--starts', type=int, default=1_000, help='env steps before the first update (both presets)')
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--updates', type=int, default=300, help='updates timed per repeat in the per-update comparison')
    ap.add_argument('--update-presets', default='rainbow_minatar,rainbow')
    add_save(ap)
    a = ap.parse_args()
    import torch
    torch.set_num_threads(1)   # as bench/learn.py runs each seed; the envs step in this process
    t = alternate({algo: (lambda k, algo=algo: end_to_end(algo, a.steps, a.starts)) for algo in ('rainbow_minatar', 'dqn_minatar')}, a.repeats)
    med = lambda v, i: statistics.median(x[i] for x in v)
    e2e = dict(env=ENV, steps=a.steps, starts=a.starts, repeats=a.repeats,
               **{f'{n}_steps_per_s': round(a.steps / med(v, 0), 1) for n, v in t.items()}, **{f'{n}_cpu_s': round(med(v, 1), 2) for n, v in t.items()},
               rate_ratio=round(statistics.median(d[0] / r[0] for r, d in zip(t['rainbow_minatar'], t['dqn_minatar'])), 3))
    print(f"rainbow_minatar {e2e['rainbow_minatar_steps_per_s']} env steps/s, dqn_minatar {e2e['dqn_minatar_steps_per_s']}: rate ratio {e2e['rate_ratio']} (target >= {1 / 1.3:.3f})", flush=True)
    rows = []
    for algo in a.update_presets.split(','):
        u = alternate({'noisy': lambda k, algo=algo: per_update(algo, a.updates, True), 'plain': lambda k, algo=algo: per_update(algo, a.updates, False)}, a.repeats)
        ms = {n: 1000 * med(v, 0) / a.updates for n, v in u.items()}
        rows.append(dict(algo=algo, updates=a.updates, noisy_ms=round(ms['noisy'], 3), plain_ms=round(ms['plain'], 3), noisy_cost_ms=round(ms['noisy'] - ms['plain'], 3),
                         noisy_ratio=round(statistics.median(n[0] / p[0] for n, p in zip(u['noisy'], u['plain'])), 3)))
        print(f"{algo}: an update {rows[-1]['noisy_ms']} ms with noisy layers, {rows[-1]['plain_ms']} ms without (+{rows[-1]['noisy_cost_ms']} ms)", flush=True)
    report(dict(end_to_end=e2e, per_update=rows), a.save)

if __name__ == '__main__': main()
