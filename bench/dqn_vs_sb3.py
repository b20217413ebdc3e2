"""rlnb DQN against Stable-Baselines3 DQN with identical hyperparameters, against a bare loop, and against the bare-update floor.

Hyperparameters: rl-baselines3-zoo's CartPole-v1 DQN (50k env steps, lr 2.3e-3, batch 64, buffer 100k,
learning_starts 1000, gamma 0.99, target update every 10 env steps, rounds of 128 gradient steps every 256 env
steps, epsilon 1 -> 0.04 over the first 16% of steps, MLP [256, 256], Huber loss, gradient norm
clipped at 10), one env, one torch thread, no evaluation. The floor is the same number of bare torch
updates (forward, target forward, loss, backward, clip, Adam step, each as rlnb does it) on
random batches with nothing else. SB3 syncs its target every 10 env steps, all of which fall between rounds
(it does not update while it collects), so its target is the online net as of the start of each round and stays frozen through
the round's 128 updates; rlnb's HardUpdate(128), which copies after every 128th optimizer step, is the same rule.
The bare loop is the least code that does the same work: a plain gymnasium env, batch-1 acting
when not exploring, numpy arrays for storage and gathers, the same rounds of the same updates; it is the
real limit for rlnb (its lower bound), where the floor leaves out acting and storage altogether.
The four run alternately, their order rotating every repeat; each ratio is the median of the repeats' paired
ratios (the runs of one repeat are minutes apart, so a slow spell of the shared machine tends to hit all three), printed with its range
over the repeats, in wall time and in process CPU time (which a busy neighbour disturbs less); the times are medians too. rlnb runs
without its final evaluation, as the others evaluate nothing. rlnb's time is also split, in a separate profiled run, into
acting, env stepping, updates and the rest, read off the loop's own profile (spans).
Needs `pip install -e ".[bench]"`. Ends with one JSON line.

    python bench/dqn_vs_sb3.py [--steps 50000] [--repeats 5]
"""
import argparse, json, statistics, time
from record import add_save, report
import numpy as np, torch
from timing import alternate, clock, compare, ratios_line, since, timed_train

def rlnb_cfg(steps):
    from rlnb.agents.dqn.core import DQNConfig, EpsilonGreedy, LinearHead
    from rlnb.agents.dqn.targets import HardTarget
    return DQNConfig(total_steps=steps, n_envs=1, lr=2.3e-3, bs=64, buffer=100_000, gamma=0.99, n_step=1, learning_starts=1000, train_every=256,
                     updates=128, exploration=EpsilonGreedy(1., 0.04, 0.16), hidden=(256, 256), head=LinearHead('huber'), grad_clip=10.,
                     eval_every=10**9, threshold=None, target=HardTarget(128))   # SB3's rule: see the docstring

def run_rlnb(steps, seed, split=False):
    return timed_train(rlnb_cfg(steps).learner('CartPole-v1', seed, progress=False), split)

def run_sb3(steps, seed):
    import gymnasium as gym
    from stable_baselines3 import DQN
    model = DQN('MlpPolicy', gym.make('CartPole-v1'), learning_rate=2.3e-3, batch_size=64, buffer_size=100_000, learning_starts=1000, gamma=0.99,
                target_update_interval=10, train_freq=256, gradient_steps=128, exploration_fraction=0.16, exploration_final_eps=0.04,
                policy_kwargs=dict(net_arch=[256, 256]), seed=seed, device='cpu', verbose=0)
    t0 = clock(); model.learn(steps); return since(t0)

def run_floor(n_updates, seed):
    "Bare DQN updates on random batches: the cost of the learning alone"
    from rlnb.agents.dqn.core import QNetwork
    from rlnb.targets import target_copy, HardUpdate
    from rlnb.fast import adam, clip_grad_norm
    g = torch.Generator().manual_seed(seed)
    net = QNetwork(torch.zeros(1, 4), 2, (256, 256)); tgt, sync = target_copy(net), HardUpdate(128); params = list(net.parameters()); opt = adam(params, 2.3e-3)
    obs, nxt = torch.randn(64, 4, generator=g), torch.randn(64, 4, generator=g)
    act, rew, term = torch.randint(2, (64,), generator=g), torch.ones(64), torch.zeros(64, dtype=torch.bool)
    t0 = clock()
    for i in range(n_updates):
        with torch.no_grad(): y = rew + 0.99 * ~term * tgt(nxt).max(-1).values
        q = net(obs).gather(1, act[:, None])[:, 0]
        loss = torch.nn.functional.smooth_l1_loss(q, y)
        loss.backward(); clip_grad_norm(params, 10.); opt.step(); opt.zero_grad(set_to_none=True)
        sync(tgt, net, i + 1)   # rlnb's own rule: a hard copy after every round
    return since(t0)

def run_bare(steps, seed):
    "The least code that does rlnb's DQN work: a plain env, batch-1 greedy acting, numpy storage and gathers, rounds of the same updates"
    import gymnasium as gym
    from rlnb.agents.dqn.core import QNetwork
    from rlnb.targets import target_copy
    from rlnb.fast import adam, clip_grad_norm
    cfg, rng = rlnb_cfg(steps), np.random.default_rng(seed)
    torch.manual_seed(seed)
    net = QNetwork(torch.zeros(1, 4), 2, (256, 256)); tgt = target_copy(net); params = list(net.parameters()); opt = adam(params, 2.3e-3)
    O, N = np.zeros((steps, 4), np.float32), np.zeros((steps, 4), np.float32)
    A, R, T = np.zeros(steps, np.int64), np.zeros(steps, np.float32), np.zeros(steps, bool)
    env = gym.make('CartPole-v1'); obs, _ = env.reset(seed=seed)
    size = pending = n_upd = 0; decay = int(cfg.exploration.fraction * steps); total = cfg.n_batches()
    t0 = clock()
    while n_upd < total:
        eps = max(0.04, 1 - 0.96 * size / decay)
        if rng.random() < eps: a = int(rng.integers(2))
        else:
            with torch.no_grad(): a = int(net(torch.from_numpy(obs)[None]).argmax())
        nxt, r, term, trunc, _ = env.step(a)
        O[size], A[size], R[size], N[size], T[size] = obs, a, r, nxt, term
        size += 1
        obs = env.reset()[0] if term or trunc else nxt
        if size < 1000: continue
        pending += 1
        if pending < 256: continue
        pending = 0
        for _ in range(128):   # a round: 128 updates on batches of 64, then a hard copy into the target
            idx = rng.integers(0, size, 64)
            o, a_, r_, n_, t_ = (torch.from_numpy(x.take(idx, 0)) for x in (O, A, R, N, T))
            with torch.no_grad(): y = r_ + 0.99 * ~t_ * tgt(n_).max(-1).values
            loss = torch.nn.functional.smooth_l1_loss(net(o).gather(1, a_[:, None])[:, 0], y)
            loss.backward(); clip_grad_norm(params, 10.); opt.step(); opt.zero_grad(set_to_none=True)
        n_upd += 128
        with torch.no_grad():
            for p, q in zip(tgt.parameters(), net.parameters()): p.copy_(q)
    return since(t0)

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--steps', type=int, default=50_000)
    ap.add_argument('--repeats', type=int, default=5)
    add_save(ap)
    a = ap.parse_args()
    torch.set_num_threads(1)
    n_upd = rlnb_cfg(a.steps).n_batches()
    def rlnb(k):
        t, n, _ = run_rlnb(a.steps, k)
        if n != n_upd: raise RuntimeError(f'rlnb ran {n} updates, the floor times {n_upd}: the two must match')
        return t
    runs = dict(sb3=lambda k: run_sb3(a.steps, k), rlnb=rlnb, bare=lambda k: run_bare(a.steps, k), floor=lambda k: run_floor(n_upd, k))
    t = alternate(runs, a.repeats, lambda k: f' ({n_upd} updates)')
    _, _, split = run_rlnb(a.steps, 0, split=True)
    out = dict(compare(t), updates=n_upd, steps=a.steps, repeats=a.repeats, split_s=split)
    print(f"rlnb {out['rlnb_s']:.1f} s, SB3 {out['sb3_s']:.1f} s, bare loop {out['bare_s']:.1f} s, floor {out['floor_s']:.1f} s (wall, medians); paired ratios, median [range]: "
          + ratios_line(out, dict(ratio_vs_sb3=0.65, cpu_ratio_vs_bare=1.20)))
    print("time split of one profiled rlnb run (s; other: replay store and sample, collector bookkeeping, events):", split)
    report(out, a.save)

if __name__ == '__main__': main()
