"""rlnb PPO against Stable-Baselines3 PPO with identical hyperparameters, and against the bare-update floor.

Hyperparameters: rl-baselines3-zoo's CartPole-v1 PPO (8 envs, n_steps 32, batch 256, gae_lambda 0.8,
gamma 0.98, 20 epochs, ent_coef 0, learning rate linear from 1e-3, clip range linear from 0.2,
100k env steps), SB3's defaults elsewhere (separate [64, 64] tanh actor and critic, vf_coef 0.5,
max_grad_norm 0.5, advantage normalisation, Adam eps 1e-5). One torch thread, no evaluation. The floor
is the same number of bare torch minibatch updates (forward of the same actor-critic, PPO loss,
backward, gradient clipping, Adam step configured as rlnb configures it) on random data, with nothing
else. The three run alternately; medians over repeats. rlnb's time is also split, in a separate profiled
run, into acting, env stepping, updates and the rest, read off the loop's own profile (spans).
Needs `pip install -e ".[bench]"`. Ends with one JSON line.

    python bench/ppo_vs_sb3.py [--steps 100000] [--repeats 3]
"""
import argparse, json, math, statistics, time
import torch
from timing import timed_train

def rlnb_cfg(steps):
    from rlnb.agents.policy_gradient.ppo import PPOConfig
    return PPOConfig(total_steps=steps, n_envs=8, n_steps=32, bs=256, n_epochs=20, lr=1e-3, lr_schedule='linear', gamma=0.98, gae_lambda=0.8,
                     clip=0.2, clip_schedule='linear', ent_coef=0., vf_coef=0.5, grad_clip=0.5, hidden=(64, 64), eval_every=10**9, threshold=None)

def run_rlnb(steps, seed, split=False):
    from rlnb.agents.policy_gradient.ppo import ppo_learner
    learn = ppo_learner('CartPole-v1', rlnb_cfg(steps), seed, progress=False)
    return timed_train(learn, split)

def run_sb3(steps, seed):
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    lin = lambda v: (lambda progress_remaining: progress_remaining * v)
    model = PPO('MlpPolicy', make_vec_env('CartPole-v1', n_envs=8, seed=seed), n_steps=32, batch_size=256, gae_lambda=0.8, gamma=0.98, n_epochs=20,
                ent_coef=0.0, learning_rate=lin(1e-3), clip_range=lin(0.2), seed=seed, device='cpu', verbose=0)
    t0 = time.perf_counter(); model.learn(steps); return time.perf_counter() - t0

def run_floor(n_updates, seed):
    "Bare PPO minibatch updates on random data: the cost of the learning alone"
    from rlnb.agents.policy_gradient.ppo import ActorCritic
    from rlnb.agents.dqn.core import adam, clip_grad_norm
    import gymnasium as gym
    g = torch.Generator().manual_seed(seed)
    model = ActorCritic(torch.zeros(1, 4), gym.spaces.Discrete(2)); params = list(model.parameters()); opt = adam(params, 1e-3, eps=1e-5)
    obs, act = torch.randn(256, 4, generator=g), torch.randint(2, (256,), generator=g)
    logp_old, adv, ret = torch.full((256,), -math.log(2)), torch.randn(256, generator=g), torch.randn(256, generator=g)
    t0 = time.perf_counter()
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
        clip_grad_norm(params, 0.5); opt.step()   # as rlnb's GradClipCallback does it
    return time.perf_counter() - t0

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--steps', type=int, default=100_000)
    ap.add_argument('--repeats', type=int, default=3)
    a = ap.parse_args()
    torch.set_num_threads(1)
    rl, sb, fl = [], [], []
    _, n_updates, split = run_rlnb(a.steps, 100, split=True)   # warm-up, and the time split
    print(f'rlnb time split (one profiled run, s; other: rollout preparation, collector bookkeeping, events): {split}', flush=True)
    for i in range(a.repeats):
        w, n_updates, _ = run_rlnb(a.steps, i); rl.append(w)
        sb.append(run_sb3(a.steps, i))
        fl.append(run_floor(n_updates, i))
        print(f'repeat {i}: rlnb {rl[-1]:.2f} s  sb3 {sb[-1]:.2f} s  floor {fl[-1]:.2f} s ({n_updates} updates)', flush=True)
    r, s, f = statistics.median(rl), statistics.median(sb), statistics.median(fl)
    print(json.dumps(dict(rlnb_s=round(r, 2), sb3_s=round(s, 2), floor_s=round(f, 2), ratio_vs_sb3=round(r / s, 3), ratio_vs_floor=round(r / f, 3),
                          n_updates=n_updates, steps=a.steps, repeats=a.repeats, rlnb_split=split)))

if __name__ == '__main__': main()
