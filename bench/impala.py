"""Learning that never waits: APPO's asynchronous runners against synchronous PPO rounds, on a slow env.

The task: CartPole-v1 whose every step costs `--ms` milliseconds (default 1 ms): a busy loop on the clock (`--env burn`, the
fleet bench's slow env: a simulator that computes) or a sleep (`--env sleep`: a simulator that waits on I/O or another
machine). Both algorithms run with 2 Ray runners, 8 envs (4 per runner), rollouts of 32 steps, minibatches of 128 rows and
the same epochs, so they take the same gradient steps of the same size per env step:

- PPO (`ppo --runners 2`, synchronous): every round waits for both runners' rollouts, joins them (256 rows), then updates
  while the runners idle;
- APPO (`appo --runners 2`, asynchronous): each runner's rollout (128 rows) is learned as it arrives, while the other
  runner keeps acting; V-trace corrects for the lag.

Throughput: `--pairs` alternating pairs of `--steps` env steps each (no evaluation); `speedup_vs_sync` is the median of
APPO's env steps per second over PPO's, `learner_wait_share` APPO's median share of the learner's wall time spent waiting
for data. Beside them, the bound the machine allows: with C the seconds a runner takes for a rollout, C_cpu the CPU
seconds its process spends on one (acting and the env's own work: C less the env's sleeping), and U the learner's seconds
for one (all measured in the PPO runs), a synchronous round takes C + 2U for two rollouts; asynchronous collection needs
at least max(C, 2U) and, with the two runners and the learner sharing `cores` CPUs, (2 C_cpu + 2U) / cores.
`appo_rollout_C_s` and `appo_update_U_s` are C and U measured in the APPO runs, where runners and learner run side by side.

Learning (`--learn`): both train `--learn-steps` env steps on the slow env, seeds 0..`--seeds`-1, evaluated every 5,000
env steps in a Ray actor while training goes on (`eval_runner`); reported per seed: PPO's final return and the wall seconds APPO took to first reach it.

Faults (`--kill`): `rlnb train appo --runners 2` on CartPole-v1 while a runner's process is SIGKILLed from outside
mid-run: the exit code, the final evaluation, the restarts, and whether any Ray process is left afterwards.

Ends with one JSON line.

    python bench/impala.py [--pairs 3] [--steps 20000] [--env burn|sleep] [--ms 1] [--epochs 10] [--learn] [--kill] [--save FILE]
    python bench/impala.py --pairs 0 --learn --seeds 3      # only the learning comparison
"""
import argparse, json, os, resource, signal, statistics, subprocess, sys, tempfile, time
from record import add_save, report
from dataclasses import replace
import gymnasium as gym

HERE = os.path.dirname(os.path.abspath(__file__))
MS = float(os.environ.get('SLOW_ENV_MS', '1.0'))
KIND = os.environ.get('SLOW_ENV_KIND', 'burn')

class SlowStep(gym.Wrapper):
    "Each step costs `MS` milliseconds: computed (burn) or waited (sleep)"
    def step(self, action):
        if KIND == 'sleep': time.sleep(MS / 1000)
        else:
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < MS / 1000: pass
        return self.env.step(action)

def make_slow(**kw): return SlowStep(gym.make('CartPole-v1', **kw))
gym.register('SlowCartPole-v1', entry_point=f'{__name__}:make_slow', max_episode_steps=500)
ENV = 'impala:SlowCartPole-v1'   # "module:id": each Ray runner imports this file (PYTHONPATH) and so registers the env

def configs(steps, epochs, hidden):
    from rlnb.presets import PRESETS
    same = dict(total_steps=steps, n_envs=8, n_steps=32, bs=128, n_epochs=epochs, hidden=hidden, eval_every=10**9, eval_episodes=10)
    two = lambda cfg: replace(cfg, **same, execution=replace(cfg.execution, runners=2))   # APPO's asynchronous runners, PPO's rounds
    return two(PRESETS['ppo'].cfg), two(PRESETS['appo'].cfg)

def cpu_now() -> float:
    s = resource.getrusage(resource.RUSAGE_SELF); return s.ru_utime + s.ru_stime

def runners_cpu() -> float:
    "CPU seconds the live Ray runner processes (titled `ray::Runner...`) have used so far"
    import psutil
    total = 0.
    for p in psutil.process_iter(['cmdline']):
        if 'ray::Runner' in ' '.join(p.info['cmdline'] or ()):
            try: t = p.cpu_times(); total += t.user + t.system
            except psutil.NoSuchProcess: pass
    return total

def throughput(cfg, seed=0) -> dict:
    "Train `cfg` without evaluation; env steps per second, the learner's wait share, and per rollout the runners' and the learner's seconds"
    from rlnb.rl import FinalEvalCallback
    with cfg.learner(ENV, seed, progress=False) as learn:
        learn.remove_cbs([cb for cb in learn.cbs if isinstance(cb, FinalEvalCallback)])
        col = learn.collector
        col._start()   # start the runners outside the timed span (a reset here would queue fragments that the run's own reset then drops)
        c0, r0, t0 = cpu_now(), runners_cpu(), time.perf_counter()
        learn.train()
        wall, cpu, rcpu = time.perf_counter() - t0, cpu_now() - c0, runners_cpu() - r0
        rollouts = col.env_step / (cfg.n_steps * cfg.n_envs / cfg.execution.runners)   # runner rollouts of n_steps x (n_envs / runners)
        return dict(steps_per_s=col.env_step / wall, wait_share=col.wait_s / wall, wall_s=wall, cpu_s=cpu,
                    C=col.busy_s / rollouts, C_cpu=rcpu / rollouts, U=(wall - col.wait_s) / rollouts, lag=statistics.mean(learn.metrics['policy_staleness'][1]))

def learning(cfg, seeds) -> list:
    "Per seed: the evaluations (env step, return, wall seconds since the start) of a run of `cfg` on the slow env"
    from rlnb.callback import Callback
    class Clock(Callback):
        order = 100
        def before_fit(self): self.t0, self.rows = time.perf_counter(), []
        def after_batch(self):
            m = self.learn.metrics
            if 'eval_return' in m and len(m['eval_return'][0]) > len(self.rows): self.rows.append((m['eval_return'][0][-1], m['eval_return'][1][-1], time.perf_counter() - self.t0))
    out = []
    for seed in seeds:
        clock = Clock()
        with replace(cfg, eval_every=5_000, execution=replace(cfg.execution, eval_runner=True)).learner(ENV, seed, progress=False, cbs=[clock]) as learn:   # evaluations in a Ray actor: the wall time is training's
            learn.train()
            out.append(clock.rows)
    return out

def killed_runner(out_dir) -> dict:
    "`rlnb train appo --runners 2` while one runner is SIGKILLed mid-run: exit code, final evaluation, restarts, Ray processes left"
    exe = os.path.join(os.path.dirname(sys.executable), 'rlnb')
    proc = subprocess.Popen([exe, 'train', 'appo', '--runners', '2', '--out', out_dir, '--no-progress'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    runners, deadline = [], time.time() + 120
    while len(runners) < 2 and time.time() < deadline:
        time.sleep(0.5)
        ps = subprocess.run(['pgrep', '-f', 'ray::Runner'], capture_output=True, text=True).stdout.split()
        runners = [int(p) for p in ps]
    metrics = os.path.join(out_dir, 'metrics.csv')
    while time.time() < deadline and not (os.path.exists(metrics) and sum(1 for _ in open(metrics)) > 50): time.sleep(0.2)   # mid-run: learning under way
    os.kill(runners[0], signal.SIGKILL)
    out, err = proc.communicate(timeout=900)
    time.sleep(3)
    left = subprocess.run(['pgrep', '-f', 'ray::|raylet|gcs_server'], capture_output=True, text=True).stdout.split()
    rows = [l.split(',') for l in open(metrics).read().splitlines()[1:]]
    evals = [float(v) for s, k, v in rows if k == 'eval_return']
    restarts = [float(v) for s, k, v in rows if k == 'restarts'] or [float(v) for s, k, v in rows if k == 'env_restarts']
    return dict(kill_exit_code=proc.returncode, kill_final_eval=evals[-1] if evals else None, kill_warned='Runner 0 died' in err or 'died' in err,
                kill_ray_processes_left=len(left), kill_stderr_tail=err.strip().splitlines()[-3:])

def main(a):
    os.environ['PYTHONPATH'] = HERE + os.pathsep + os.environ.get('PYTHONPATH', '')   # the runners import this file
    os.environ['SLOW_ENV_MS'], os.environ['SLOW_ENV_KIND'] = str(a.ms), a.env
    global MS, KIND
    MS, KIND = a.ms, a.env
    if a.only_kill: return report(killed_runner(tempfile.mkdtemp() + '/appo-killed'), a.save)
    import torch; torch.set_num_threads(1)
    import ray
    ray.init(address='local', num_cpus=4, include_dashboard=False, logging_level='warning', log_to_driver=False)
    hidden = tuple(int(h) for h in a.hidden.split(','))
    ppo, appo = configs(a.steps, a.epochs, hidden)
    res = dict(env=a.env, ms=a.ms, steps=a.steps, epochs=a.epochs, hidden=list(hidden), cores=os.cpu_count())
    try:
        pairs = []
        for i in range(a.pairs):
            order = [('ppo', ppo), ('appo', appo)] if i % 2 == 0 else [('appo', appo), ('ppo', ppo)]
            r = {name: throughput(cfg, seed=i) for name, cfg in order}
            pairs.append(r)
            print(f"pair {i}: ppo {r['ppo']['steps_per_s']:.0f} steps/s (wait {r['ppo']['wait_share']:.2f}), appo {r['appo']['steps_per_s']:.0f} steps/s "
                  f"(wait {r['appo']['wait_share']:.2f}, lag {r['appo']['lag']:.2f}): {r['appo']['steps_per_s'] / r['ppo']['steps_per_s']:.2f}x", flush=True)
        med = lambda f: statistics.median(f(p) for p in pairs)
        C, C_cpu, U = (med(lambda p: p['ppo']['C']), med(lambda p: p['ppo']['C_cpu']), med(lambda p: p['ppo']['U'])) if pairs else (0, 0, 0)
        if pairs: res.update(ppo_steps_per_s=round(med(lambda p: p['ppo']['steps_per_s'])), appo_steps_per_s=round(med(lambda p: p['appo']['steps_per_s'])),
                   speedup_vs_sync=round(med(lambda p: p['appo']['steps_per_s'] / p['ppo']['steps_per_s']), 3),
                   learner_wait_share=round(med(lambda p: p['appo']['wait_share']), 3), ppo_wait_share=round(med(lambda p: p['ppo']['wait_share']), 3),
                   appo_policy_lag_mean=round(med(lambda p: p['appo']['lag']), 3),
                   cpu_ratio=round(med(lambda p: p['appo']['cpu_s'] / p['ppo']['cpu_s']), 3),
                   rollout_C_s=round(C, 4), rollout_C_cpu_s=round(C_cpu, 4), update_U_s=round(U, 4),
                   appo_rollout_C_s=round(med(lambda p: p['appo']['C']), 4), appo_update_U_s=round(med(lambda p: p['appo']['U']), 4),   # the same, measured in the APPO runs (runners and learner side by side)
                   speedup_bound=round((C + 2 * U) / max(C, 2 * U, (2 * C_cpu + 2 * U) / res['cores']), 3))
        if a.learn:
            ppo_l, appo_l = configs(a.learn_steps, a.epochs, (64, 64))
            seeds = range(a.seeds)
            P, A = learning(ppo_l, seeds), learning(appo_l, seeds)
            rows = []
            for s, p, q in zip(seeds, P, A):
                target = p[-1][1]
                hit = next(((st, t) for st, v, t in q if v >= target), None)
                rows.append(dict(seed=s, ppo_final=target, ppo_wall_s=round(p[-1][2], 1), appo_final=q[-1][1], appo_steps_to_ppo_final=hit and hit[0],
                                 appo_wall_s_to_ppo_final=hit and round(hit[1], 1), wall_ratio=hit and round(hit[1] / p[-1][2], 3)))
                print(rows[-1], flush=True)
            res['learning'] = rows
    finally:
        ray.shutdown()
    if a.kill:
        res.update(killed_runner(tempfile.mkdtemp() + '/appo-killed'))
    report(res, a.save)

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--pairs', type=int, default=3)
    ap.add_argument('--steps', type=int, default=20_000)
    ap.add_argument('--env', choices=('burn', 'sleep'), default='burn')
    ap.add_argument('--ms', type=float, default=1.0)
    ap.add_argument('--epochs', type=int, default=10)
    ap.add_argument('--hidden', default='64,64')
    ap.add_argument('--learn', action='store_true')
    ap.add_argument('--learn-steps', type=int, default=50_000)
    ap.add_argument('--seeds', type=int, default=3)
    ap.add_argument('--kill', action='store_true')
    ap.add_argument('--only-kill', action='store_true', help='run only the killed-runner check')
    add_save(ap)
    main(ap.parse_args())
