"""Replay buffer throughput: rlnb's ExperienceReplay against Stable-Baselines3's ReplayBuffer and a bare numpy ring.

One operation = add one CartPole-shaped transition (obs [4] float32, discrete action, reward,
next_obs, terminated, truncated) + sample a batch of 256 as torch tensors, on a buffer of capacity
100,000 that is already full. SB3 is installed through rlnb's optional extra `bench`
(`pip install -e ".[bench]"`). The three run alternately, the order rotating every repeat; each ratio is the median of
the repeats' ratios (runs of one repeat are seconds apart, so a slow spell of the shared machine hits them alike), the
times are medians too. rlnb's prioritized
sampler is timed too (add + sample + update_priorities), and so is the replay with a `ReplayMonitor` (use counts, ages,
throughput) and with one that also evicts after 8 uses: their cost is the paired ratio to the plain replay. Ends with one JSON line.

    python bench/replay.py [--ops 3000] [--repeats 9]
"""
import argparse, json, statistics, time
from record import add_save, report
import numpy as np, torch
from rlnb.core import Step
from rlnb.memory.experience_replay import ExperienceReplay
from rlnb.memory.samplers import PrioritizedSampler
from rlnb.memory.monitor import ReplayMonitor

CAP, BS = 100_000, 256

def data(n, seed=0):
    g = np.random.default_rng(seed)
    return (g.standard_normal((n, 4)).astype(np.float32), g.integers(0, 2, n), g.standard_normal(n).astype(np.float32),
            g.standard_normal((n, 4)).astype(np.float32), g.random(n) < 0.05, g.random(n) < 0.01)

def steps_of(d):
    o, a, r, no, te, tr = (torch.from_numpy(x) for x in d)
    return [Step(o[i:i + 1], a[i:i + 1], r[i:i + 1], no[i:i + 1], te[i:i + 1], tr[i:i + 1]) for i in range(len(o))]

def time_rlnb(ops, prioritized=False, monitor=None):
    rb = ExperienceReplay(capacity=CAP, bs=BS, sampler=PrioritizedSampler(seed=0) if prioritized else None, seed=0, monitor=monitor)
    fill = data(CAP, 1); rb.add(Step(*(torch.from_numpy(x) for x in fill)))
    steps = steps_of(data(ops))
    t0 = time.perf_counter()
    for s in steps:
        rb.add(s); b = rb.sample()
        if prioritized: rb.sampler.update_priorities(b.index, b.step.reward)
    return (time.perf_counter() - t0) / ops * 1e6

def time_sb3(ops):
    import gymnasium as gym
    from stable_baselines3.common.buffers import ReplayBuffer
    rb = ReplayBuffer(CAP, gym.spaces.Box(-np.inf, np.inf, (4,), np.float32), gym.spaces.Discrete(2), device='cpu',
                      n_envs=1, handle_timeout_termination=True)
    o, a, r, no, te, tr = data(CAP, 1)
    rb.observations[:, 0], rb.next_observations[:, 0], rb.actions[:, 0, 0] = o, no, a
    rb.rewards[:, 0], rb.dones[:, 0], rb.timeouts[:, 0], rb.full = r, te | tr, tr, True
    o, a, r, no, te, tr = data(ops)
    infos = [[{'TimeLimit.truncated': bool(x)}] for x in tr]
    np.random.seed(0)
    t0 = time.perf_counter()
    for i in range(ops):
        rb.add(o[i:i + 1], no[i:i + 1], a[i:i + 1], r[i:i + 1], (te[i] | tr[i])[None], infos[i]); rb.sample(BS)
    return (time.perf_counter() - t0) / ops * 1e6

def time_numpy(ops):
    "A bare numpy ring: add by slice, sample with replacement by fancy indexing, convert with torch.from_numpy"
    bufs = [np.zeros((CAP, 4), np.float32), np.zeros(CAP, np.int64), np.zeros(CAP, np.float32), np.zeros((CAP, 4), np.float32), np.zeros(CAP, bool), np.zeros(CAP, bool)]
    for b, x in zip(bufs, data(CAP, 1)): b[:] = x
    d, g, pos = data(ops), np.random.default_rng(0), 0
    t0 = time.perf_counter()
    for i in range(ops):
        for b, x in zip(bufs, d): b[pos] = x[i]
        pos = (pos + 1) % CAP
        idx = g.integers(0, CAP, BS)
        batch = [torch.from_numpy(b[idx]) for b in bufs]
    return (time.perf_counter() - t0) / ops * 1e6

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--ops', type=int, default=3000)
    ap.add_argument('--repeats', type=int, default=9)
    add_save(ap)
    a = ap.parse_args()
    torch.set_num_threads(1)
    timers = {'rlnb': lambda: time_rlnb(a.ops), 'sb3': lambda: time_sb3(a.ops), 'numpy': lambda: time_numpy(a.ops),
              'rlnb_monitor': lambda: time_rlnb(a.ops, monitor=ReplayMonitor()), 'rlnb_cap': lambda: time_rlnb(a.ops, monitor=ReplayMonitor(max_use=8))}
    runs = {**{k: [] for k in timers}, 'rlnb_per': []}
    for k in range(a.repeats):
        n = len(timers)
        for name in list(timers)[k % n:] + list(timers)[:k % n]: runs[name].append(timers[name]())
        runs['rlnb_per'].append(time_rlnb(a.ops, prioritized=True))
    us = {k: statistics.median(v) for k, v in runs.items()}
    paired = lambda x, y: statistics.median(u / v for u, v in zip(runs[x], runs[y]))
    for k, v in us.items(): print(f'{k:<10} {v:8.1f} us per add + sample({BS})')
    out = dict(us_rlnb=round(us['rlnb'], 2), us_sb3=round(us['sb3'], 2), us_numpy=round(us['numpy'], 2), us_rlnb_prioritized=round(us['rlnb_per'], 2),
               ratio_vs_sb3=round(paired('sb3', 'rlnb'), 3), ratio_vs_numpy=round(paired('rlnb', 'numpy'), 3),
               us_rlnb_monitor=round(us['rlnb_monitor'], 2), us_rlnb_cap=round(us['rlnb_cap'], 2),
               monitor_over_plain=round(paired('rlnb_monitor', 'rlnb'), 3), cap_over_plain=round(paired('rlnb_cap', 'rlnb'), 3))
    print(f"rlnb is {out['ratio_vs_sb3']:.2f}x SB3's throughput (target >= 1.5) and takes {out['ratio_vs_numpy']:.2f}x the bare numpy ring's time (target <= 1.5)")
    print(f"a ReplayMonitor costs {out['monitor_over_plain']:.2f}x the plain replay's time, with eviction after 8 uses {out['cap_over_plain']:.2f}x")
    report(out, a.save)

if __name__ == '__main__': main()
