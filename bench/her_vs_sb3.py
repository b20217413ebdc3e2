"""rlnb SAC with hindsight replay against Stable-Baselines3's SAC with its HerReplayBuffer, on FetchReach-v4, same settings.

Both sides take rlnb's `sac` preset for FetchReach-v4, which is rl-baselines3-zoo's her.yml entry (20,000 env steps, one
env, lr 1e-3, batch 256, gamma 0.95, learning_starts 1,000, MLP [64, 64], learned temperature, HER 'future' with
n_sampled_goal 4) without the zoo's VecNormalize and time feature, on either side. Per seed, the two run one after the
other (who goes first alternating), one torch thread each. Every --eval-every env steps both are evaluated by the same
code (rlnb's `evaluate`, 10 envs seeded seed + 10,000, --eval-episodes deterministic episodes): the success rate is the
share of episodes whose last step says `is_success`. Prints per seed the success curve, the first env step at which it
reached --target (0.95) and the final rate, both sides; and the CPU seconds of training without the evaluations
(process CPU time minus the evaluations' own), per update and as the ratio rlnb/SB3 (median over seeds).

Needs `pip install -e ".[bench,robotics]"`. Ends with one JSON line.

    python bench/her_vs_sb3.py [--seeds 0,1,2] [--steps 20000] [--eval-every 2000] [--save bench/results/her_vs_sb3.json]
"""
import argparse, statistics, time
from record import add_save, report
from timing import clock, since
import numpy as np, torch

ENV = 'FetchReach-v4'

def settings():
    from rlnb.data.gym import register_envs
    from rlnb.presets import get_preset
    register_envs('robotics')
    return get_preset('sac', ENV).cfg

def success(envs, act, episodes, seed):
    "The share of `episodes` deterministic episodes that end in success (rlnb's `evaluate`), and the CPU seconds it took"
    from rlnb.data.eval import evaluate
    class Agent:
        def act(self, obs, deterministic=True): return act(obs), {}
    t0 = time.process_time()
    res = evaluate(envs, Agent(), episodes, seed=seed)
    return float(np.mean(res.successes)), time.process_time() - t0

def run_rlnb(cfg, steps, seed, every, episodes):
    from dataclasses import replace
    from rlnb.data.gym import make_envs
    from timing import no_eval
    learn = no_eval(replace(cfg, total_steps=steps, eval_every=every).learner(ENV, seed, progress=False))
    envs, curve, spent = make_envs(ENV, 10), [], [0.]
    act = lambda o: learn.evaluator.eval_agent.act(o, deterministic=True)[0]
    def evaluate(env_step):   # the same evaluation as SB3's side, at the same env steps
        rate, cpu = success(envs, act, episodes, seed + 10_000); curve.append((env_step, rate)); spent[0] += cpu
    learn.evaluator.evaluate = evaluate
    t0 = clock(); learn.train(); wall, cpu = since(t0)
    if not curve or curve[-1][0] != learn.env_step:   # the final weights, where the schedule did not just evaluate them
        curve.append((learn.env_step, success(envs, act, episodes, seed + 10_000)[0]))
    n = learn.opt_step
    learn.close()
    return dict(curve=curve, cpu=cpu - spent[0], updates=n)

def run_sb3(cfg, steps, seed, every, episodes):
    import gymnasium as gym
    from stable_baselines3 import SAC, HerReplayBuffer
    from stable_baselines3.common.callbacks import BaseCallback
    from rlnb.data.gym import make_envs
    model = SAC('MultiInputPolicy', gym.make(ENV), learning_rate=cfg.lr, buffer_size=cfg.buffer, learning_starts=cfg.learning_starts,
                batch_size=cfg.bs, tau=cfg.tau, gamma=cfg.gamma, replay_buffer_class=HerReplayBuffer,
                replay_buffer_kwargs=dict(n_sampled_goal=cfg.her.n_sampled_goal, goal_selection_strategy=cfg.her.strategy),
                policy_kwargs=dict(net_arch=list(cfg.hidden)), seed=seed, device='cpu', verbose=0)
    envs, curve, spent = make_envs(ENV, 10), [], [0.]
    def act(o):
        return torch.as_tensor(model.predict({k: v.numpy() for k, v in o.items()}, deterministic=True)[0])
    class CB(BaseCallback):
        def _on_step(self):
            if self.num_timesteps % every == 0:
                rate, c = success(envs, act, episodes, seed + 10_000); curve.append((self.num_timesteps, rate)); spent[0] += c
            return True
    t0 = clock(); model.learn(steps, callback=CB()); wall, cpu = since(t0)
    if not curve or curve[-1][0] != steps: curve.append((steps, success(envs, act, episodes, seed + 10_000)[0]))
    return dict(curve=curve, cpu=cpu - spent[0], updates=model._n_updates)

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seeds', default='0,1,2')
    ap.add_argument('--steps', type=int, default=20_000)
    ap.add_argument('--eval-every', type=int, default=2_000)
    ap.add_argument('--eval-episodes', type=int, default=20)
    ap.add_argument('--target', type=float, default=0.95)
    add_save(ap)
    a = ap.parse_args()
    torch.set_num_threads(1)
    cfg, rows = settings(), []
    first = lambda c: next((s for s, r in c if r >= a.target), None)
    for i, seed in enumerate(int(s) for s in a.seeds.split(',')):
        sides = [('rlnb', run_rlnb), ('sb3', run_sb3)][::1 if i % 2 == 0 else -1]
        r = {name: f(cfg, a.steps, seed, a.eval_every, a.eval_episodes) for name, f in sides}
        rows.append(dict(seed=seed, **{f'{n}_{k}': v for n in ('rlnb', 'sb3') for k, v in (
            ('curve', [round(x, 2) for _, x in r[n]['curve']]), ('reached_at', first(r[n]['curve'])),
            ('final', r[n]['curve'][-1][1] if r[n]['curve'] else None), ('cpu_s', round(r[n]['cpu'], 1)),
            ('updates', r[n]['updates']))}, cpu_ratio=round(r['rlnb']['cpu'] / r['sb3']['cpu'], 3)))
        print(rows[-1], flush=True)
    out = dict(env=ENV, steps=a.steps, eval_every=a.eval_every, eval_episodes=a.eval_episodes, target=a.target, rows=rows,
               rlnb_reached=sum(x['rlnb_reached_at'] is not None for x in rows), sb3_reached=sum(x['sb3_reached_at'] is not None for x in rows),
               seeds=len(rows), cpu_ratio=statistics.median(x['cpu_ratio'] for x in rows))
    print(f"success >= {a.target} within {a.steps:,} env steps: rlnb {out['rlnb_reached']}/{len(rows)} seeds, SB3 {out['sb3_reached']}/{len(rows)}; "
          f"CPU time rlnb/SB3 (median over seeds, evaluations excluded): {out['cpu_ratio']:.3f} (target <= 0.8)")
    report(out, a.save)

if __name__ == '__main__': main()
