"""rlnb's TransitionCollector against a plain gymnasium loop, side by side.

Both step the same CartPole-v1 vector env (gymnasium's numpy `vector_entry_point` version) with
uniformly random actions drawn from a seeded torch generator, and convert every step to torch
tensors. rlnb also drops the auto-reset rows, keeps episode statistics and fires its loop events;
it is pulled with `next()` on the node, as `ExperienceReplay` pulls it (a `Loader` sits after the
replay, not here). Throughput is env steps per second (vector steps x N) for
both, at N = 8 and N = 64. The two alternate, the order flipping every repeat; the ratio is the median of the
repeats' ratios (each pair ran side by side, so a slow spell of the shared machine hits both), the rates are medians too.
Ends with one JSON line.

    python bench/collect.py [--steps 20000] [--repeats 9]
"""
import argparse, json, statistics, time
import torch
from rlnb.agent import RandomAgent
from rlnb.data.gym import make_envs, TransitionCollector

def rlnb_rate(n_envs, n_steps):
    envs = make_envs('CartPole-v1', n_envs)
    col = TransitionCollector(envs, RandomAgent(envs.single_action_space, seed=0), seed=0)
    it = col; next(it)   # pulled as the replay node pulls it: next() on the node itself
    t0 = time.perf_counter()
    for _ in range(n_steps): next(it)
    return n_steps * n_envs / (time.perf_counter() - t0)

def plain_rate(n_envs, n_steps):
    envs = make_envs('CartPole-v1', n_envs)
    gen = torch.Generator().manual_seed(0)
    obs, _ = envs.reset(seed=0); obs = torch.as_tensor(obs)
    t0 = time.perf_counter()
    for _ in range(n_steps):
        act = torch.randint(2, (n_envs,), generator=gen)
        nxt, rew, term, trunc, _ = envs.step(act.numpy())
        nxt, rew, term, trunc = torch.as_tensor(nxt), torch.as_tensor(rew, dtype=torch.float32), torch.as_tensor(term), torch.as_tensor(trunc)
        batch = (obs, act, rew, nxt, term, trunc)
        obs = nxt
    return n_steps * n_envs / (time.perf_counter() - t0)

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--steps', type=int, default=20_000, help='vector steps per timed run')
    ap.add_argument('--repeats', type=int, default=9)
    a = ap.parse_args()
    torch.set_num_threads(1)
    out = {}
    print(f"{'N':>4} {'rlnb steps/s':>14} {'plain steps/s':>14} {'ratio':>7}")
    for n in (8, 64):
        steps = max(a.steps * 8 // n, 1000)
        r, p = [], []
        for k in range(a.repeats):
            if k % 2: p.append(plain_rate(n, steps)); r.append(rlnb_rate(n, steps))
            else: r.append(rlnb_rate(n, steps)); p.append(plain_rate(n, steps))
        ratio = statistics.median(x / y for x, y in zip(r, p))
        r, p = statistics.median(r), statistics.median(p)
        out[f'rlnb_n{n}'], out[f'plain_n{n}'], out[f'ratio_n{n}'] = round(r), round(p), round(ratio, 3)
        print(f"{n:>4} {r:>14,.0f} {p:>14,.0f} {ratio:>7.2f}")
    print('target: ratio >= 0.8 at both sizes')
    print(json.dumps(out))

if __name__ == '__main__': main()
