"""Offline to online: IQL on Pendulum medium, then SAC online from it (`rlnb train sac --from RUN`), beside SAC from scratch.

Both online runs are the `sac` Pendulum preset (20,000 env steps, lr 1e-3, (256, 256) networks), evaluated on 20
episodes every EVAL env steps, to the end of the budget. Read from their evaluations: the first env step at or above
the expert's score (the expert run's final evaluation, the 100 of bench/offline.py's normalised scores), and at or
above a normalised score of 95. The continued run starts from the IQL run of the
same seed in bench/offline.py's table (10,000 updates on pendulum/medium-v0): its policy and critics carried, its
100,000 transitions in the replay, no random actions first; from scratch, SAC acts randomly for its first 100 steps.
Reported per seed: the env steps to each threshold (None: not within the budget), each run's evaluations, and the
IQL run's own final evaluation. Needs bench/offline.py's work directory (run it first for Pendulum-v1); one torch
thread, one run at a time; finished runs are read back, not trained again. Ends with one JSON line.

    python bench/offline_to_online.py --save bench/results/offline_to_online_pendulum.json
"""
import argparse, json, os, statistics, sys
from pathlib import Path
from record import add_save, report


def curve(out):
    "`[(env step, evaluation mean)]` of the run in `out`"
    rows = [l.split(',') for l in (out/'metrics.csv').read_text().splitlines()[1:]]
    return [(int(x), round(float(v), 1)) for x, name, v, *_ in rows if name == 'eval_return']


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--work', default='runs/offline-bench', help="bench/offline.py's work directory")
    ap.add_argument('--seeds', type=int, default=3)
    ap.add_argument('--eval-every', type=int, default=500)
    add_save(ap)
    a = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    work = Path(a.work)/'pendulum'
    os.environ['MINARI_DATASETS_PATH'] = str(Path(a.work).resolve()/'datasets')
    from rlnb.train import train_run
    from rlnb.runs import run_summary
    from rlnb.agents.offline.core import random_return
    hi = run_summary(work/'expert')['final_eval_mean']
    lo = random_return('Pendulum-v1', 100)
    bars = dict(expert=hi, score95=lo + 0.95 * (hi - lo))
    changes = dict(threshold=hi, eval_every=a.eval_every)
    rows = []
    for seed in range(a.seeds):
        iql = work/f'iql-medium-s{seed}'
        if run_summary(iql) is None: sys.exit(f"{iql} is missing: run bench/offline.py --env Pendulum-v1 first.")
        runs = {}
        for kind, frm in (('scratch', None), ('from_iql', iql)):
            out = work/f'online-sac-{kind}-s{seed}'
            s = run_summary(out) or train_run('sac', 'Pendulum-v1', seed=seed, out=out, progress=False, resume=True,
                                              changes=dict(changes), from_run=frm)
            c = curve(out)
            first = lambda bar: next((x for x, v in c if v >= bar), None)
            runs[kind] = dict(steps_to={k: first(b) for k, b in bars.items()}, final_eval=round(s['final_eval_mean'], 1),
                              wall_s=s['wall_s'], curve=c)
            print(f"seed {seed} {kind:<9} env steps to {runs[kind]['steps_to']}, final {runs[kind]['final_eval']}",
                  file=sys.stderr)
        rows.append(dict(seed=seed, iql_final_eval=round(run_summary(iql)['final_eval_mean'], 1), **runs))
    steps = lambda k, bar: [r[k]['steps_to'][bar] for r in rows]
    fewer = lambda bar: all(f is not None and (s is None or f < s) for f, s in zip(steps('from_iql', bar),
                                                                                   steps('scratch', bar)))
    report(dict(env='Pendulum-v1', random=round(lo, 1), expert=round(hi, 1), bars={k: round(b, 1) for k, b in bars.items()},
                budget=20_000, eval_every=a.eval_every, rows=rows,
                **{f'{bar}_{k}': steps(k, bar) for bar in bars for k in ('scratch', 'from_iql')},
                **{f'{bar}_from_iql_fewer_on_every_seed': fewer(bar) for bar in bars}), a.save)


if __name__ == '__main__': main()
