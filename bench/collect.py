"""rlnb's TransitionCollector against a plain gymnasium loop, side by side.

Both step the same CartPole-v1 vector env (gymnasium's numpy `vector_entry_point` version, one
instance each, made and seeded alike) with uniformly random actions drawn from a seeded torch
generator, and convert every step to torch tensors. rlnb also drops the auto-reset rows, keeps
episode statistics and fires its loop events; it is pulled with `next()` on the node, as
`OffPolicyBatches` pulls it (a `Loader` sits after that node, not here). Throughput is env steps
per second (vector steps x N), at N = 8 and N = 64.

The shared machine's speed drifts by tens of percent within seconds, so the two are not timed in
long separate runs: both loops stay alive and take turns in short chunks (about 10 ms each, the
order flipping every chunk). Each pair of neighbouring chunks ran under the same conditions; the
ratio is the median over the pairs of (rlnb rate / plain rate), and the rates are total steps over
total time. Ends with one JSON line.

    python bench/collect.py [--chunks 300] [--seconds-per-chunk 0.01]
"""
import argparse, json, statistics, time
from record import add_save, report
import torch
from rlnb.agent import RandomAgent
from rlnb.data.gym import make_envs
from rlnb.data.collector import TransitionCollector

def rlnb_loop(n_envs):
    "A function that runs `k` vector steps of rlnb's collector"
    envs = make_envs('CartPole-v1', n_envs)
    col = TransitionCollector(envs, RandomAgent(envs.single_action_space, seed=0), seed=0)
    next(col)   # pulled as the replay node pulls it: next() on the node itself
    def run(k):
        for _ in range(k): next(col)
    return run

def plain_loop(n_envs):
    "A function that runs `k` vector steps of a plain loop: random actions, env step, every output as a tensor"
    envs = make_envs('CartPole-v1', n_envs)
    gen = torch.Generator().manual_seed(0)
    obs, _ = envs.reset(seed=0); obs = torch.as_tensor(obs)
    def run(k):
        nonlocal obs
        for _ in range(k):
            act = torch.randint(2, (n_envs,), generator=gen)
            nxt, rew, term, trunc, _ = envs.step(act.numpy())
            nxt, rew, term, trunc = torch.as_tensor(nxt), torch.as_tensor(rew, dtype=torch.float32), torch.as_tensor(term), torch.as_tensor(trunc)
            batch = (obs, act, rew, nxt, term, trunc)
            obs = nxt
    return run

def timed(run, k) -> float:
    t0 = time.perf_counter(); run(k); return time.perf_counter() - t0

def compare(n_envs, n_chunks, chunk_s):
    "Alternate the two loops in chunks; return rlnb's and plain's env steps/s and the median paired ratio"
    rlnb, plain = rlnb_loop(n_envs), plain_loop(n_envs)
    for run in (rlnb, plain): run(200)   # warm-up
    k = max(1, round(chunk_s / timed(plain, 100) * 100))   # vector steps per chunk
    tr, tp = [], []
    for i in range(n_chunks):
        if i % 2: tp.append(timed(plain, k)); tr.append(timed(rlnb, k))
        else: tr.append(timed(rlnb, k)); tp.append(timed(plain, k))
    steps = n_chunks * k * n_envs
    return steps / sum(tr), steps / sum(tp), statistics.median(p / r for r, p in zip(tr, tp))

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--chunks', type=int, default=300, help='chunks per contender and size')
    ap.add_argument('--seconds-per-chunk', type=float, default=0.01)
    add_save(ap)
    a = ap.parse_args()
    torch.set_num_threads(1)
    out = {}
    print(f"{'N':>4} {'rlnb steps/s':>14} {'plain steps/s':>14} {'ratio':>7}")
    for n in (8, 64):
        r, p, ratio = compare(n, a.chunks, a.seconds_per_chunk)
        out[f'rlnb_n{n}'], out[f'plain_n{n}'], out[f'ratio_n{n}'] = round(r), round(p), round(ratio, 3)
        print(f"{n:>4} {r:>14,.0f} {p:>14,.0f} {ratio:>7.3f}")
    print('target: ratio >= 0.8 at both sizes')
    report(out, a.save)

if __name__ == '__main__': main()
