"""How fast Atari trains with each way of stepping envs: gymnasium's vector env of Python wrappers in worker processes
(`vector='gymnasium'`, the reference and the old default), ale-py's `AtariVectorEnv` (`'ale'`, C++ threads, the new default) and
EnvPool (`'envpool'`), the last two under `rlnb.data.vector.AtariGames`.

1. Env only: `--envs` Breakout envs, uniformly random actions (seeded), `--env-steps` env steps, each backend in turn,
   `--repeats` alternating repeats: env steps per second (medians) and CPU seconds (the process's, its threads' and its
   workers'). `env_speedup` is the new default's rate over gymnasium's. `ale_bare` is ale-py's vector env alone, without the bookkeeping that makes its games train as the reference's
   (`AtariGames`: lives, FIRE, padded stacks, scores): `env_speedup_bare` is what the 'ale' backend could give at most here.
2. Closeness, from the same runs: the whole games the random policy played on each backend, their scores (raw, the game's
   own) and lengths: mean, standard error, and the difference from the reference in standard errors (Welch). A backend that
   plays the game as the reference does gives the same score distribution to a fixed policy.
3. End to end: `ppo_atari` and `dqn_atari` on Breakout (learning from the first steps: DQN's learning_starts lowered to
   `--starts`, as `bench/device.py` does) and `ppo_minatar` on MinAtar Breakout, alternating three setups: what `rlnb train`
   did before (`old`: gymnasium envs, one torch thread), what it does now (`new`: `vector='auto'`, a thread per core for a
   CNN), and the old envs with the new threads. Env steps per second (medians); `speedup` is new over old,
   `backend_speedup` new over the old envs at the same threads.
4. The time split (acting, env, update, other) of `ppo_atari` and `dqn_atari` in each setup, from one profiled run each;
   `other_share` is the share of the time that is none of the three, `env_share` the env's: the most any env backend can
   save.

Ends with one JSON line.

    python bench/throughput.py [--envs 8] [--env-steps 20000] [--repeats 3] [--ppo-steps 4096] [--dqn-steps 3000] [--minatar-steps 16384] [--save FILE]
    python bench/throughput.py --env-only --repeats 5   # parts 1 and 2 alone
"""
import argparse, importlib.util, json, math, os, statistics, sys
from dataclasses import replace
import numpy as np
from record import add_save, report
from timing import clock, since, alternate, timed_train

GAME = 'BreakoutNoFrameskip-v4'
CORES = os.cpu_count()

def backends():
    return ['gymnasium', 'ale'] + (['envpool'] if importlib.util.find_spec('envpool') else [])

def env_only(backend, n, steps, seed):
    "(wall, cpu) of `steps` env steps of random play, and the whole games played: [(score, frames), ...]; backend 'ale_bare': ale-py's vector env alone (its own preprocessing, none of `AtariGames`' bookkeeping), the most the 'ale' backend can give"
    from rlnb.data.vector import train_envs, cpp_atari
    from rlnb.data.gym import reset_envs, step_envs
    envs = cpp_atari(GAME, n, 'ale') if backend == 'ale_bare' else train_envs(GAME, n, 'atari', backend)
    rng, games = np.random.default_rng(seed), []
    try:
        reset_envs(envs, seed, 30.)
        t0 = clock()
        for _ in range(steps // n):
            _, _, _, _, info = step_envs(envs, rng.integers(0, 4, n), 30.)
            if 'episode' in info:
                done = info['_episode']
                games += [(float(r), int(l)) for r, l in zip(info['episode']['r'][done], info['episode']['l'][done])]
    finally: envs.close()   # the workers exit: their CPU time is counted
    return since(t0), games

def closeness(games: dict) -> dict:
    "Mean, standard error and Welch's distance from the reference (in standard errors) of each backend's game scores and lengths"
    out = {}
    for b, g in games.items():
        s = np.array([x for x, _ in g]); row = dict(games=len(g), score_mean=round(float(s.mean()), 3), score_se=round(float(s.std(ddof=1) / math.sqrt(len(s))), 3))
        if b != 'gymnasium':
            r = np.array([x for x, _ in games['gymnasium']])
            row['score_diff_in_se'] = round(float((s.mean() - r.mean()) / math.sqrt(s.var(ddof=1) / len(s) + r.var(ddof=1) / len(r))), 2)
        out[b] = row
    return out

def learner(algo, steps, vector, starts, threads):
    import torch
    torch.set_num_threads(threads)
    from rlnb.presets import get_preset, with_changes
    p = get_preset(algo)
    ch = dict(total_steps=steps, eval_every=10**12, vector=vector)
    if hasattr(p.cfg, 'learning_starts'): ch['learning_starts'] = min(p.cfg.learning_starts, starts)
    env = GAME if p.cfg.preprocess == 'atari' else p.env
    return with_changes(p.cfg, ch, algo).learner(env, 0, progress=False)

# what `rlnb train` did before (gymnasium envs, one torch thread on the CPU) and does now (vector='auto', every core's thread for a
# CNN); and the old backend with the new threads, which tells the backend's part from the threads'
SETUPS = dict(old=('gymnasium', 1), new=('auto', CORES), old_backend_new_threads=('gymnasium', CORES))

def end_to_end(algo, steps, repeats, starts):
    "Paired alternating runs of `algo` in each of `SETUPS`: rates, CPU, and the speedups of `new` over `old` and over the old backend at its threads"
    def run(vector, threads):
        def f(k):
            with learner(algo, steps, vector, starts, threads) as learn: t, _, _ = timed_train(learn)
            return t
        return f
    t = alternate({k: run(*v) for k, v in SETUPS.items()}, repeats)
    row = {v: dict(steps_per_s=round(steps / statistics.median(w for w, _ in t[v]), 1), cpu_s=round(statistics.median(c for _, c in t[v]), 2)) for v in t}
    row['speedup'] = round(statistics.median(a[0] / b[0] for a, b in zip(t['old'], t['new'])), 3)
    row['backend_speedup'] = round(statistics.median(a[0] / b[0] for a, b in zip(t['old_backend_new_threads'], t['new'])), 3)
    return row

def split(algo, steps, setup, starts):
    vector, threads = SETUPS[setup]
    with learner(algo, steps, vector, starts, threads) as learn: (wall, _), _, s = timed_train(learn, split=True)
    return dict(s, wall=round(wall, 2), other_share=round(s['other'] / sum(s.values()), 3), env_share=round(s['env'] / sum(s.values()), 3))

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--envs', type=int, default=8)
    ap.add_argument('--env-steps', type=int, default=20_000)
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--ppo-steps', type=int, default=4096)
    ap.add_argument('--dqn-steps', type=int, default=3000)
    ap.add_argument('--minatar-steps', type=int, default=16384)
    ap.add_argument('--starts', type=int, default=1000, help="dqn_atari's learning_starts (at most the preset's)")
    ap.add_argument('--env-only', action='store_true', help='only part 1 (and 2): the envs alone')
    add_save(ap)
    a = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    bs = backends() + ['ale_bare']
    print(f'backends {bs}, {a.envs} envs, {CORES} cores', flush=True)
    games = {b: [] for b in bs}
    def env_run(b):
        def f(k):
            t, g = env_only(b, a.envs, a.env_steps, k); games[b].extend(g); return t
        return f
    t = alternate({b: env_run(b) for b in bs}, a.repeats)
    env = {b: dict(steps_per_s=round(a.env_steps / statistics.median(w for w, _ in t[b]), 1), cpu_s=round(statistics.median(c for _, c in t[b]), 2)) for b in bs}
    for b in bs[1:]: env[b]['speedup'] = round(statistics.median(g[0] / x[0] for g, x in zip(t['gymnasium'], t[b])), 3)
    close = closeness({b: g for b, g in games.items() if b != 'ale_bare'})   # (bare: whole games end on no lost life, another game)
    print(json.dumps(dict(env_only=env, closeness=close)), flush=True)
    if a.env_only: return report(dict(envs=a.envs, env_steps=a.env_steps, repeats=a.repeats, env_only=env, closeness=close, env_speedup=env['ale']['speedup'],
                                      env_speedup_bare=env['ale_bare']['speedup']), a.save)
    e2e = {}
    for algo, steps in (('ppo_atari', a.ppo_steps), ('dqn_atari', a.dqn_steps), ('ppo_minatar', a.minatar_steps)):
        e2e[algo] = end_to_end(algo, steps, a.repeats, a.starts); print(algo, json.dumps(e2e[algo]), flush=True)
    sp = {algo: {v: split(algo, steps, v, a.starts) for v in SETUPS} for algo, steps in (('ppo_atari', a.ppo_steps), ('dqn_atari', a.dqn_steps))}
    print('split', json.dumps(sp), flush=True)
    report(dict(envs=a.envs, env_steps=a.env_steps, repeats=a.repeats, setups=SETUPS, env_only=env, closeness=close, end_to_end=e2e, split=sp,
                env_speedup=env['ale']['speedup'], env_speedup_bare=env['ale_bare']['speedup'], ppo_atari_speedup=e2e['ppo_atari']['speedup'], dqn_atari_speedup=e2e['dqn_atari']['speedup'],
                ppo_minatar_speedup=e2e['ppo_minatar']['speedup'], other_share=sp['ppo_atari']['new']['other_share']), a.save)

if __name__ == '__main__': main()
