"""rlnb's recurrent PPO against sb3-contrib's RecurrentPPO with identical hyperparameters, on CartPoleNoVel-v1 (CartPole without velocities).

Both use rl-baselines3-zoo's CartPoleNoVel-v1 settings for RecurrentPPO: 8 envs, 32 steps per env per rollout, minibatches of 256 rows
(whole rollouts), 20 epochs, gamma 0.98, GAE lambda 0.8, learning rate 1e-3 and clip range 0.2 both decaying linearly to 0, observations
standardised by running statistics (no reward scaling), an LSTM of 64 units for the actor and another for the critic, each followed by one
64-unit ReLU layer, PyTorch's default initialisation.

Speed (default): --steps env steps per run, one torch thread, no evaluation, rlnb and sb3-contrib alternating with the order swapped every
repeat; the ratio is the median of the repeats' paired ratios, printed with its range, in wall time and in process CPU time; rlnb
runs without its final evaluation.

Quality (--quality): each seed trains rlnb's recurrent PPO, sb3-contrib's, and rlnb's feed-forward PPO (the `ppo` preset's settings with
observation standardisation) with --steps env steps as the budget the schedules decay over (the zoo's 100,000), evaluated every --eval-every
env steps on 20 deterministic episodes with rlnb's evaluator (the same envs and seeds for all three); prints the first env step whose mean
reached --threshold, the last and the best mean. --stop ends the recurrent runs at their first solving evaluation.

Needs `pip install -e ".[bench]"` (sb3-contrib). Ends with one JSON line.

    python bench/rppo_vs_sb3.py [--steps 20000] [--repeats 3]
    python bench/rppo_vs_sb3.py --quality [--seeds 0,1,2] [--steps 100000] [--eval-every 2500] [--stop]
"""
import argparse, json, statistics, time
from record import add_save, report
from timing import alternate, clock, compare, no_eval, ratios_line, since
import numpy as np, torch
from torch import nn
import rlnb.data.gym  # noqa: F401  (registers CartPoleNoVel-v1)

ENV = 'CartPoleNoVel-v1'

def run_rlnb(steps, seed, eval_every=None, threshold=None, feed_forward=False, stop=False):
    "rlnb's ppo_lstm preset (or the feed-forward ppo preset) with the budget and evaluation of this run"
    from rlnb.presets import get_preset
    changes = dict(total_steps=steps, eval_every=eval_every or 10**9, threshold=threshold, stop_when_solved=stop)
    if feed_forward: learn = get_preset('ppo', ENV).learner(seed, False, obs_norm=True, **changes)   # the zoo's CartPole PPO, observations standardised
    else: learn = get_preset('ppo_lstm').learner(seed, False, **changes)
    if not eval_every: no_eval(learn)   # speed: sb3-contrib evaluates nothing either
    t0 = clock(); learn.train(); wall, cpu = since(t0)
    evals = list(learn.metrics.series.get('eval_return', ([], []))[1])
    out = dict(wall=wall, cpu=cpu, solved_at=learn.evaluator.solved_at, evals=evals)
    learn.close()
    return out

def sb3_model(seed):
    from sb3_contrib import RecurrentPPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecNormalize
    venv = VecNormalize(make_vec_env(ENV, n_envs=8, seed=seed), norm_obs=True, norm_reward=False)
    return RecurrentPPO('MlpLstmPolicy', venv, n_steps=32, batch_size=256, gae_lambda=0.8, gamma=0.98, n_epochs=20, ent_coef=0.0,
                        learning_rate=lambda f: 1e-3 * f, clip_range=lambda f: 0.2 * f, seed=seed, device='cpu', verbose=0,
                        policy_kwargs=dict(ortho_init=False, activation_fn=nn.ReLU, lstm_hidden_size=64, enable_critic_lstm=True,
                                           net_arch=dict(pi=[64], vf=[64])))

class SB3Recurrent:
    "sb3-contrib's model as an rlnb recurrent agent for rlnb's evaluator: observations standardised with the training statistics"
    recurrent = True
    def __init__(self, model): self.model = model
    def act(self, obs, state=None, start=None, deterministic=True):
        o = self.model.get_env().normalize_obs(obs.numpy())
        starts = np.ones(len(o), bool) if start is None else start.numpy()
        a, state = self.model.predict(o, state=state, episode_start=starts, deterministic=deterministic)
        return torch.as_tensor(a), {}, state

def run_sb3(steps, seed, eval_every=None, threshold=None, stop=False):
    from stable_baselines3.common.callbacks import BaseCallback
    from rlnb.data.gym import make_envs
    from rlnb.data.eval import evaluate
    model = sb3_model(seed)
    evals, solved = [], [None]
    if eval_every:
        envs, agent, nxt = make_envs(ENV, 10), SB3Recurrent(model), [eval_every]
        class CB(BaseCallback):
            def _on_step(self):
                if self.num_timesteps < nxt[0]: return True
                nxt[0] = (self.num_timesteps // eval_every + 1) * eval_every
                m = evaluate(envs, agent, 20, seed=seed + 10_000).mean
                evals.append(m)
                if threshold is not None and m >= threshold and solved[0] is None: solved[0] = self.num_timesteps
                return not (stop and solved[0] is not None)
        cb = CB()
    t0 = clock(); model.learn(steps, callback=cb if eval_every else None); wall, cpu = since(t0)
    return dict(wall=wall, cpu=cpu, solved_at=solved[0], evals=evals)

def speed(a):
    pair = lambda r: (r['wall'], r['cpu'])
    t = alternate(dict(rlnb=lambda k: pair(run_rlnb(a.steps, k)), sb3=lambda k: pair(run_sb3(a.steps, k))), a.repeats)
    out = dict(env=ENV, steps=a.steps, repeats=a.repeats, **compare(t))
    print(f"rlnb {out['rlnb_s']:.1f} s, sb3-contrib {out['sb3_s']:.1f} s (wall, medians); paired ratios, median [range]: " + ratios_line(out, dict(ratio_vs_sb3=0.5)))
    return out

def quality(a):
    rows = []
    for seed in [int(s) for s in a.seeds.split(',')]:
        res = {}
        for side in a.sides.split(','):
            if side == 'rlnb': res[side] = run_rlnb(a.steps, seed, a.eval_every, a.threshold, stop=a.stop)
            elif side == 'sb3': res[side] = run_sb3(a.steps, seed, a.eval_every, a.threshold, stop=a.stop)
            elif side == 'ppo': res[side] = run_rlnb(a.steps, seed, a.eval_every, a.threshold, feed_forward=True)   # to the end: its best matters
        row = dict(seed=seed)
        for side, r in res.items():
            row |= {f'{side}_solved_at': r['solved_at'], f'{side}_last': round(r['evals'][-1], 1) if r['evals'] else None,
                    f'{side}_max': round(max(r['evals']), 1) if r['evals'] else None, f'{side}_s': round(r['wall'], 1)}
        rows.append(row); print(row, flush=True)
    med = lambda side: statistics.median([r[f'{side}_solved_at'] if r[f'{side}_solved_at'] is not None else float('inf') for r in rows])
    return dict(env=ENV, steps=a.steps, eval_every=a.eval_every, threshold=a.threshold, rows=rows,
                **{f'{s}_median_steps': med(s) for s in a.sides.split(',')}, **{f'{s}_solved': sum(r[f'{s}_solved_at'] is not None for r in rows) for s in a.sides.split(',')})

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--steps', type=int, default=None, help='env steps per run (default: 20000 for speed, 100000, the zoo budget, for quality)')
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--quality', action='store_true')
    ap.add_argument('--seeds', default='0,1,2')
    ap.add_argument('--eval-every', type=int, default=2500)
    ap.add_argument('--threshold', type=float, default=475.)
    ap.add_argument('--stop', action='store_true', help='in --quality, end recurrent runs at their first evaluation at or above --threshold (the schedules still span --steps)')
    ap.add_argument('--sides', default='rlnb,sb3,ppo', help='which to run in --quality: rlnb, sb3 (sb3-contrib), ppo (rlnb feed-forward)')
    add_save(ap)
    a = ap.parse_args()
    a.steps = a.steps or (100_000 if a.quality else 20_000)
    torch.set_num_threads(1)
    report(quality(a) if a.quality else speed(a), a.save)

if __name__ == '__main__': main()
