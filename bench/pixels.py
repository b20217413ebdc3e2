"""Pixels side by side: rlnb's frame replay against SB3's ReplayBuffer(optimize_memory_usage=True), and 50k env steps of
dqn_atari and ppo_atari on Breakout against SB3 with the same settings and against a bare loop.

Memory: each replay is filled, in a fresh process of its own, with `--capacity` transitions of 4x84x84 uint8 frames (episodes
of 1,000 steps); bytes per transition = the growth of the process's resident memory over the fill, divided by the capacity
(measured, not computed). Sampling: microseconds per batch of 32 from the filled buffers (median of 5 blocks of 2,000 batches).
Training: each side runs in a fresh process (order rotating every repeat), timed over its training call: wall time and CPU time
(the process's own plus its env workers', which have exited by then). The settings are the presets' (rl-baselines3-zoo's Atari
DQN and PPO) but for DQN's learning_starts, lowered from 100,000 to `--dqn-starts` (default 40,000) so that updates happen
within the 50k steps; no evaluation (rlnb's final evaluation is removed). SB3 runs on make_atari_env (its AtariWrapper, same steps) + VecFrameStack(4), with
DummyVecEnv as its default; rlnb's PPO steps its 8 envs in worker processes (its default for Atari). The bare loop is the least code
doing the same work: rlnb's wrapped envs stepped directly (no vector-env or collector layer), each frame stored once in a numpy
array, the same network, updates and schedule. Ratios are medians of paired repeats. Ends with one JSON line.

    python bench/pixels.py [--steps 50000] [--repeats 1] [--capacity 200000] [--skip-train]
"""
import argparse, json, os, resource, statistics, subprocess, sys, time
from record import add_save, report
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = 'BreakoutNoFrameskip-v4'

def rss() -> int:
    "Resident bytes of this process (Linux)"
    with open('/proc/self/statm') as f: return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')

def frames_stream(n, seed=0):
    "n transitions of random 84x84 frames as (obs stack, next stack, done), episodes of 1,000 steps, zero-filled stacks"
    rng = np.random.default_rng(seed)
    pool = rng.integers(0, 256, (64, 84, 84), dtype=np.uint8)   # frames drawn from a pool: filling must not be the cost measured
    stack = np.zeros((4, 84, 84), np.uint8)
    for t in range(n):
        if t % 1000 == 0: stack = np.zeros((4, 84, 84), np.uint8); stack[-1] = pool[t % 64]
        nxt = np.concatenate([stack[1:], pool[(t * 7 + 1) % 64][None]])
        yield stack, nxt, t % 1000 == 999
        stack = nxt

def part_memory(side, capacity):
    import torch, gymnasium as gym
    from rlnb.core import Step
    from rlnb.memory.frames import FrameReplay
    from stable_baselines3.common.buffers import ReplayBuffer
    stream = list(frames_stream(2))   # everything imported, the generator's first arrays made: what grows from here is the buffer
    before = rss()
    if side == 'rlnb':
        buf = FrameReplay(capacity)
        for o, n, d in frames_stream(capacity):
            buf.add(Step(torch.from_numpy(o)[None], torch.tensor([1]), torch.tensor([1.]), torch.from_numpy(n)[None], torch.tensor([d]), torch.tensor([False]), torch.tensor([0])))
        sample = lambda: buf.sample(32)
    else:
        buf = ReplayBuffer(capacity, gym.spaces.Box(0, 255, (4, 84, 84), np.uint8), gym.spaces.Discrete(4), device='cpu', optimize_memory_usage=True, handle_timeout_termination=False)
        for o, n, d in frames_stream(capacity): buf.add(o[None], n[None], np.array([1]), np.array([1.]), np.array([d]), [{}])
        sample = lambda: buf.sample(32)
    grown = rss() - before
    for _ in range(100): sample()
    blocks = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(2000): sample()
        blocks.append((time.perf_counter() - t0) / 2000 * 1e6)
    return dict(bytes_per_transition=grown / capacity, sample_us=statistics.median(blocks))

def cpu_now() -> float:
    "CPU seconds of this process and of its children that have exited"
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime

def presets(steps, starts):
    from dataclasses import replace
    from rlnb.presets import PRESETS
    dqn = replace(PRESETS['dqn_atari'].cfg, total_steps=steps, learning_starts=starts, eval_every=10**9)
    ppo = replace(PRESETS['ppo_atari'].cfg, total_steps=steps, eval_every=10**9)
    return dqn, ppo

def train_rlnb(algo, steps, starts, seed):
    import torch; torch.set_num_threads(1)
    dqn, ppo = presets(steps, starts)
    from rlnb.rl import FinalEvalCallback
    learn = (dqn if algo == 'dqn' else ppo).learner(ENV, seed, progress=False)
    learn.remove_cbs([cb for cb in learn.cbs if isinstance(cb, FinalEvalCallback)])   # no evaluation, as for SB3 and the bare loop
    c0, t0 = cpu_now(), time.perf_counter()
    learn.train(); learn.collector.close()
    return time.perf_counter() - t0, cpu_now() - c0, learn.collector.env_step

def train_sb3(algo, steps, starts, seed):
    import torch; torch.set_num_threads(1)
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.env_util import make_atari_env
    from stable_baselines3.common.vec_env import VecFrameStack
    from rlnb.data.gym import register_envs
    register_envs('atari')
    dqn, ppo = presets(steps, starts)
    if algo == 'dqn':
        env = VecFrameStack(make_atari_env(ENV, n_envs=1, seed=seed), 4)
        model = DQN('CnnPolicy', env, learning_rate=dqn.lr, buffer_size=dqn.buffer, learning_starts=starts, batch_size=dqn.bs, gamma=dqn.gamma,
                    train_freq=dqn.train_every, gradient_steps=1, target_update_interval=dqn.target.every_opt_steps * dqn.train_every, exploration_fraction=dqn.exploration.fraction,
                    exploration_final_eps=dqn.exploration.end, max_grad_norm=dqn.grad_clip, optimize_memory_usage=False, seed=seed, device='cpu', verbose=0)
    else:
        env = VecFrameStack(make_atari_env(ENV, n_envs=ppo.n_envs, seed=seed), 4)
        lin = lambda x: (lambda f: f * x)
        model = PPO('CnnPolicy', env, learning_rate=lin(ppo.lr), n_steps=ppo.n_steps, batch_size=ppo.bs, n_epochs=ppo.n_epochs, gamma=ppo.gamma, gae_lambda=ppo.gae_lambda,
                    clip_range=lin(ppo.clip), ent_coef=ppo.ent_coef, vf_coef=ppo.vf_coef, max_grad_norm=ppo.grad_clip, seed=seed, device='cpu', verbose=0)
    c0, t0 = cpu_now(), time.perf_counter()
    model.learn(steps); env.close()
    return time.perf_counter() - t0, cpu_now() - c0, model.num_timesteps

def stacks(f, ep_start):
    "Frame rows `[B, 4]` of the stacks ending at frames `f`: the zero row (-1) before an episode's start"
    idx = f[:, None] - np.arange(3, -1, -1)
    return np.where(idx >= ep_start[f][:, None], idx, -1)

def bare_dqn(cfg, steps, starts, seed):
    "The least code of DQN's work: one wrapped env stepped directly, each frame stored once, the same network, schedule and updates"
    import torch
    import torch.nn.functional as F
    from rlnb.data.pixels import atari_env
    from rlnb.nets import QNetwork
    from rlnb.targets import target_copy
    from rlnb.fast import adam, clip_grad_norm
    rng = np.random.default_rng(seed); torch.manual_seed(seed)
    env = atari_env(ENV); obs, _ = env.reset(seed=seed); n_act = int(env.action_space.n)
    net = QNetwork(torch.zeros(1, 4, 84, 84, dtype=torch.uint8), n_act, net='nature_cnn'); tgt = target_copy(net)
    params = list(net.parameters()); opt = adam(params, cfg.lr)
    frames, ep_start = np.zeros((2 * steps + 2, 84, 84), np.uint8), np.zeros(2 * steps + 2, np.int64)   # the last row stays zeros
    O, N, A = (np.zeros(steps, np.int64) for _ in range(3))   # per transition: its obs's newest frame, next_obs's, the action
    R, T = np.zeros(steps, np.float32), np.zeros(steps, bool)
    n_f, decay, n_upd = 0, int(cfg.exploration.fraction * steps), 0
    def put(frame, start):
        nonlocal n_f
        frames[n_f] = frame; ep_start[n_f] = n_f if start else ep_start[n_f - 1]; n_f += 1
    put(obs[-1], True)
    for t in range(steps):
        if rng.random() < max(cfg.exploration.end, 1 - (1 - cfg.exploration.end) * t / decay): a = int(rng.integers(n_act))
        else:
            with torch.no_grad(): a = int(net(torch.from_numpy(obs)[None]).argmax())
        nxt, r, term, trunc, _ = env.step(a)
        O[t] = n_f - 1; put(nxt[-1], False); N[t], A[t], R[t], T[t] = n_f - 1, a, r, term
        if term or trunc: obs, _ = env.reset(); put(obs[-1], True)
        else: obs = nxt
        if t + 1 < starts or (t + 1) % cfg.train_every: continue
        i = rng.integers(0, t + 1, cfg.bs)
        o, n = (torch.from_numpy(frames.take(stacks(x[i], ep_start), 0)) for x in (O, N))
        a_, r_, d_ = torch.from_numpy(A[i]), torch.from_numpy(R[i]), torch.from_numpy(T[i])
        with torch.no_grad(): y = r_ + cfg.gamma * ~d_ * tgt(n).max(-1).values
        loss = F.smooth_l1_loss(net(o).gather(1, a_[:, None])[:, 0], y)
        loss.backward(); clip_grad_norm(params, cfg.grad_clip); opt.step(); opt.zero_grad(set_to_none=True)
        n_upd += 1
        if n_upd % cfg.target.every_opt_steps == 0: tgt.load_state_dict(net.state_dict())
    return steps

def bare_ppo(cfg, steps, seed):
    "The least code of PPO's work: 8 wrapped envs stepped in turn (no vector-env layer), the same network, GAE, clipped loss, schedules"
    import math, torch, gymnasium as gym
    import torch.nn.functional as F
    from rlnb.data.pixels import atari_env
    from rlnb.nets import ActorCritic
    from rlnb.fast import adam, clip_grad_norm
    torch.manual_seed(seed); rng = np.random.default_rng(seed)
    N, T = cfg.n_envs, cfg.n_steps
    envs = [atari_env(ENV) for _ in range(N)]
    obs = np.stack([e.reset(seed=seed + i)[0] for i, e in enumerate(envs)])
    net = ActorCritic(torch.zeros(1, 4, 84, 84, dtype=torch.uint8), envs[0].action_space, shared=True, net='nature_cnn')
    params = list(net.parameters()); opt = adam(params, cfg.lr, eps=1e-5)
    rollouts = math.ceil(steps / (N * T))
    O = np.zeros((T, N, 4, 84, 84), np.uint8)
    for it in range(rollouts):
        frac = 1 - it / rollouts
        for g in opt.param_groups: g['lr'] = cfg.lr * frac
        clip = cfg.clipping.epsilon * frac
        A, LP, V, R, D = torch.zeros(T, N, dtype=torch.long), torch.zeros(T, N), torch.zeros(T + 1, N), torch.zeros(T, N), torch.zeros(T, N)
        for t in range(T):
            O[t] = obs
            with torch.no_grad(): out = net(torch.from_numpy(obs))
            d = torch.distributions.Categorical(logits=out['logits']); a = d.sample()
            A[t], LP[t], V[t] = a, d.log_prob(a), out['value']
            for i, e in enumerate(envs):
                o, r, term, trunc, _ = e.step(int(a[i]))
                if term or trunc: o, _ = e.reset()
                obs[i], R[t, i], D[t, i] = o, r, float(term or trunc)
        with torch.no_grad(): V[T] = net(torch.from_numpy(obs))['value']
        adv, last = torch.zeros(T, N), torch.zeros(N)
        for t in reversed(range(T)):
            delta = R[t] + cfg.gamma * V[t + 1] * (1 - D[t]) - V[t]
            last = adv[t] = delta + cfg.gamma * cfg.gae_lambda * (1 - D[t]) * last
        ret = (adv + V[:T]).flatten(); adv = adv.flatten(); Of = torch.from_numpy(O.reshape(T * N, 4, 84, 84))
        Af, LPf = A.flatten(), LP.flatten()
        for _ in range(cfg.n_epochs):
            perm = torch.from_numpy(rng.permutation(T * N))
            for mb in perm.split(cfg.bs):
                out = net(Of[mb]); d = torch.distributions.Categorical(logits=out['logits'])
                ratio = (d.log_prob(Af[mb]) - LPf[mb]).exp()
                ad = adv[mb]; ad = (ad - ad.mean()) / (ad.std() + 1e-8)
                pg = -torch.min(ratio * ad, ratio.clamp(1 - clip, 1 + clip) * ad).mean()
                loss = pg + cfg.vf_coef * F.mse_loss(out['value'], ret[mb]) - cfg.ent_coef * d.entropy().mean()
                loss.backward(); clip_grad_norm(params, cfg.grad_clip); opt.step(); opt.zero_grad(set_to_none=True)
    return rollouts * N * T

def train_bare(algo, steps, starts, seed):
    import torch; torch.set_num_threads(1)
    dqn, ppo = presets(steps, starts)
    c0, t0 = cpu_now(), time.perf_counter()
    n = bare_dqn(dqn, steps, starts, seed) if algo == 'dqn' else bare_ppo(ppo, steps, seed)
    return time.perf_counter() - t0, cpu_now() - c0, n

def run_part(*args) -> dict:
    "Run one side in a fresh process; its last line is JSON"
    out = subprocess.run([sys.executable, __file__, '--part', *map(str, args)], capture_output=True, text=True, cwd=HERE)
    if out.returncode: raise RuntimeError(f'{args} failed:\n{out.stderr[-3000:]}')
    return json.loads(out.stdout.strip().splitlines()[-1])

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--steps', type=int, default=50_000)
    ap.add_argument('--repeats', type=int, default=1)
    ap.add_argument('--capacity', type=int, default=200_000)
    ap.add_argument('--dqn-starts', type=int, default=40_000)
    ap.add_argument('--skip-train', action='store_true', help='memory and sampling only')
    ap.add_argument('--part', nargs='+', help=argparse.SUPPRESS)
    add_save(ap)
    a = ap.parse_args()
    if a.part:
        kind, *rest = a.part
        if kind == 'memory': print(json.dumps(part_memory(rest[0], int(rest[1]))))
        else:
            side, algo, steps, starts, seed = rest
            wall, cpu, n = dict(rlnb=train_rlnb, sb3=train_sb3, bare=train_bare)[side](algo, int(steps), int(starts), int(seed))
            print(json.dumps(dict(wall=wall, cpu=cpu, env_steps=n)))
        return
    mem = {side: run_part('memory', side, a.capacity) for side in ('rlnb', 'sb3')}
    out = dict(capacity=a.capacity, steps=a.steps, repeats=a.repeats, bytes_per_transition=round(mem['rlnb']['bytes_per_transition']), sb3_bytes_per_transition=round(mem['sb3']['bytes_per_transition']),
               ratio_vs_sb3_optimized=round(mem['rlnb']['bytes_per_transition'] / mem['sb3']['bytes_per_transition'], 3),
               sample_us=round(mem['rlnb']['sample_us'], 1), sb3_sample_us=round(mem['sb3']['sample_us'], 1),
               sample_ratio_vs_sb3=round(mem['rlnb']['sample_us'] / mem['sb3']['sample_us'], 3),
               replay_1m_gib=round(mem['rlnb']['bytes_per_transition'] * 1e6 / 2**30, 2))
    print(f"memory: rlnb {out['bytes_per_transition']:,} B a transition, SB3 optimized {out['sb3_bytes_per_transition']:,} B (ratio {out['ratio_vs_sb3_optimized']}); "
          f"sample(32): rlnb {out['sample_us']} us, SB3 {out['sb3_sample_us']} us (ratio {out['sample_ratio_vs_sb3']}); a 1M replay: {out['replay_1m_gib']} GiB", flush=True)
    if not a.skip_train:
        sides = ['rlnb', 'sb3', 'bare']
        for algo in ('dqn', 'ppo'):
            t = {s: [] for s in sides}
            for k in range(a.repeats):
                for s in sides[k % 3:] + sides[:k % 3]: t[s].append(run_part('train', s, algo, a.steps, a.dqn_starts, k))
                print(f'{algo} repeat {k}: ' + '  '.join(f"{s} {t[s][-1]['wall']:.1f} s wall, {t[s][-1]['cpu']:.1f} s CPU" for s in sides), flush=True)
            med = lambda s, f: statistics.median(x[f] for x in t[s])
            paired = lambda s, f: statistics.median(x[f] / y[f] for x, y in zip(t['rlnb'], t[s]))
            out.update({f'{algo}_rlnb_s': round(med('rlnb', 'wall'), 1), f'{algo}_sb3_s': round(med('sb3', 'wall'), 1), f'{algo}_bare_s': round(med('bare', 'wall'), 1),
                        f'{algo}_rlnb_cpu_s': round(med('rlnb', 'cpu'), 1), f'{algo}_sb3_cpu_s': round(med('sb3', 'cpu'), 1), f'{algo}_bare_cpu_s': round(med('bare', 'cpu'), 1),
                        f'{algo}_ratio_vs_sb3': round(paired('sb3', 'wall'), 3), f'{algo}_ratio_vs_bare': round(paired('bare', 'wall'), 3),
                        f'{algo}_cpu_ratio_vs_sb3': round(paired('sb3', 'cpu'), 3), f'{algo}_cpu_ratio_vs_bare': round(paired('bare', 'cpu'), 3)})
    report(out, a.save)

if __name__ == '__main__': main()
