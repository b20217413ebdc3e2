"""rlnb's CQL, IQL and TD3+BC against d3rlpy's on one dataset: normalised score and process CPU time per update.

Both sides train on the same Minari dataset (default: bench/offline.py's Pendulum medium-replay), with the same networks
((256, 256) for every actor, critic and value), batch (256), discount (0.99), learning rates, Polyak rate and each
algorithm's own hyperparameters (CQL: α = 5 fixed, no Lagrangian; 10 actions per state and proposal. IQL: expectile 0.7,
β = 3, weights at most 100. TD3+BC: α = 2.5, policy delay 2, smoothing 0.2 clipped at 0.5), for UPDATES learner steps,
then 10 greedy episodes in the env. Each side runs in a process of its own, one torch thread, and times its training
loop alone (`time.process_time` around it: no evaluation, no logging); the sides alternate per seed, and the ratio is the
median of the per-seed ratios.

d3rlpy pins gymnasium 1.0.0, so it runs in its own environment, made once:

    python -m venv .venv-d3rlpy && .venv-d3rlpy/bin/pip install torch==2.13.0 d3rlpy "minari[hdf5]"

Its Minari reader, `d3rlpy.datasets.get_minari`, stacks each episode's T + 1 observations against its T actions (the
misalignment of d3rlpy #466); this bench builds d3rlpy's MDPDataset itself from the first T observations of each episode.

The medium-replay dataset is a run's recording (`--record`), which names no reference scores: give the random policy's
mean return and the expert run's final evaluation, as bench/offline.py measured them (its table's `random` and `expert`).

    python bench/offline_vs_d3rlpy.py --d3rlpy .venv-d3rlpy/bin/python --random -1207.56 --expert -146.84 \
        --save bench/results/offline_vs_d3rlpy.json
    python bench/offline_vs_d3rlpy.py --algos iql --seeds 1 --updates 2000 --random -1207.56 --expert -146.84
"""
import argparse, json, os, statistics, subprocess, sys, time
from pathlib import Path
from record import add_save, report

HERE = Path(__file__).resolve()


def rlnb_side(algo, dataset, seed, updates):
    "Train rlnb's `algo` for `updates` steps (timed alone), then evaluate 10 greedy episodes"
    import torch
    torch.set_num_threads(1)
    from rlnb.memory.dataset import read_dataset
    from rlnb.offline_presets import offline_config
    data = read_dataset(dataset)
    cfg = offline_config(algo, data.action_space, dict(updates=updates, eval_every=10 * updates, eval_episodes=10))
    with cfg.build(data, seed=seed, progress=False) as learn:
        t0 = time.process_time(); learn.fit(updates); cpu = time.process_time() - t0
        res = learn.evaluator.final(learn.opt_step)
    return dict(mean=res.mean, cpu_s=cpu, updates=updates)


def d3rlpy_side(algo, dataset, seed, updates):
    "Train d3rlpy's `algo` with rlnb's settings for `updates` steps (timed alone), then evaluate 10 greedy episodes"
    import numpy as np, torch, gymnasium as gym, minari, d3rlpy
    from d3rlpy.models import VectorEncoderFactory
    torch.set_num_threads(1)
    d3rlpy.seed(seed)
    ds = minari.load_dataset(dataset)
    eps = list(ds.iterate_episodes())
    cat = lambda f: np.concatenate([f(e) for e in eps])
    mdp = d3rlpy.dataset.MDPDataset(observations=cat(lambda e: e.observations[:-1]), actions=cat(lambda e: e.actions),
                                    rewards=cat(lambda e: e.rewards), terminals=cat(lambda e: e.terminations),
                                    timeouts=cat(lambda e: e.truncations))
    enc = dict(actor_encoder_factory=VectorEncoderFactory([256, 256]), critic_encoder_factory=VectorEncoderFactory([256, 256]),
               batch_size=256, gamma=0.99, tau=0.005)
    make = dict(
        cql=lambda: d3rlpy.algos.CQLConfig(actor_learning_rate=1e-4, critic_learning_rate=3e-4, temp_learning_rate=1e-4,
                                           alpha_learning_rate=0.0, initial_alpha=1.0, conservative_weight=5.0,
                                           n_action_samples=10, initial_temperature=1.0, **enc),
        iql=lambda: d3rlpy.algos.IQLConfig(actor_learning_rate=3e-4, critic_learning_rate=3e-4, expectile=0.7,
                                           weight_temp=3.0, max_weight=100.0,
                                           value_encoder_factory=VectorEncoderFactory([256, 256]), **enc),
        td3bc=lambda: d3rlpy.algos.TD3PlusBCConfig(actor_learning_rate=3e-4, critic_learning_rate=3e-4, alpha=2.5,
                                                   update_actor_interval=2, target_smoothing_sigma=0.2,
                                                   target_smoothing_clip=0.5, **enc))
    agent = make[algo]().create(device='cpu:0')
    agent.build_with_dataset(mdp)
    from d3rlpy.logging import NoopAdapterFactory
    t0 = time.process_time()
    agent.fit(mdp, n_steps=updates, n_steps_per_epoch=updates, show_progress=False, logger_adapter=NoopAdapterFactory(),
              save_interval=10 ** 9)
    cpu = time.process_time() - t0
    env, rets = gym.make(ds.spec.env_spec.id), []
    for k in range(10):
        obs, _ = env.reset(seed=10_000 + k); done, total = False, 0.
        while not done:
            obs, r, term, trunc, _ = env.step(agent.predict(obs[None].astype(np.float32))[0]); total += r
            done = term or trunc
        rets.append(total)
    return dict(mean=float(np.mean(rets)), cpu_s=cpu, updates=updates)


def side(python, name, algo, dataset, seed, updates):
    "One side's run in a process of its own; its JSON line"
    r = subprocess.run([python, str(HERE), '--side', name, '--algos', algo, '--dataset', dataset, '--seed', str(seed),
                        '--updates', str(updates)], capture_output=True, text=True, env=os.environ)
    if r.returncode: sys.exit(f'{name} {algo} seed {seed} failed:\n{r.stderr[-3000:]}')
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--algos', default='cql,iql,td3bc')
    ap.add_argument('--dataset', default='pendulum/medium-replay-v0')
    ap.add_argument('--datasets-path', default='runs/offline-bench/datasets', help="MINARI_DATASETS_PATH (bench/offline.py's)")
    ap.add_argument('--seeds', type=int, default=3)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--updates', type=int, default=10_000)
    ap.add_argument('--d3rlpy', default='.venv-d3rlpy/bin/python', help="the Python of d3rlpy's environment")
    ap.add_argument('--random', type=float, help='the score 0 (default: the dataset\'s ref_min_score)')
    ap.add_argument('--expert', type=float, help='the score 100 (default: the dataset\'s ref_max_score)')
    ap.add_argument('--side', choices=('rlnb', 'd3rlpy'), help=argparse.SUPPRESS)
    add_save(ap)
    a = ap.parse_args()
    os.environ.setdefault('MINARI_DATASETS_PATH', str(Path(a.datasets_path).resolve()))
    if a.side:
        print(json.dumps((rlnb_side if a.side == 'rlnb' else d3rlpy_side)(a.algos, a.dataset, a.seed, a.updates))); return
    if a.random is None or a.expert is None:
        from rlnb.memory.dataset import read_dataset
        ref = json.loads((Path(os.environ['MINARI_DATASETS_PATH'])/a.dataset/'data'/'metadata.json').read_text())
        a.random = a.random if a.random is not None else ref.get('ref_min_score')
        a.expert = a.expert if a.expert is not None else ref.get('ref_max_score')
    if a.random is None or a.expert is None: sys.exit(f"{a.dataset} has no reference scores: give --random and --expert (bench/offline.py's table has both).")
    score = lambda m: round(100 * (m - a.random) / (a.expert - a.random), 1)
    rows = []
    for algo in a.algos.split(','):
        runs = []
        for s in range(a.seeds):
            order = ('rlnb', 'd3rlpy') if s % 2 == 0 else ('d3rlpy', 'rlnb')   # alternate which side runs first
            got = {n: side(sys.executable if n == 'rlnb' else a.d3rlpy, n, algo, a.dataset, s, a.updates) for n in order}
            runs.append(got)
            print(f"{algo} seed {s}: rlnb {got['rlnb']['mean']:.1f} ({got['rlnb']['cpu_s']:.1f} s), "
                  f"d3rlpy {got['d3rlpy']['mean']:.1f} ({got['d3rlpy']['cpu_s']:.1f} s)", file=sys.stderr)
        per = lambda n: [r[n] for r in runs]
        rows.append(dict(algo=algo, rlnb_scores=[score(r['mean']) for r in per('rlnb')],
                         d3rlpy_scores=[score(r['mean']) for r in per('d3rlpy')],
                         rlnb_ms_per_update=round(statistics.median(r['cpu_s'] for r in per('rlnb')) / a.updates * 1e3, 2),
                         d3rlpy_ms_per_update=round(statistics.median(r['cpu_s'] for r in per('d3rlpy')) / a.updates * 1e3, 2),
                         cpu_ratio=round(statistics.median(x['rlnb']['cpu_s'] / x['d3rlpy']['cpu_s'] for x in runs), 3)))
        rows[-1] |= dict(rlnb_mean=round(statistics.mean(rows[-1]['rlnb_scores']), 1),
                         d3rlpy_mean=round(statistics.mean(rows[-1]['d3rlpy_scores']), 1))
    report(dict(dataset=a.dataset, updates=a.updates, seeds=a.seeds, random=a.random, expert=a.expert, rows=rows), a.save)


if __name__ == '__main__': main()
