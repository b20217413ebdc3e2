"""Offline RL on datasets rlnb records itself: five kinds of dataset per env, each offline algorithm on each, 3 seeds.

The datasets (D4RL's kinds), all recorded with rlnb's own commands from its presets:
  expert          the preset trained to its budget (`rlnb train sac|dqn`), its agent played (`rlnb record`)
  medium          a run of the preset stopped at its first evaluation at least halfway from random to the expert
                  (`--set threshold=MID --set stop_when_solved=true`), its agent played
  medium-replay   every transition that medium run collected (`rlnb train ... --record`)
  random          uniformly random actions
  medium-expert   medium and expert joined (`combine_datasets`)
The expert, medium and random datasets hold EPISODES episodes each (Pendulum: 500 of 200 steps, 100,000 transitions;
CartPole: episodes end when the pole falls). A sampling policy (SAC's) samples its actions; DQN's greedy agent acts with
ε = 0.1 random actions (`--noise`).
Normalised score: 100 * (return - random) / (expert - random), the random policy's mean return over 100 episodes and the
expert run's final evaluation (20 episodes). Every offline run: UPDATES learner steps, batch 256, networks (256, 256)
(the configs' defaults), evaluated on 10 episodes every UPDATES / 5 steps; the score is its final evaluation's.
One torch thread, one run at a time; the runs' directories and the datasets stay in --work (resumable: a finished run
is read back, not trained again). Ends with one JSON line; --save FILE keeps it with its provenance.

    python bench/offline.py --env Pendulum-v1 --updates 10000 --save bench/results/offline_pendulum.json
    python bench/offline.py --env CartPole-v1 --algos bc,cql,iql --updates 10000 --save bench/results/offline_cartpole.json
    python bench/offline.py --env Pendulum-v1 --kinds medium,medium-replay --algos cql   # a part of the table
"""
import argparse, json, os, statistics, sys, time
from pathlib import Path
from record import add_save, report, provenance

SETUPS = {'Pendulum-v1': dict(online='sac', tag='pendulum', noise=0., algos='bc,td3bc,cql,iql'),
          'CartPole-v1': dict(online='dqn', tag='cartpole', noise=0.1, algos='bc,cql,iql')}
KINDS = ('random', 'medium-replay', 'medium', 'expert', 'medium-expert')


def references(env, work, online):
    "`(random, expert, medium_run)`: the scores' 0 and 100, and the medium run's directory; trains what is missing"
    from rlnb.train import train_run
    from rlnb.runs import run_summary
    from rlnb.agents.offline.core import random_return
    tag = SETUPS[env]['tag']
    lo = random_return(env, 100)
    if run_summary(work/'expert') is None:
        train_run(online, env, seed=100, out=work/'expert', progress=False, resume=True)
    hi = run_summary(work/'expert')['final_eval_mean']
    if run_summary(work/'medium') is None:   # stopped at its first evaluation halfway up, its transitions recorded
        train_run(online, env, seed=101, out=work/'medium', progress=False, resume=True,
                  record=f'{tag}/medium-replay-v0',
                  changes=dict(threshold=(lo + hi) / 2, stop_when_solved=True, eval_every=250))
    return lo, hi


def datasets(env, work, lo, hi, episodes):
    "Record the five datasets of `env` that are not there yet; `{kind: id}`"
    import numpy as np
    from rlnb.memory.dataset import dataset_root, combine_datasets
    from rlnb.agents.offline.core import record_dataset
    from rlnb.offline import record_run
    import gymnasium as gym
    s, tag = SETUPS[env], SETUPS[env]['tag']
    ids = {k: f'{tag}/{k}-v0' for k in KINDS}
    have = lambda k: (dataset_root()/ids[k]).exists()
    space = gym.make(env).action_space; space.seed(7)
    if not have('random'):
        record_dataset(ids['random'], env, lambda obs: np.asarray([space.sample()]), episodes, algorithm='random',
                       expert_return=hi, random_score=lo)
    for k in ('medium', 'expert'):
        if not have(k): record_run(work/k, ids[k], episodes, s['noise'], seed=1000, expert_return=hi)
    if not have('medium-expert'): combine_datasets([ids['medium'], ids['expert']], ids['medium-expert'])
    return ids


def one(algo, dataset, seed, updates, work, kind):
    "One offline run (or the summary of one that finished); its score is computed by the caller"
    import torch
    torch.set_num_threads(1)
    from rlnb.offline import train_offline
    from rlnb.runs import run_summary
    out = work/f'{algo}-{kind}-s{seed}'
    s = run_summary(out) or train_offline(algo, dataset, updates=updates, seed=seed, out=out, progress=False, resume=True,
                                          changes=dict(eval_every=max(1, updates // 5)), ckpt_every=updates)
    metrics = [l.split(',') for l in (out/'metrics.csv').read_text().splitlines()[1:]]
    curve = [(int(x), round(float(v), 2)) for x, name, v, *_ in metrics if name == 'eval_return']
    return dict(s, curve=curve)


def save_partial(result, path):
    "Write the rows so far to `path` as `--save` would, marked partial"
    Path(path).write_text(json.dumps(dict(provenance(), result=result), indent=1) + '\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--env', default='Pendulum-v1', choices=SETUPS)
    ap.add_argument('--algos', help='offline algorithms (default: every one that fits the env)')
    ap.add_argument('--kinds', default=','.join(KINDS))
    ap.add_argument('--seeds', type=int, default=3)
    ap.add_argument('--updates', type=int, default=10_000)
    ap.add_argument('--episodes', type=int, help='episodes per recorded dataset (default: Pendulum 500, CartPole 200)')
    ap.add_argument('--work', default='runs/offline-bench', help='run directories and datasets (kept: resumable)')
    add_save(ap)
    a = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    work = Path(a.work)/SETUPS[a.env]['tag']; work.mkdir(parents=True, exist_ok=True)
    os.environ['MINARI_DATASETS_PATH'] = str(Path(a.work).resolve()/'datasets')
    from rlnb.memory.dataset import read_dataset
    lo, hi = references(a.env, work, SETUPS[a.env]['online'])
    ids = datasets(a.env, work, lo, hi, a.episodes or (500 if a.env == 'Pendulum-v1' else 200))
    score = lambda r: None if r is None else round(100 * (r - lo) / (hi - lo), 1)
    info = {}
    for k, i in ids.items():
        d = read_dataset(i)
        rets = [float(e.reward.sum()) for e in d.episodes]
        info[k] = dict(id=i, episodes=len(d.episodes), transitions=d.n_transitions, mean_return=round(statistics.mean(rets), 1),
                       score=score(statistics.mean(rets)))
        print(f'{k}: {info[k]}', file=sys.stderr)
    rows = []
    for k in a.kinds.split(','):
        for algo in (a.algos or SETUPS[a.env]['algos']).split(','):
            runs = [one(algo, ids[k], s, a.updates, work, k) for s in range(a.seeds)]
            sc = [score(r['final_eval_mean']) for r in runs]
            rows.append(dict(kind=k, algo=algo, scores=sc, mean=round(statistics.mean(sc), 1), updates=a.updates,
                             wall_ms_per_update=round(statistics.median(r['wall_s'] for r in runs) / a.updates * 1000, 2),
                             curves=[r['curve'] for r in runs]))
            print(f"{k:<14} {algo:<6} {sc} mean {rows[-1]['mean']}", file=sys.stderr)
            if a.save: save_partial(dict(env=a.env, random=round(lo, 1), expert=round(hi, 1), datasets=info, rows=rows,
                                         partial=True), a.save)   # a table cut short keeps its finished rows
    report(dict(env=a.env, random=round(lo, 1), expert=round(hi, 1), datasets=info, rows=rows), a.save)


if __name__ == '__main__': main()
