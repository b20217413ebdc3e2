"""Does it learn? Train each algorithm with its preset over several seeds and count the solved ones.

For each algorithm: seeds solved (first evaluation mean >= the preset's threshold, 20 deterministic
episodes, within the preset's env-step budget), median env steps to that first evaluation (over the
solved seeds), median wall seconds per run. Runs stop at the first solving evaluation. Seeds run in
parallel worker processes (one torch thread each). Ends with one JSON line: a list of rows.

    python bench/learn.py [--algos dqn,double_dqn] [--env CartPole-v1] [--seeds 10] [--workers 2]
                          [--set '{"lr": 1e-3}']   # override preset hyperparameters (for tuning)
    python bench/learn.py --algos ppo --env Pendulum-v1 --seeds 5   # the tuned Pendulum preset (threshold -300, 200k steps)
    python bench/learn.py --algos ppo --seeds 5 --workers 1 --set '{"runners": 2}'   # collecting in 2 Ray runners
"""
import argparse, json, statistics, time
from concurrent.futures import ProcessPoolExecutor

def run_one(algo, env, seed, overrides):
    import torch
    torch.set_num_threads(1)
    from rlnb.presets import get_preset
    p = get_preset(algo, env)
    with p.learner(seed=seed, progress=False, stop_when_solved=True, **overrides) as learn:   # closed after: env workers and Ray runners end with the run
        t0 = time.perf_counter(); learn.train(); wall = time.perf_counter() - t0
        ev = learn.evaluator
        return dict(seed=seed, solved_at=ev.solved_at, wall_s=wall, eval_s=ev.wall, last_eval=learn.metrics.last('eval_return'))

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--algos', default='dqn_notarget,dqn,prioritized_dqn,double_dqn,dueling_dqn,c51,ppo,reinforce')
    ap.add_argument('--env', default='CartPole-v1')
    ap.add_argument('--seeds', type=int, default=10)
    ap.add_argument('--workers', type=int, default=2)
    ap.add_argument('--set', default='{}', help='JSON dict of hyperparameter overrides')
    a = ap.parse_args()
    overrides, rows = json.loads(a.set), []
    with ProcessPoolExecutor(a.workers) as ex:
        for algo in a.algos.split(','):
            res = list(ex.map(run_one, [algo] * a.seeds, [a.env] * a.seeds, range(a.seeds), [overrides] * a.seeds))
            solved = [r['solved_at'] for r in res if r['solved_at'] is not None]
            row = dict(algo=algo, env=a.env, seeds=a.seeds, solved=len(solved),
                       median_steps_to_threshold=statistics.median(solved) if solved else None,
                       median_wall_s=round(statistics.median(r['wall_s'] for r in res), 1),
                       per_seed=[r['solved_at'] for r in res])
            rows.append(row)
            print(f"{algo:<14} {a.env:<14} solved {len(solved):>2}/{a.seeds}  median steps {row['median_steps_to_threshold']}  "
                  f"median wall {row['median_wall_s']} s  per seed {row['per_seed']}", flush=True)
    print(json.dumps(rows))

if __name__ == '__main__': main()
