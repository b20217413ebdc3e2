"""Two commits of rlnb side by side on the same training work: did a change slow the loop down?

Checks the older commit out as a git worktree in a temporary folder, then trains the same config with each commit in
turn, each run in a fresh child process whose `PYTHONPATH` puts that commit's `rlnb` first. The child times only
`learn.train()` (no imports, no build), in wall and process CPU time, and prints it. The two sides alternate, who
goes first swapping every repeat; each ratio (new / old, of the time per update: an on-policy run's count of
updates follows its episodes, which two commits may differ in) is the median of the repeats' paired ratios, with its range.
The configs are those of `bench/dqn_vs_sb3.py` (rl-baselines3-zoo's CartPole DQN, 50k env steps) and
`bench/ppo_vs_sb3.py` (its PPO, 100k env steps), written with the field names both commits read.

    python bench/versions.py --old 897e264 --algo dqn --repeats 7
    python bench/versions.py --old 897e264 --algo ppo --repeats 7 --new HEAD
Ends with one JSON line.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile
from pathlib import Path
from record import add_save, report

ROOT = Path(__file__).resolve().parent.parent
DQN = dict(total_steps=50_000, n_envs=1, lr=2.3e-3, bs=64, buffer=100_000, gamma=0.99, n_step=1, learning_starts=1000, train_every=256,
           updates=128, eps_start=1., eps_end=0.04, eps_fraction=0.16, hidden=(256, 256), loss='huber', grad_clip=10., eval_every=10**9,
           threshold=None, target_update='hard', target_every=128)   # flat names: the older commit's fields, which the newer still reads
PPO = dict(total_steps=100_000, n_envs=8, n_steps=32, bs=256, n_epochs=20, lr=1e-3, lr_schedule='linear', gamma=0.98, gae_lambda=0.8,
           clip=0.2, clip_schedule='linear', ent_coef=0., vf_coef=0.5, grad_clip=0.5, hidden=(64, 64), eval_every=10**9, threshold=None)
CHILD = """
import json, sys, time, torch
torch.set_num_threads(1)
from rlnb.presets import get_preset, with_changes
algo, changes, seed = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
cfg = with_changes(get_preset(algo).cfg, {k: tuple(v) if isinstance(v, list) else v for k, v in changes.items()}, algo)
learn = cfg.learner('CartPole-v1', seed, progress=False)
learn.evaluator.final = lambda env_step: None   # no evaluation: the work timed is training alone
w, c = time.perf_counter(), time.process_time()
learn.train()
print(json.dumps(dict(wall=time.perf_counter() - w, cpu=time.process_time() - c, opt_step=learn.opt_step, file=__import__('rlnb').__file__)))
"""

def worktree(commit: str) -> Path:
    "A checkout of `commit` in a temporary folder (git worktree)"
    d = Path(tempfile.mkdtemp(prefix='rlnb-old-'))/'tree'
    subprocess.run(['git', '-C', str(ROOT), 'worktree', 'add', '--detach', '-q', str(d), commit], check=True)
    return d

def run(tree: Path, algo: str, changes: dict, seed: int) -> dict:
    "One timed training run of `tree`'s rlnb in a child process"
    env = dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS='1')
    r = subprocess.run([sys.executable, '-c', CHILD, algo, json.dumps(changes), str(seed)], env=env, capture_output=True, text=True, cwd=tree)
    if r.returncode: raise RuntimeError(f'{tree}: the run failed:\n{r.stderr[-2000:]}')
    out = json.loads(r.stdout.strip().splitlines()[-1])
    if not out['file'].startswith(str(tree)): raise RuntimeError(f"the child imported {out['file']}, not {tree}'s rlnb")
    return out

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--old', required=True, help='the older commit')
    ap.add_argument('--new', default=None, help='the newer commit (default: this working tree)')
    ap.add_argument('--algo', choices=('dqn', 'ppo'), default='dqn')
    ap.add_argument('--repeats', type=int, default=7)
    add_save(ap)
    a = ap.parse_args()
    changes = DQN if a.algo == 'dqn' else PPO
    trees = dict(old=worktree(a.old), new=worktree(a.new) if a.new else ROOT)
    t = {k: [] for k in trees}
    try:
        for k in range(a.repeats):
            order = ['old', 'new'] if k % 2 == 0 else ['new', 'old']
            for side in order: t[side].append(run(trees[side], a.algo, changes, seed=k))
            print(f"repeat {k} ({', '.join(order)}): " + '  '.join(f"{s} {t[s][-1]['wall']:.2f} s (CPU {t[s][-1]['cpu']:.2f})" for s in trees), flush=True)
    finally:
        for side, tree in trees.items():
            if tree != ROOT: subprocess.run(['git', '-C', str(ROOT), 'worktree', 'remove', '--force', str(tree)], check=False)
    out = dict(algo=a.algo, old=a.old, new=a.new or 'working tree', repeats=a.repeats,
               updates_old=sorted({x['opt_step'] for x in t['old']}), updates_new=sorted({x['opt_step'] for x in t['new']}))
    for kind in ('wall', 'cpu'):   # per update: an on-policy run's count of updates follows its episodes, which two commits may differ in
        r = [(n[kind] / n['opt_step']) / (o[kind] / o['opt_step']) for n, o in zip(t['new'], t['old'])]
        out |= {f'old_{kind}_s': round(statistics.median(x[kind] for x in t['old']), 2), f'new_{kind}_s': round(statistics.median(x[kind] for x in t['new']), 2),
                f'{kind}_ratio_new_vs_old': round(statistics.median(r), 3), f'{kind}_ratio_spread': [round(min(r), 3), round(max(r), 3)]}
    print(f"new / old, median of paired ratios [range]: CPU {out['cpu_ratio_new_vs_old']:.3f} {out['cpu_ratio_spread']}, "
          f"wall {out['wall_ratio_new_vs_old']:.3f} {out['wall_ratio_spread']}")
    report(out, a.save)

if __name__ == '__main__': main()
