"""rlnb PPO against Stable-Baselines3 PPO with identical hyperparameters, against a bare loop, and against the bare-update floor.

Hyperparameters: rl-baselines3-zoo's CartPole-v1 PPO (8 envs, n_steps 32, batch 256, gae_lambda 0.8,
gamma 0.98, 20 epochs, ent_coef 0, learning rate linear from 1e-3, clip range linear from 0.2,
100k env steps), SB3's defaults elsewhere (separate [64, 64] tanh actor and critic, vf_coef 0.5,
max_grad_norm 0.5, advantage normalisation, Adam eps 1e-5). One torch thread, no evaluation. The floor
is the same number of bare torch minibatch updates (forward of the same actor-critic, PPO loss,
backward, gradient clipping, Adam step configured as rlnb configures it) on random data, with nothing
else. The bare loop is the least code that does rlnb's work: CartPole's own numpy vector env, one
batched policy forward per step, the rollout in preallocated tensors, one forward for the rollout's
values and log-probs, GAE, and the same 20 updates per rollout with the same schedules: the real limit
for rlnb. The four run alternately, their order rotating every repeat; ratios are medians of the
repeats' paired ratios, printed with their range, in wall time and in process CPU time (which a busy neighbour disturbs less).
rlnb runs without its final evaluation, as the others evaluate nothing. rlnb's time is also split, in a separate profiled
run, into acting, env stepping, updates and the rest, read off the loop's own profile (spans).
Needs `pip install -e ".[bench]"`. Ends with one JSON line.

    python bench/ppo_vs_sb3.py [--steps 100000] [--repeats 3]
"""
import argparse, json, math, statistics, time
from record import add_save, report
import torch
from timing import alternate, clock, compare, ratios_line, since, timed_train

def rlnb_cfg(steps):
    from rlnb.agents.policy_gradient.ppo import PPOConfig, Clip
    return PPOConfig(total_steps=steps, n_envs=8, n_steps=32, bs=256, n_epochs=20, lr=1e-3, lr_schedule='linear', gamma=0.98,
                     gae_lambda=0.8, clipping=Clip(0.2, 'linear'), ent_coef=0., vf_coef=0.5, grad_clip=0.5, hidden=(64, 64),
                     eval_every=10**9, threshold=None)

def run_rlnb(steps, seed, split=False):
    learn = rlnb_cfg(steps).learner('CartPole-v1', seed, progress=False)
    return timed_train(learn, split)

def run_sb3(steps, seed):
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    lin = lambda v: (lambda progress_remaining: progress_remaining * v)
    model = PPO('MlpPolicy', make_vec_env('CartPole-v1', n_envs=8, seed=seed), n_steps=32, batch_size=256, gae_lambda=0.8, gamma=0.98, n_epochs=20,
                ent_coef=0.0, learning_rate=lin(1e-3), clip_range=lin(0.2), seed=seed, device='cpu', verbose=0)
    t0 = clock(); model.learn(steps); return since(t0)

def run_floor(n_updates, seed):
    "Bare PPO minibatch updates on random data: the cost of the learning alone"
    from rlnb.nets import ActorCritic
    from rlnb.fast import adam, clip_grad_norm
    import gymnasium as gym
    g = torch.Generator().manual_seed(seed)
    model = ActorCritic(torch.zeros(1, 4), gym.spaces.Discrete(2)); params = list(model.parameters()); opt = adam(params, 1e-3, eps=1e-5)
    obs, act = torch.randn(256, 4, generator=g), torch.randint(2, (256,), generator=g)
    logp_old, adv, ret = torch.full((256,), -math.log(2)), torch.randn(256, generator=g), torch.randn(256, generator=g)
    t0 = clock()
    for _ in range(n_updates):
        out = model(obs)
        logp_all = torch.log_softmax(out['logits'], -1)
        logp = logp_all.gather(1, act[:, None])[:, 0]
        a = (adv - adv.mean()) / (adv.std() + 1e-8)
        ratio = (logp - logp_old).exp()
        pg = -torch.minimum(ratio * a, ratio.clamp(0.8, 1.2) * a).mean()
        ent = -(logp_all.exp() * logp_all).sum(-1).mean()
        loss = pg + 0.5 * ((out['value'] - ret) ** 2).mean() - 0. * ent
        opt.zero_grad(set_to_none=True); loss.backward()
        clip_grad_norm(params, 0.5); opt.step()   # as rlnb's loss does it (max_grad_norm)
    return since(t0)

def run_bare(steps, seed):
    "The least code that does rlnb's PPO work, with the same hyperparameters: acting, GAE, 20 full-rollout updates per rollout"
    import gymnasium as gym
    from rlnb.nets import ActorCritic
    from rlnb.agents.policy_gradient.core import gae, standardize
    from rlnb.fast import adam, clip_grad_norm
    torch.manual_seed(seed); g = torch.Generator().manual_seed(seed)
    T, N = 32, 8
    envs = gym.make_vec('CartPole-v1', N, vectorization_mode='vector_entry_point')
    model = ActorCritic(torch.zeros(1, 4), gym.spaces.Discrete(2)); params = list(model.parameters()); opt = adam(params, 1e-3, eps=1e-5)
    O, A, R = torch.zeros(T, N, 4), torch.zeros(T, N, dtype=torch.long), torch.zeros(T, N)
    TE, TR, VALID = (torch.zeros(T, N, dtype=torch.bool) for _ in range(3))
    obs, done = torch.from_numpy(envs.reset(seed=seed)[0]), torch.zeros(N, dtype=torch.bool)
    n_roll = math.ceil(steps / (T * N))
    t0 = clock()
    for it in range(n_roll):
        frac = 1 - it * T * N / steps
        for t in range(T):
            with torch.no_grad(): a = torch.multinomial(model.policy(obs)['logits'].softmax(-1), 1, generator=g)[:, 0]
            nxt, r, te, tr, _ = envs.step(a.numpy())
            O[t], A[t], R[t], TE[t], TR[t], VALID[t] = obs, a, torch.from_numpy(r), torch.from_numpy(te), torch.from_numpy(tr), ~done   # a row after an end is the reset
            obs, done = torch.from_numpy(nxt), TE[t] | TR[t]
        with torch.no_grad():
            out = model(torch.cat([O.view(-1, 4), obs]))
            v, logp = out['value'][:T * N].view(T, N), out['logits'][:T * N].log_softmax(-1).gather(1, A.view(-1, 1))[:, 0]
            adv = gae(R, v, torch.cat([v[1:], out['value'][T * N:][None]]), TE, TE | TR, 0.98, 0.8) * VALID
            ret, w = ((adv + v) * VALID).view(-1), VALID.view(-1).float() / VALID.sum().clamp(min=1)
        adv, x, act, clip = adv.view(-1), O.view(-1, 4), A.view(-1), 0.2 * frac
        for pg_ in opt.param_groups: pg_['lr'] = 1e-3 * frac
        for _ in range(20):
            out = model(x); lp_all = out['logits'].log_softmax(-1)
            ratio, a_n = (lp_all.gather(1, act[:, None])[:, 0] - logp).exp(), standardize(adv, w)
            pg = -(torch.minimum(ratio * a_n, ratio.clamp(1 - clip, 1 + clip) * a_n) @ w)
            ent = -(lp_all.exp() * lp_all).sum(-1) @ w
            loss = pg + 0.5 * (((out['value'] - ret) ** 2) @ w) - 0. * ent
            loss.backward(); clip_grad_norm(params, 0.5); opt.step(); opt.zero_grad(set_to_none=True)
    return since(t0)

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--steps', type=int, default=100_000)
    ap.add_argument('--repeats', type=int, default=3)
    add_save(ap)
    a = ap.parse_args()
    torch.set_num_threads(1)
    _, n_updates, split = run_rlnb(a.steps, 100, split=True)   # warm-up, and the time split
    print(f'rlnb time split (one profiled run, s; other: rollout preparation, collector bookkeeping, events): {split}', flush=True)
    runs = dict(rlnb=lambda i: run_rlnb(a.steps, i)[0], sb3=lambda i: run_sb3(a.steps, i), bare=lambda i: run_bare(a.steps, i), floor=lambda i: run_floor(n_updates, i))
    t = alternate(runs, a.repeats, lambda k: f' ({n_updates} updates)')
    out = dict(compare(t), n_updates=n_updates, steps=a.steps, repeats=a.repeats, rlnb_split=split)
    print(f"rlnb {out['rlnb_s']:.2f} s, SB3 {out['sb3_s']:.2f} s, bare loop {out['bare_s']:.2f} s, floor {out['floor_s']:.2f} s (wall, medians); paired ratios, median [range]: "
          + ratios_line(out, dict(ratio_vs_sb3=0.62, cpu_ratio_vs_bare=1.20)))
    report(out, a.save)

if __name__ == '__main__': main()
