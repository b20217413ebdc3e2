"""rlnb's PPO with invalid-action masks against sb3-contrib's MaskablePPO, same masked env and settings.

The env (`MaskedPick-v0`, defined here for both sides): 4 actions, 4 uniform features; at every step a random subset of
the actions is illegal (at least one legal), told by `action_masks()` (sb3-contrib's protocol, which rlnb reads too);
reward 1 for the legal action whose feature is largest, else 0; 20 steps an episode (best return 20; a uniformly random
legal agent scores about 10). Both sides: 8 envs, rollouts of 32 steps, minibatches of 256, 10 epochs, Adam 3e-4
constant, gamma 0.99, GAE 0.95, clip 0.2, no entropy bonus, value weight 0.5, gradient norm 0.5, MLPs (64, 64) tanh,
orthogonal init, one torch thread. Speed: --steps env steps per run, no evaluation, sides alternating for --repeats
(paired ratios, wall and process CPU). Learning: every run's final agent, greedy and masked, over 50 episodes of 10
envs seeded alike on both sides. Ends with one JSON line.

    python bench/masks_vs_sb3c.py --steps 20000 --repeats 3 --save bench/results/masks_vs_sb3c.json
"""
import argparse, statistics
import numpy as np, gymnasium as gym, torch
from record import add_save, report
from timing import alternate, clock, compare, since


class MaskedPick(gym.Env):
    observation_space, action_space = gym.spaces.Box(0., 1., (4,), np.float32), gym.spaces.Discrete(4)
    def _draw(self):
        self.x = self.np_random.random(4).astype(np.float32)
        self.legal = self.np_random.random(4) < 0.6
        self.legal[self.np_random.integers(4)] = True
    def action_masks(self): return self.legal.copy()
    def reset(self, seed=None, options=None):
        super().reset(seed=seed); self.t = 0; self._draw(); return self.x.copy(), {}
    def step(self, a):
        best = int(np.argmax(np.where(self.legal, self.x, -1.)))
        r = float(a == best); self.t += 1; self._draw()
        return self.x.copy(), r, False, self.t >= 20, {}

if 'MaskedPick-v0' not in gym.registry: gym.register('MaskedPick-v0', entry_point=MaskedPick)
S = dict(n_envs=8, n_steps=32, bs=256, n_epochs=10, lr=3e-4, gamma=0.99, gae_lambda=0.95, clip=0.2)


def run_rlnb(steps, seed, evaluate=False):
    from rlnb.agents.policy_gradient.ppo import PPOConfig, Clip
    cfg = PPOConfig(total_steps=steps, n_envs=S['n_envs'], n_steps=S['n_steps'], bs=S['bs'], n_epochs=S['n_epochs'], lr=S['lr'],
                    lr_schedule='constant', gamma=S['gamma'], gae_lambda=S['gae_lambda'], clipping=Clip(S['clip'], 'constant'),
                    ent_coef=0., vf_coef=0.5, grad_clip=0.5, hidden=(64, 64), eval_every=10**9, threshold=None)
    learn = cfg.learner('MaskedPick-v0', seed, progress=False)
    from timing import no_eval
    no_eval(learn)
    t0 = clock(); learn.train(); wall, cpu = since(t0)
    score = greedy_score(lambda o: learn.agent.act(o, deterministic=True)[0]) if evaluate else None
    learn.close()
    return dict(wall=wall, cpu=cpu, score=score)


def run_sb3c(steps, seed, evaluate=False):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    env = make_vec_env(MaskedPick, n_envs=S['n_envs'], seed=seed)
    model = MaskablePPO('MlpPolicy', env, n_steps=S['n_steps'], batch_size=S['bs'], n_epochs=S['n_epochs'], learning_rate=S['lr'],
                        gamma=S['gamma'], gae_lambda=S['gae_lambda'], clip_range=S['clip'], ent_coef=0., vf_coef=0.5,
                        max_grad_norm=0.5, policy_kwargs=dict(net_arch=[64, 64]), seed=seed, device='cpu', verbose=0)
    t0 = clock(); model.learn(steps); wall, cpu = since(t0)
    act = lambda o: torch.as_tensor(model.predict(o['observation'].numpy(), action_masks=o['action_mask'].numpy().astype(bool),
                                                  deterministic=True)[0])
    return dict(wall=wall, cpu=cpu, score=greedy_score(act) if evaluate else None)


def greedy_score(act, episodes=50):
    "Mean return of `act` (a batch of masked observations -> actions) over `episodes` episodes of 10 envs seeded 10,000 on"
    from rlnb.data.gym import make_envs
    from rlnb.data.eval import evaluate
    class Agent:
        def act(self, obs, deterministic=True): return act(obs), {}
    return round(evaluate(make_envs('MaskedPick-v0', 10), Agent(), episodes, seed=10_000).mean, 2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--steps', type=int, default=20_000)
    ap.add_argument('--repeats', type=int, default=3)
    add_save(ap)
    a = ap.parse_args()
    torch.set_num_threads(1)
    scores = {'rlnb': [], 'sb3c': []}
    def side(f, name):
        def run(k):
            r = f(a.steps, k, evaluate=True); scores[name].append(r['score']); return r['wall'], r['cpu']
        return run
    t = alternate(dict(sb3c=side(run_sb3c, 'sb3c'), rlnb=side(run_rlnb, 'rlnb')), a.repeats, label=lambda k: f"  scores {scores}")
    out = dict(env='MaskedPick-v0', steps=a.steps, repeats=a.repeats, **compare(t), rlnb_scores=scores['rlnb'], sb3c_scores=scores['sb3c'],
               rlnb_median_score=statistics.median(scores['rlnb']), sb3c_median_score=statistics.median(scores['sb3c']))
    report(out, a.save)


if __name__ == '__main__': main()
