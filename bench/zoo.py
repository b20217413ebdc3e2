"""rlnb's zoo presets (19a) against rl-baselines3-zoo's benchmark.md: each row trained to the zoo's budget, 3 seeds.

Each (algo, env) row: `rlnb train ALGO --env ENV --seed S` with the preset rlnb picks for the pair (rl-baselines3-zoo's
tuned settings, `rlnb.zoo`), to its whole budget (no stop when solved), one torch thread; the score is the run's final
evaluation (20 deterministic episodes, `summary.json`'s `final_eval_mean`). The row's median over seeds is set beside the
zoo's `mean_reward` and `std_reward` (one trained agent per row there, evaluated over ~150,000 env steps); `met` is the
issue's target: median >= zoo mean - zoo std. The run directories stay in --work (resumable: a finished run is read back,
not trained again); with --save, finished rows are written as they come (`partial: true` until the end), beside the rows
the file already holds for other pairs (a pair run again replaces its row). Ends with one JSON line.

    python bench/zoo.py --rows dqn:MountainCar-v0,qrdqn:Acrobot-v1 --save bench/results/zoo.json
    python bench/zoo.py                          # every row (hours on 2 cores: PPO's 1M-step rows are the long ones)
"""
import argparse, json, statistics, sys, time
from pathlib import Path
from record import add_save, report, provenance

# rl-baselines3-zoo's benchmark.md (mean_reward, std_reward); LunarLander's rows are its LunarLander-v2's
ZOO_SCORES = {('dqn', 'LunarLander-v3'): (154.382, 79.241), ('dqn', 'MountainCar-v0'): (-100.849, 9.925),
              ('dqn', 'Acrobot-v1'): (-76.639, 11.752), ('qrdqn', 'LunarLander-v3'): (70.236, 225.491),
              ('qrdqn', 'MountainCar-v0'): (-106.042, 15.536), ('qrdqn', 'Acrobot-v1'): (-69.135, 9.967),
              ('ppo', 'LunarLander-v3'): (242.119, 31.823), ('ppo', 'MountainCar-v0'): (-110.423, 19.473),
              ('ppo', 'Acrobot-v1'): (-73.506, 18.201), ('a2c', 'LunarLander-v3'): (155.751, 80.419),
              ('a2c', 'MountainCar-v0'): (-111.263, 24.087), ('a2c', 'Acrobot-v1'): (-83.353, 17.213),
              ('td3', 'MountainCarContinuous-v0'): (93.483, 0.075)}


def one(algo, env, seed, work):
    "One run to its budget (or the summary of one that finished)"
    from rlnb.train import train_run
    from rlnb.runs import run_summary
    out = work/f'{algo}-{env}-s{seed}'
    t0 = time.time()
    s = run_summary(out) or train_run(algo, env, seed=seed, out=out, progress=False, resume=True)
    return dict(s, wall_s=s.get('wall_s', round(time.time() - t0, 1)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--rows', default=','.join(f'{a}:{e}' for a, e in ZOO_SCORES), help='ALGO:ENV,... (default: all)')
    ap.add_argument('--seeds', type=int, default=3)
    ap.add_argument('--work', default='runs/zoo-bench', help='run directories (kept: resumable)')
    add_save(ap)
    a = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    from rlnb.zoo import ZOO
    work = Path(a.work); work.mkdir(parents=True, exist_ok=True)
    old = json.loads(Path(a.save).read_text()) if a.save and Path(a.save).exists() else None
    kept = old['result']['rows'] if old else []                        # the rows of earlier commands, kept
    src = (old.get('sources', []) + [{k: old[k] for k in ('command', 'date')}]) if old else None
    rows = []
    for r in a.rows.split(','):
        algo, env = r.split(':')
        if (algo, env) not in ZOO: sys.exit(f'zoo.py: no zoo preset for {algo} on {env}; rows: {", ".join(f"{x}:{y}" for x, y in ZOO)}')
        runs = [one(algo, env, s, work) for s in range(a.seeds)]
        scores = [round(x['final_eval_mean'], 1) for x in runs]
        zm, zs = ZOO_SCORES[algo, env]
        med = statistics.median(scores)
        rows.append(dict(algo=algo, env=env, steps=ZOO[algo, env][0].total_steps, scores=scores, median=med, zoo_mean=zm,
                         zoo_std=zs, met=med >= zm - zs, wall_s=[x['wall_s'] for x in runs]))
        print(f"{algo:<6} {env:<16} {scores} median {med} zoo {zm} ± {zs} {'met' if rows[-1]['met'] else 'NOT met'}", file=sys.stderr)
        done = {(x['algo'], x['env']) for x in rows}
        every = [x for x in kept if (x['algo'], x['env']) not in done] + rows   # the file's other rows stay
        if a.save: Path(a.save).write_text(json.dumps(dict(provenance(), **({'sources': src} if src else {}),
                                                          result=dict(rows=every, partial=True)), indent=1) + '\n')
    done = {(x['algo'], x['env']) for x in rows}
    report(dict(rows=[x for x in kept if (x['algo'], x['env']) not in done] + rows), a.save, src)


if __name__ == '__main__': main()
