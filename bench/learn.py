"""Does it learn? Train each algorithm with its preset over several seeds and count the solved ones.

For each algorithm: seeds solved (first evaluation mean >= the preset's threshold, 20 deterministic
episodes, within the preset's env-step budget), median env steps to that first evaluation (over the
solved seeds), median wall seconds per run. Runs stop at the first solving evaluation. Seeds run in
parallel worker processes (one torch thread each). Ends with one JSON line: a list of rows.

    python bench/learn.py [--algos dqn,double_dqn] [--env CartPole-v1] [--seeds 10] [--workers 2]
                          [--set '{"lr": 1e-3}']   # override preset hyperparameters (for tuning)
    python bench/learn.py --algos ppo --env Pendulum-v1 --seeds 5   # the tuned Pendulum preset (threshold -300, 200k steps)
    python bench/learn.py --algos ppo --seeds 5 --workers 1 --set '{"runners": 2}'   # collecting in 2 Ray runners
    python bench/learn.py --algos ppo,dqn --seeds 5 --workers 1 --learners 2 --save bench/results/learn_learners2.json   # each seed in 2 learner processes

With --vs-sb3, each seed trains the preset for its whole budget and SB3 with the same settings, network and envs (rlnb's
preprocessing, wrapped in SB3's DummyVecEnv; SubprocVecEnv for Atari's several envs, which rlnb steps in worker processes), both evaluated by rlnb's `evaluate` on the same evaluation envs (Atari: whole
games, game scores) every eval_every env steps and at the end: 20 greedy episodes seeded 10,000. A uniformly random agent
is evaluated the same way. Rows per algorithm and env: every seed's final score for both, their medians, and the curves;
--save FILE writes the JSON there (bench/results/).

    python bench/learn.py --vs-sb3 --algos ppo_minatar --env MinAtar/Breakout-v1 --seeds 3 --steps 500000 --save bench/results/ppo_minatar_breakout.json
    python bench/learn.py --plot nbs/images/pixels_learning.png bench/results/ppo_minatar_*.json bench/results/dqn_minatar_*.json   # the curves as one image
    python bench/learn.py --vs-sb3 --algos ppo_atari --env BreakoutNoFrameskip-v4 --seeds 1 --first-seed 2 --only sb3 --device cuda --save sb3_2.json
    python bench/learn.py --vs-sb3 --algos ppo_atari --seeds 3 --steps 250000 --only rlnb --workers 1 --threads 0 --save bench/results/ppo_atari_Breakout_250k_cpu.json   # `rlnb train`'s defaults on this CPU
    python bench/learn.py --vs-sb3 --algos ppo_atari --seeds 1 --first-seed S --steps 500000 --stop 250000 --only rlnb --workers 1 --threads 0 --save seedS.json   # a 500k run's schedule, stopped at 250k (as the lease stopped the GPU's)
    python bench/learn.py --merge rlnb_*.json sb3_*.json --save bench/results/ppo_atari_Breakout.json   # seeds and sides run apart, joined
    python bench/learn.py --vs-sb3 --algos dqn_minatar --seeds 3 --steps 500000 --set '{"head": "quantile", "n_quantiles": 50, "train_every": 4, "target_every": 250, "eps_fraction": 0.2, "adam_eps": 0.0003125}'   # QR-DQN: sb3-contrib's QRDQN on the other side
"""
import argparse, json, statistics, time
from record import add_save, report
from concurrent.futures import ProcessPoolExecutor

def run_one(algo, env, seed, overrides, learners=1):
    "One seed until solved (or the budget); with `learners` > 1, in a learner group of that many processes (`rlnb.learners`), one torch thread each"
    if learners == 1: return train_one(algo, env, seed, overrides)
    from rlnb.learners import LearnerGroup
    with LearnerGroup(learners, threads=1) as group: return group.run(train_one, algo, env, seed, overrides, learners)[0]

def train_one(algo, env, seed, overrides, learners=1):
    import torch
    torch.set_num_threads(1)
    from rlnb.presets import get_preset
    p = get_preset(algo, env)
    with p.learner(seed=seed, progress=False, stop_when_solved=True, **overrides, **({'learners': learners} if learners > 1 else {})) as learn:   # closed after: env workers and Ray runners end with the run
        t0 = time.perf_counter(); learn.train(); wall = time.perf_counter() - t0
        ev = learn.evaluator
        steps, means = learn.metrics.series.get('eval_return', ((), ()))   # (a group's: the run's env steps)
        return dict(seed=seed, solved_at=ev.solved_at * learners if ev.solved_at is not None else None, wall_s=wall, eval_s=ev.wall, last_eval=learn.metrics.last('eval_return'),
                    threshold=ev.threshold, curve=[(int(x), round(float(y), 2)) for x, y in zip(steps, means)])

class SB3Agent:
    "An SB3 model as an rlnb agent, for rlnb's `evaluate`"
    def __init__(self, model): self.model = model
    def act(self, obs, deterministic=True):
        import torch
        return torch.as_tensor(self.model.predict(obs.numpy(), deterministic=deterministic)[0]), {}

def sb3_model(p, cfg, env, seed, device='cpu'):
    "SB3's DQN (sb3-contrib's QRDQN for a quantile head) or PPO with the settings of `cfg`, on rlnb's preprocessed envs, with rlnb's body as its features extractor"
    import torch
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
    from stable_baselines3.common.env_util import make_vec_env
    from rlnb.data.pixels import PREPROCESS
    from rlnb.nets import NETS
    class Body(BaseFeaturesExtractor):   # the same network as rlnb's: Nature CNN or MinAtar's
        def __init__(self, space):
            net = NETS[cfg.net](torch.zeros(1, *space.shape, dtype=torch.uint8))
            super().__init__(space, net.features); self.net = net
        def forward(self, x): return self.net(x)
    from stable_baselines3.common.vec_env import SubprocVecEnv
    n = getattr(cfg, 'n_envs', 1)
    sub = cfg.preprocess == 'atari' and n > 1   # Atari envs step in worker processes, as rlnb's do
    venv = make_vec_env(lambda: PREPROCESS[cfg.preprocess](env), n_envs=n, seed=seed, vec_env_cls=SubprocVecEnv if sub else None)
    kw = dict(policy_kwargs=dict(features_extractor_class=Body, normalize_images=False), seed=seed, device=device, verbose=0)
    if type(cfg).__name__ == 'DQNConfig':
        from rlnb.presets import LinearHead, Quantile, GreedyBootstrap, HardTarget
        if type(cfg.head) not in (LinearHead, Quantile) or getattr(cfg.head, 'dueling', False) or cfg.prioritized or cfg.n_step > 1 \
                or cfg.bootstrap != GreedyBootstrap() or type(cfg.target) is not HardTarget:
            raise ValueError(f"--vs-sb3 compares {p.algo} with SB3's DQN or sb3-contrib's QRDQN, which have none of head={cfg.head!r}, prioritized, n-step, "
                             "double or a soft target: set head=linear or quantile, prioritized=none, n_step=1, bootstrap=greedy, target=hard.")
        kw['policy_kwargs'].update(net_arch=[], optimizer_class=torch.optim.Adam, optimizer_kwargs=dict(eps=cfg.adam_eps))   # Adam's ε as rlnb's (sb3-contrib's QRDQN would take 0.01 / batch)
        if type(cfg.head) is Quantile:
            from sb3_contrib import QRDQN
            kw['policy_kwargs']['n_quantiles'], DQN = cfg.head.n_quantiles, QRDQN   # sb3-contrib's: the same arguments, a head of A x N quantiles
        return DQN('MlpPolicy', venv, learning_rate=cfg.lr, buffer_size=cfg.buffer, learning_starts=cfg.learning_starts, batch_size=cfg.bs, gamma=cfg.gamma,
                   train_freq=cfg.train_every, gradient_steps=cfg.updates, target_update_interval=cfg.target.every_opt_steps * cfg.train_every // cfg.updates,
                   exploration_fraction=cfg.exploration.fraction, exploration_initial_eps=cfg.exploration.start, exploration_final_eps=cfg.exploration.end,
                   max_grad_norm=cfg.grad_clip or 1e9, **kw)
    lin = lambda x: (lambda f: f * x)
    kw['policy_kwargs']['net_arch'] = dict(pi=[], vf=[])
    return PPO('MlpPolicy', venv, learning_rate=lin(cfg.lr) if cfg.lr_schedule == 'linear' else cfg.lr, n_steps=cfg.n_steps, batch_size=cfg.bs, n_epochs=cfg.n_epochs,
               gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, clip_range=lin(cfg.clipping.epsilon) if cfg.clipping.schedule == 'linear' else cfg.clipping.epsilon, ent_coef=cfg.ent_coef,
               vf_coef=cfg.vf_coef, max_grad_norm=cfg.grad_clip or 1e9, **kw)

def run_vs_sb3(algo, env, seed, overrides, steps, device='cpu', only=None, threads=1, stop=None):
    "One seed of `algo` on `env`: rlnb's and SB3's evaluation curves (env step, mean score), the same evaluation for both, each point printed as it comes; and random's score. `only`: one side's alone. `threads`: torch's threads (0: torch's default, one per core, what `rlnb train` gives a CNN). `stop`: end each run at its evaluation at this env step, its schedules still those of `steps`"
    import torch
    if threads: torch.set_num_threads(threads)
    from stable_baselines3.common.callbacks import BaseCallback
    from rlnb.presets import get_preset, with_changes
    from rlnb.rl import run_envs
    from rlnb.data.eval import evaluate
    from rlnb.agent import RandomAgent
    p = get_preset(algo, env)
    steps = steps or p.cfg.total_steps
    cfg = with_changes(p.cfg, dict(overrides, total_steps=steps, eval_every=10**12, device=device))   # (a given eval_every spaces the curve instead)
    envs = run_envs(env, 10, cfg=cfg, train=False)
    def score(agent, lib, step):
        s = evaluate(envs, agent, 20, seed=10_000).mean
        print(f'{algo} {env} seed {seed} {lib} {step:,} steps: {s:.2f}', flush=True)
        return s
    every = overrides.get('eval_every', p.cfg.eval_every)   # the curve's spacing (`--set '{"eval_every": N}'`); the runs themselves evaluate nothing
    points = sorted({*range(every, steps, every), steps})
    if stop: points = [x for x in points if x < stop] + [stop]
    class Curve(BaseCallback):   # SB3: evaluate at the same env steps
        def __init__(self, agent): super().__init__(); self.agent, self.todo, self.curve = agent, list(points), []
        def _on_step(self):
            while self.todo and self.num_timesteps >= self.todo[0]: step = self.todo.pop(0); self.curve.append((step, score(self.agent, 'sb3', step)))
            return bool(self.todo)   # False: SB3 stops (after `stop`'s evaluation)
    out = dict(seed=seed)
    if only != 'sb3':
        t0 = time.perf_counter()
        learn = cfg.learner(env, seed, progress=False)
        rl_curve, todo = [], list(points)
        from rlnb.callback import Callback
        from rlnb.loop import CancelFitException
        class RlCurve(Callback):
            order = 19
            def after_batch(self):
                while todo and self.learn.env_step >= todo[0]:
                    step = todo.pop(0); rl_curve.append((step, score(self.learn.evaluator.eval_agent, 'rlnb', step)))
                if not todo: raise CancelFitException()   # the last point evaluated: the run ends here (`stop`)
        learn.add_cbs([RlCurve()])
        with learn: learn.train()
        if todo: rl_curve.append((steps, score(learn.evaluator.eval_agent, 'rlnb', steps)))
        out.update(rlnb=rl_curve[-1][1], rlnb_curve=rl_curve, rlnb_wall_s=round(time.perf_counter() - t0))
        out['random'] = score(RandomAgent(envs.single_action_space, seed=seed), 'random', 0)
    if only != 'rlnb':
        t0 = time.perf_counter()
        model = sb3_model(p, cfg, env, seed, device)
        cb = Curve(SB3Agent(model)); model.learn(steps, callback=cb)
        if cb.todo: cb.curve.append((steps, score(cb.agent, 'sb3', steps)))
        out.update(sb3=cb.curve[-1][1], sb3_curve=cb.curve, sb3_wall_s=round(time.perf_counter() - t0))
    envs.close()
    return out

def main_vs_sb3(a, overrides):
    from rlnb.presets import get_preset
    rows = []
    with ProcessPoolExecutor(a.workers) as ex:
        for algo in a.algos.split(','):
            env = a.env or get_preset(algo).env
            n = a.seeds
            res = list(ex.map(run_vs_sb3, [algo] * n, [env] * n, range(a.first_seed, a.first_seed + n), [overrides] * n, [a.steps] * n, [a.device] * n, [a.only] * n, [a.threads] * n, [a.stop] * n))
            rows.append(vs_row(algo, env, overrides, res, a.device))
    report(rows, a.save)

def vs_row(algo, env, overrides, res, device='cpu'):
    "A result row of --vs-sb3 from its seeds' results: medians of the sides present, printed"
    med = lambda k: statistics.median(r[k] for r in res) if all(k in r for r in res) else None
    steps = next(r[f'{lib}_curve'][-1][0] for r in res for lib in ('rlnb', 'sb3') if f'{lib}_curve' in r)
    row = dict(algo=algo, env=env, steps=steps, seeds=len(res), overrides=overrides, device=device, rlnb_median=med('rlnb'), sb3_median=med('sb3'), random_median=med('random'), per_seed=res)
    print(f"{algo} {env} {steps:,} steps: " + ', '.join(f"{name} median {row[k + '_median']:.2f} {[round(r[k], 2) for r in res]}" for k, name in (('rlnb', 'rlnb'), ('sb3', 'SB3'), ('random', 'random'))
                                                   if row[k + '_median'] is not None), flush=True)
    return row

def merge(files, save):
    "One --vs-sb3 result from several (each seed's sides run apart, say): a row per algorithm and env, each seed's sides joined"
    seeds, sources = {}, []
    for f in files:
        d = json.load(open(f))
        sources += d.get('sources') or [{k: v for k, v in d.items() if k != 'result'}]   # where each joined run came from
        for row in d['result']:
            for r in row['per_seed']: seeds.setdefault((row['algo'], row['env'], json.dumps(row['overrides']), row.get('device', 'cpu')), {}).setdefault(r['seed'], {}).update(r)
    report([vs_row(algo, env, json.loads(ov), [s[k] for k in sorted(s)], dev) for (algo, env, ov, dev), s in seeds.items()], save, sources)

def plot_results(files, out):
    "Learning curves from --vs-sb3 result files: one panel per algorithm and env, rlnb and SB3 (median over seeds, min to max shaded), random dashed"
    import matplotlib; matplotlib.use('Agg')
    import matplotlib.pyplot as plt, numpy as np
    rows = [r for f in files for r in json.load(open(f))['result']]
    fig, axes = plt.subplots(1, len(rows), figsize=(4.2 * len(rows), 3.2), squeeze=False)
    for ax, row in zip(axes[0], rows):
        for lib, color in (('rlnb', 'C0'), ('sb3', 'C1')):
            curves = [np.array(s[f'{lib}_curve']) for s in row['per_seed']]
            x, y = curves[0][:, 0], np.stack([c[:, 1] for c in curves])
            ax.plot(x, np.median(y, 0), color=color, label=f"{'SB3' if lib == 'sb3' else 'rlnb'} (median of {len(curves)})")
            ax.fill_between(x, y.min(0), y.max(0), color=color, alpha=0.2)
        ax.axhline(row['random_median'], color='gray', ls='--', label='random')
        ax.set_title(f"{row['algo']} on {row['env']}", fontsize=9); ax.set_xlabel('env steps'); ax.set_ylabel('score (20 greedy episodes)')
    axes[0][0].legend(fontsize=8)
    fig.tight_layout(); fig.savefig(out, dpi=110)
    print(f'wrote {out}')

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--algos', help='comma-separated presets (default: every preset without pixels)')
    ap.add_argument('--env', help="the env (default: each preset's own)")
    ap.add_argument('--seeds', type=int, default=10)
    ap.add_argument('--first-seed', type=int, default=0, help='seeds run from this one on (to add seeds to an earlier result)')
    ap.add_argument('--workers', type=int, default=2)
    ap.add_argument('--learners', type=int, default=1, help='train each seed in a learner group of this many processes, one torch thread each (`rlnb.learners`; use --workers 1)')
    ap.add_argument('--set', default='{}', help='JSON dict of hyperparameter overrides')
    ap.add_argument('--vs-sb3', action='store_true', help="train the whole budget and compare final scores with SB3's on the same settings")
    ap.add_argument('--steps', type=int, help='--vs-sb3: env steps of each run (default: the preset\'s)')
    ap.add_argument('--device', default='cpu', help="--vs-sb3: the torch device of both libraries' networks")
    ap.add_argument('--threads', type=int, default=1, help="--vs-sb3: torch threads of each run (0: one per core, as `rlnb train` gives a CNN preset)")
    ap.add_argument('--stop', type=int, help='--vs-sb3: end each run at its evaluation at this env step, its schedules (learning rate, clip range, ε) still those of --steps')
    ap.add_argument('--only', choices=('rlnb', 'sb3'), help='--vs-sb3: train one side only (join the results with --merge)')
    ap.add_argument('--merge', nargs='+', metavar='RESULTS', help='--vs-sb3 result files to join into one (with --save)')
    add_save(ap)
    ap.add_argument('--plot', nargs='+', metavar=('OUT', 'RESULTS'), help='plot the curves of --vs-sb3 result files into the image OUT')
    a = ap.parse_args()
    if a.plot: return plot_results(a.plot[1:], a.plot[0])
    if a.merge: return merge(a.merge, a.save)
    overrides, rows = json.loads(a.set), []
    from rlnb.presets import PRESETS, get_preset
    a.algos = a.algos or ','.join(n for n, p in PRESETS.items() if p.cfg.preprocess is None)
    if a.vs_sb3: return main_vs_sb3(a, overrides)
    with ProcessPoolExecutor(a.workers) as ex:
        for algo in a.algos.split(','):
            res = list(ex.map(run_one, [algo] * a.seeds, [a.env] * a.seeds, range(a.first_seed, a.first_seed + a.seeds), [overrides] * a.seeds, [a.learners] * a.seeds))
            solved = [r['solved_at'] for r in res if r['solved_at'] is not None]
            p = get_preset(algo, a.env)
            row = dict(algo=algo, env=p.env, seeds=a.seeds, **({'learners': a.learners} if a.learners > 1 else {}), threshold=res[0]['threshold'], budget=p.cfg.total_steps, solved=len(solved),
                       median_steps_to_threshold=statistics.median(solved) if solved else None,
                       median_wall_s=round(statistics.median(r['wall_s'] for r in res), 1),
                       per_seed=[r['solved_at'] for r in res], per_seed_wall_s=[round(r['wall_s'], 1) for r in res], curves=[r['curve'] for r in res])
            rows.append(row)
            print(f"{algo:<14} {p.env:<16} solved {len(solved):>2}/{a.seeds}  median steps {row['median_steps_to_threshold']}  "
                  f"median wall {row['median_wall_s']} s  per seed {row['per_seed']} ({row['per_seed_wall_s']} s)", flush=True)
    report(rows, a.save)

if __name__ == '__main__': main()
