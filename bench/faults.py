"""The fault cases of a training run, end to end, with real processes, signals and files.

Each case does the bad thing for real (a SIGKILL in the middle of a checkpoint write or of a resume,
an env worker that raises, dies or hangs in `step` and in `reset`, a parent killed with its workers
alive, a run started over another, a Ray runner killed by SIGKILL or exiting with os._exit mid-training,
a runner that dies more often than `runner_restarts` allows, Ctrl-C with runners) and checks what a user would look for afterwards: the exit code,
the one-line message, and that nothing on disk was lost. Prints a table of case, expected and
observed, then one JSON line with `cases`, `passed` and `failed`.

    python bench/faults.py            # every case
    python bench/faults.py --ray      # the Ray runner cases only

The Ray cases run each training in its own session (a new process group) and count, after it has ended,
the processes left in that session: the trainer's Ray (GCS, raylet, agents) and its runners included.
"""
import json, os, signal, subprocess, sys, tempfile, textwrap, time
from pathlib import Path
import numpy as np
import gymnasium as gym
from rlnb.core import save_checkpoint, load_checkpoint, CheckpointError
from rlnb.callback import checkpoints
from rlnb.agent import RandomAgent
from rlnb.data.gym import make_envs, TransitionCollector, EnvError

RLNB = str(Path(sys.executable).parent/'rlnb')
TMP = Path(tempfile.mkdtemp(prefix='rlnb-faults-'))

class FaultyEnv(gym.Env):
    "A 1-d env whose step (or reset) raises, exits the process, or hangs, on its 5th step (or first reset)"
    observation_space, action_space = gym.spaces.Box(-1, 1, (1,), np.float32), gym.spaces.Discrete(2)
    def __init__(self, fault=None, where='step'): self.fault, self.where, self.n = fault, where, 0
    def _fail(self):
        if self.fault == 'raise': raise RuntimeError('injected failure')
        if self.fault == 'die': os._exit(3)
        if self.fault == 'hang': time.sleep(3600)
    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        if self.where == 'reset': self._fail()
        return np.zeros(1, np.float32), {}
    def step(self, action):
        self.n += 1
        if self.where == 'step' and self.n == 5: self._fail()
        return np.zeros(1, np.float32), 0., False, False, {}

def worker_fault(fault, where):
    "An async env whose worker 1 fails: the EnvError's text and whether any worker survived"
    envs = make_envs([lambda: FaultyEnv(), lambda: FaultyEnv(fault, where)], mode='async')
    procs = list(envs.processes)
    col = TransitionCollector(envs, RandomAgent(envs.single_action_space), timeout=1.)
    try:
        for _ in range(20): next(col)
        return 'no error', procs
    except EnvError as e: return str(e), procs

def kill_mid_save():
    "SIGKILL a process while it writes a 100 MB checkpoint over an older one: the older one still loads, and the next save removes the leftover"
    d = TMP/'save'; d.mkdir()
    save_checkpoint({'n': 1}, d/'c.pt')
    p = subprocess.Popen([sys.executable, '-c', textwrap.dedent(f'''
        import torch
        from rlnb.core import save_checkpoint
        while True: save_checkpoint({{'n': 2, 'x': torch.ones(25_000_000)}}, {str(d/"c.pt")!r})''')])
    deadline = time.time() + 30
    while not any(d.glob('.*.tmp')) and time.time() < deadline: time.sleep(0.005)
    p.kill(); p.wait()
    leftover = len(list(d.glob('.*.tmp')))
    loads = load_checkpoint(d/'c.pt')['n'] in (1, 2)
    save_checkpoint({'n': 3}, d/'c.pt')
    return f'loads={loads} leftover_then={leftover} leftover_after_next_save={len(list(d.glob(".*.tmp")))}'

def sigint_then_kill_mid_resume():
    "Ctrl-C a run (exit 130, one line), SIGKILL its resume a moment in (metrics.csv keeps the checkpoint's history), resume to the end (exit 0)"
    out = TMP/'run'
    p = subprocess.Popen([RLNB, 'train', 'dqn', '--steps', '6000', '--out', str(out), '--no-progress'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not (out/'metrics.csv').exists(): time.sleep(0.01)
    time.sleep(1.); p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    code, lines = p.returncode, err.strip().splitlines()
    said = bool(lines) and lines[-1].startswith('rlnb train: interrupted at env step')
    ck = load_checkpoint(checkpoints(out/'checkpoints')[-1])
    history = sum(len(d['step']) for d in ck['metrics'].values())
    p = subprocess.Popen([RLNB, 'train', '--resume', str(out), '--no-progress'], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ino = (out/'metrics.csv').stat().st_ino
    while (out/'metrics.csv').stat().st_ino == ino and p.poll() is None: time.sleep(0.005)
    time.sleep(0.3); p.kill(); p.wait()
    kept = len((out/'metrics.csv').read_text().splitlines()) - 1 >= history
    r = subprocess.run([RLNB, 'train', '--resume', str(out), '--no-progress'], capture_output=True, text=True)
    return f'exit={code} lines={len(lines)} said={said} history_kept={kept} resumed_exit={r.returncode}'

def orphans():
    "SIGKILL a parent holding two async workers: are the workers gone within 5 s?"
    p = subprocess.Popen([sys.executable, '-c', 'import time\nfrom rlnb.data.gym import make_envs\n'
                          "e = make_envs('CartPole-v1', 2, mode='async')\nprint(*[q.pid for q in e.processes], flush=True)\ntime.sleep(600)"],
                         stdout=subprocess.PIPE, text=True)
    pids = [int(x) for x in p.stdout.readline().split()]
    p.kill(); p.wait()
    def alive(pid):
        try: return open(f'/proc/{pid}/stat').read().split(')')[1].split()[0] not in ('Z', 'X')
        except FileNotFoundError: return False
    deadline = time.time() + 5
    while any(map(alive, pids)) and time.time() < deadline: time.sleep(0.05)
    return f'workers_alive={sum(map(alive, pids))}'

def overwrite_refused():
    "Train into a directory that holds a run: exit 2, one line, not a byte changed"
    out = TMP/'run'
    before = {q: q.read_bytes() for q in out.rglob('*') if q.is_file()}
    r = subprocess.run([RLNB, 'train', 'ppo', '--out', str(out), '--no-progress'], capture_output=True, text=True)
    same = before == {q: q.read_bytes() for q in out.rglob('*') if q.is_file()}
    return f'exit={r.returncode} lines={len(r.stderr.strip().splitlines())} unchanged={same}'

FAULTY = TMP/'rlnb_faulty.py'   # envs a runner imports by id (module:Env-v0): they exist in every process
FAULTY.write_text(textwrap.dedent('''
    import os, sys, gymnasium as gym
    IN_RUNNER = any('default_worker' in a for a in sys.argv)   # a Ray worker process; the trainer's own envs (evaluation) never exit
    class ExitAt(gym.Wrapper):
        "CartPole whose process, if it is a Ray runner, exits (os._exit) at the env's `at`-th step: once over all processes (`marker` created first), or every time"
        def __init__(self, env, at=300, once=True, marker=''):
            super().__init__(env); self.at, self.once, self.marker, self.n = at, once, marker, 0
        def step(self, action):
            self.n += 1
            if self.n == self.at and IN_RUNNER:
                if not self.once: os._exit(3)
                try: os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL)); os._exit(3)
                except FileExistsError: pass
            return self.env.step(action)
    gym.register('ExitOnceCartPole-v1', lambda **kw: ExitAt(gym.make('CartPole-v1'), once=True, marker=os.environ['RLNB_FAULT_MARKER']))
    gym.register('AlwaysExitCartPole-v1', lambda **kw: ExitAt(gym.make('CartPole-v1'), at=50, once=False))
'''))

def in_session(args, stop_after=None, timeout=600):
    "Run `args` in a new session; Ctrl-C (SIGINT) after `stop_after` s; then the exit code, output, seconds, and how many of the session's processes are alive 15 s later"
    env = dict(os.environ, PYTHONPATH=f"{TMP}:{os.environ.get('PYTHONPATH', '')}", RLNB_FAULT_MARKER=str(TMP/f'marker-{time.time_ns()}'), OMP_NUM_THREADS='1')
    t0 = time.time()
    p = subprocess.Popen(args, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if stop_after is not None:
        time.sleep(stop_after); p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=timeout)
    wall, sid = time.time() - t0, p.pid
    def left():
        rows = subprocess.run(['ps', '-eo', 'sid=,stat='], capture_output=True, text=True).stdout.split('\n')
        return sum(1 for r in rows if r.split() and int(r.split()[0]) == sid and not r.split()[1].startswith('Z'))
    deadline = time.time() + 15
    while left() and time.time() < deadline: time.sleep(0.2)
    return p.returncode, out, err, wall, left()

def killed_runner(how):
    "PPO with 2 runners; runner 0 is killed mid-training (SIGKILL from the learner's process, or its env calls os._exit at its 300th step)"
    env = 'CartPole-v1' if how == 'sigkill' else 'rlnb_faulty:ExitOnceCartPole-v1'
    code = textwrap.dedent(f'''
        import json, os, signal, torch
        torch.set_num_threads(1)
        from rlnb.presets import get_preset
        from rlnb.callback import Callback
        class Watch(Callback):
            restarted, version_ok = False, None
            def after_batch(self):
                if {how!r} == 'sigkill' and self.learn.opt_step == 200: os.kill(self.learn.collector.where[0]['pid'], signal.SIGKILL)
            def on_env_restart(self): self.restarted = True
            def on_fragment(self):
                col = self.learn.collector
                if self.restarted and self.version_ok is None: self.version_ok = col.fragment_info['version'] == col.version
        w = Watch()
        with get_preset('ppo').learner(0, False, [w], runners=2, total_steps=30_000) as learn:
            learn.train()
            col = learn.collector
            print(json.dumps(dict(env_steps=col.env_step, restarts=col.restarts, lost=col.lost, next_version_current=w.version_ok)))
    ''').replace("get_preset('ppo')", f"get_preset('ppo', {env!r})")
    rc, out, err, wall, left = in_session([sys.executable, '-c', code])
    try: r = json.loads(out.strip().splitlines()[-1])
    except Exception: return f'exit={rc} {err.strip()[-300:]!r}'
    return f"completed={rc == 0 and r['env_steps'] >= 29_000} restarts={r['restarts']} lost={r['lost']} next_version_current={r['next_version_current']} left={left}"

def runner_keeps_dying():
    "rlnb train ppo --runners 2 on an env whose every runner exits at its 50th step, runner_restarts=1: the error, how soon, what is left"
    rc, out, err, wall, left = in_session([RLNB, 'train', 'ppo', '--runners', '2', '--env', 'rlnb_faulty:AlwaysExitCartPole-v1', '--set', 'runner_restarts=1',
                                           '--out', str(TMP/'run-dies'), '--no-progress'])
    last = err.strip().splitlines()[-1] if err.strip() else ''
    return f"exit={rc} said={'Runner' in last and 'max_restarts=1' in last} within_30s={wall < 30} left={left}", wall

def ctrl_c_with_runners():
    "rlnb train ppo --runners 2, Ctrl-C after 12 s: exit 130, a checkpoint to resume from, nothing left"
    rc, out, err, wall, left = in_session([RLNB, 'train', 'ppo', '--runners', '2', '--out', str(TMP/'run-ray-sigint'), '--no-progress'], stop_after=12)
    return f"exit={rc} resumable={'--resume' in err} left={left}"

def ray_cases() -> list:
    cases = []
    for how in ('sigkill', 'exit'):
        obs = killed_runner(how)
        want = 'completed=True restarts=1 lost=1 next_version_current=True left=0'
        cases.append((f'runner {"SIGKILLed" if how == "sigkill" else "os._exit"} mid-training', want, obs, obs == want))
    obs, wall = runner_keeps_dying()
    want = 'exit=2 said=True within_30s=True left=0'
    cases.append(('runner dies past runner_restarts', want, f'{obs} ({wall:.1f} s)', obs == want))
    obs = ctrl_c_with_runners()
    want = 'exit=130 resumable=True left=0'
    cases.append(('Ctrl-C with 2 runners', want, obs, obs == want))
    return cases

def main():
    cases = []
    if '--ray' in sys.argv: return report(ray_cases())
    for where in ('step', 'reset'):
        for fault, says in (('raise', 'env 1 raised RuntimeError'), ('die', 'env 1 died'), ('hang', 'env 1 did not answer within 1.0 s')):
            msg, procs = worker_fault(fault, where)
            alive = sum(p.is_alive() for p in procs)
            cases.append((f'worker {fault}s in {where}', f'EnvError "{says}", 0 workers alive', f'{msg[:60]!r}, {alive} alive', says in msg and alive == 0))
    obs = kill_mid_save()
    cases.append(('kill mid-save', 'loads=True leftover_after_next_save=0', obs, 'loads=True' in obs and obs.endswith('after_next_save=0')))
    obs = sigint_then_kill_mid_resume()
    want = 'exit=130 lines=1 said=True history_kept=True resumed_exit=0'
    cases.append(('Ctrl-C, kill mid-resume, resume', want, obs, obs == want))
    obs = overwrite_refused()
    cases.append(('train over a run', 'exit=2 lines=1 unchanged=True', obs, obs == 'exit=2 lines=1 unchanged=True'))
    obs = orphans()
    cases.append(('parent SIGKILLed', 'workers_alive=0', obs, obs == 'workers_alive=0'))
    report(cases + ray_cases())

def report(cases):
    w = max(len(c[0]) for c in cases)
    print(f"{'case':<{w}}  {'ok':<4}  expected  |  observed")
    for name, exp, got, ok in cases: print(f"{name:<{w}}  {'yes' if ok else 'NO':<4}  {exp}  |  {got}")
    passed = sum(c[3] for c in cases)
    print(json.dumps(dict(cases=len(cases), passed=passed, failed=len(cases) - passed)))

if __name__ == '__main__': main()
