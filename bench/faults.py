"""The fault cases of a training run, end to end, with real processes, signals and files.

Each case does the bad thing for real (a SIGKILL in the middle of a checkpoint write or of a resume,
an env worker that raises, dies or hangs in `step` and in `reset`, a parent killed with its workers
alive, a run started over another, a Ray runner killed by SIGKILL or exiting with os._exit mid-training,
a runner that dies more often than `runner_restarts` allows, Ctrl-C with runners; a config that names a
module, two writers on one run, SIGTERM, a full disk before the first checkpoint, requests that cannot
train, paths of the wrong kind, a fuzz over --set that builds a learner for every value the checks let through,
a runner killed when a checkpoint gathers the runners' states, a run SIGKILLed at random moments and
started again each time by the same `--resume auto` command) and checks
what a user would look for afterwards: the exit code, the one-line message, and that nothing on disk was
lost or changed. Prints a table of case, expected and observed, then one JSON line with `cases`, `passed`
and `failed`.

    python bench/faults.py            # every case
    python bench/faults.py --ray      # the Ray runner cases only
    python bench/faults.py --cli      # the command-line cases only (refusals, writers, signals, disk, the --set fuzz)
    python bench/faults.py --chaos    # the chaos case only: SIGKILLs at random moments, the same command after each
    python bench/faults.py --loaded   # any of these with a second training run sharing the machine
    python bench/faults.py --save bench/results/faults.json   # any of these, also written with its provenance

The Ray cases run each training in its own session (a new process group) and count, after it has ended,
the processes left in that session: the trainer's Ray (GCS, raylet, agents) and its runners included.
"""
import json, os, signal, subprocess, sys, tempfile, textwrap, time
from record import report
import torch
from pathlib import Path
import numpy as np
import gymnasium as gym
from rlnb.core import save_checkpoint, load_checkpoint, CheckpointError
from rlnb.callback import checkpoints
from rlnb.agent import RandomAgent
from rlnb.data.gym import make_envs, EnvError
from rlnb.data.collector import TransitionCollector

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
    return f"exit={rc} said={'Runner' in last and 'max_restarts=1' in last} by_the_deaths={'did not answer' not in last} left={left}", wall   # ended by the deaths, not a timeout (a loaded machine may take any time to get there)

def ctrl_c_with_runners():
    "rlnb train ppo --runners 2, Ctrl-C after 12 s: exit 130, a checkpoint to resume from, nothing left"
    rc, out, err, wall, left = in_session([RLNB, 'train', 'ppo', '--runners', '2', '--out', str(TMP/'run-ray-sigint'), '--no-progress'], stop_after=12)
    return f"exit={rc} resumable={'--resume' in err} left={left}"


def budget_with_runners():
    "sac --runners 2 --n-envs 2 --steps 3000: the last round asks for what is left (3,000 env steps, not 3,072), and Ray's start prints no ERROR or token line"
    rc, out, err, wall, left = in_session([RLNB, 'train', 'sac', '--runners', '2', '--n-envs', '2', '--steps', '3000', '--set', 'learning_starts=300', '--set', 'eval_every=3000',
                                           '--out', str(TMP/'run-budget'), '--no-progress'])
    try: steps = json.loads(out.strip().splitlines()[-1])['env_steps']
    except Exception: steps = None
    noise = [l for l in err.splitlines() if ' E ' in l[:40] or 'ERROR' in l or 'Token authentication' in l]
    return f'exit={rc} env_steps={steps} noise={len(noise)} left={left}'

def killed_at_checkpoint():
    "PPO with 2 runners; runner 0 SIGKILLed just before the learner gathers the runners' states for a checkpoint: restarted, the checkpoint says so, the run reaches its budget"
    code = textwrap.dedent('''
        import json, os, signal, time, tempfile, torch
        torch.set_num_threads(1)
        from rlnb.presets import get_preset
        from rlnb.callback import Callback
        from rlnb.core import load_checkpoint
        class KillThenSave(Callback):
            order = 89   # just before the checkpoints
            def after_batch(self):
                if self.learn.opt_step == 100:
                    col = self.learn.collector; import ray
                    pid = ray.get(col.actors[0].where.remote())['pid']; os.kill(pid, signal.SIGKILL)
                    while True:
                        try: os.kill(pid, 0); time.sleep(0.05)
                        except ProcessLookupError: break
                    p = self.learn.save(tempfile.mkdtemp() + '/ck.pt')
                    def find(d):   # the fleet's state, wherever the pipeline nests it
                        if not isinstance(d, dict): return None
                        return d['runner_restarts'] if 'runner_restarts' in d else next((r for v in d.values() if (r := find(v)) is not None), None)
                    self.saved = find(load_checkpoint(p)['data'])
        cb = KillThenSave()
        with get_preset('ppo').learner(0, False, [cb], runners=2, total_steps=20_000) as learn:
            learn.train()
            print(json.dumps(dict(env_steps=learn.collector.env_step, restarts=learn.collector.restarts, lost=learn.collector.lost, saved=cb.saved)))
    ''')
    rc, out, err, wall, left = in_session([sys.executable, '-c', code])
    try: r = json.loads(out.strip().splitlines()[-1])
    except Exception: return f'exit={rc} {err.strip()[-300:]!r}'
    return f"completed={rc == 0 and r['env_steps'] >= 19_000} restarts={r['restarts']} lost={r['lost']} checkpoint_says={r['saved']} left={left}"

def ray_cases() -> list:
    cases = []
    for how in ('sigkill', 'exit'):
        obs = killed_runner(how)
        want = 'completed=True restarts=1 lost=1 next_version_current=True left=0'
        cases.append((f'runner {"SIGKILLed" if how == "sigkill" else "os._exit"} mid-training', want, obs, obs == want))
    obs, wall = runner_keeps_dying()
    want = 'exit=2 said=True by_the_deaths=True left=0'
    cases.append(('runner dies past runner_restarts', want, f'{obs} ({wall:.1f} s)', obs == want))
    obs = ctrl_c_with_runners()
    want = 'exit=130 resumable=True left=0'
    cases.append(('Ctrl-C with 2 runners', want, obs, obs == want))
    obs = budget_with_runners()
    want = 'exit=0 env_steps=3000 noise=0 left=0'
    cases.append(('runners end on the budget, quietly', want, obs, obs == want))
    obs = killed_at_checkpoint()
    want = 'completed=True restarts=1 lost=0 checkpoint_says=[1, 0] left=0'
    cases.append(('runner SIGKILLed before a checkpoint', want, obs, obs == want))
    return cases

def files(d) -> dict:
    "Every file under `d` with its bytes ({} if there is no `d`)"
    return {q.relative_to(d): q.read_bytes() for q in sorted(Path(d).rglob('*')) if q.is_file()} if Path(d).exists() else {}

def cli(*args, cwd=None, env=None):
    "Run `rlnb ARGS`: exit code, stdout, stderr lines"
    r = subprocess.run([RLNB, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, timeout=600)
    return r.returncode, r.stdout, r.stderr.strip().splitlines()

def refusal(name, args, says, where=None, cwd=None):
    "A case: `rlnb ARGS` exits 2 with one line containing `says`, and `where` (a run directory, or a path that must not appear) is unchanged"
    where = Path(where) if where is not None else TMP/'never'
    before = files(where)
    code, out, lines = cli(*args, cwd=cwd)
    ok = code == 2 and len(lines) == 1 and says in lines[0] and files(where) == before
    return (name, f'exit=2 lines=1 "{says[:50]}" unchanged', f'exit={code} lines={len(lines)} {lines[-1][:70] if lines else ""!r} unchanged={files(where) == before}', ok)

def refusals() -> list:
    "Requests refused before anything is written"
    m = json.loads(subprocess.run([sys.executable, '-c', 'import json; from rlnb.presets import run_meta, get_preset; print(json.dumps(run_meta(get_preset("dqn"), 0)))'],
                                  capture_output=True, text=True).stdout)
    docs = dict(evil=m | dict(env='evilmod:Evil-v0'), null=None, list=[1, 2, 3], seed=m | dict(seed='zero'))
    for k, v in docs.items(): (TMP/f'{k}.json').write_text(json.dumps(v))
    (TMP/'evilmod.py').write_text(f"open({str(TMP/'evil-ran')!r}, 'w').write('ran')\n")
    out = ['--out', TMP/'never', '--no-progress']
    cases = [refusal('config names a module', ['train', '--config', TMP/'evil.json', *out], 'rlnb never imports code named in a file'),
             refusal('config is null', ['train', '--config', TMP/'null.json', *out], 'it holds null'),
             refusal('config is a list', ['train', '--config', TMP/'list.json', *out], 'it holds a list'),
             refusal('config seed "zero"', ['train', '--config', TMP/'seed.json', *out], "seed 'zero' is out of range"),
             refusal('--set device=meta', ['train', 'dqn', '--set', 'device=meta', *out], 'not on meta'),
             refusal('--set hidden=1e10', ['train', 'dqn', '--set', 'hidden=1e10', *out], 'hidden takes comma-separated integers'),
             refusal('networks larger than memory', ['train', 'dqn', '--set', 'hidden=100000,100000', *out], 'asks for more memory than this machine has'),
             refusal('--steps below the first update', ['train', 'dqn', '--steps', '500', *out], 'the smallest budget that trains is 1,002 env steps'),
             refusal('--n-envs 100000', ['train', 'ppo', '--steps', '1500', '--n-envs', '100000', *out], 'rlnb allows 1,024'),
             refusal('a rollout past the budget', ['train', 'ppo', '--steps', '1500', '--n-envs', '100', *out], 'more than the budget of 1,500'),
             refusal('--async without --runners', ['train', 'dqn', '--async', *out], 'async_runners (it needs runners > 0)'),
             refusal('--seed 2**80', ['train', 'dqn', '--seed', str(2**80), *out], 'a seed is an integer from 0 to 4,294,967,295')]
    if not torch.cuda.is_available(): cases.append(refusal('--set device=cuda without CUDA', ['train', 'dqn', '--set', 'device=cuda', *out], 'no CUDA device is available here'))
    cases[0] = cases[0][:3] + (cases[0][3] and not (TMP/'evil-ran').exists(),)
    return cases

def writers_and_sigterm() -> list:
    "A long run W; while it trains, a second writer, --overwrite and --resume are refused with its pid; SIGTERM stops it (exit 143, a checkpoint there); SIGKILL leaves no lock"
    W = TMP/'writers'
    p = subprocess.Popen([RLNB, 'train', 'dqn', '--steps', '50000', '--seed', '3', '--out', str(W), '--no-progress'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not (W/'metrics.csv').exists() and p.poll() is None: time.sleep(0.01)
    cases = []
    for name, args in (('second writer, other seed', ['train', 'dqn', '--seed', '1', '--out', W]), ('--overwrite of a run being written', ['train', 'dqn', '--out', W, '--overwrite']),
                       ('--resume of a run being written', ['train', '--resume', W])):
        code, _, lines = cli(*args, '--no-progress')
        ok = code == 2 and len(lines) == 1 and f'(pid {p.pid})' in lines[0]
        cases.append((name, f'exit=2 lines=1 names pid {p.pid}', f'exit={code} lines={len(lines)} {lines[-1][-90:] if lines else ""!r}', ok))
    seed = json.loads((W/'config.json').read_text())['seed']
    cases.append(('the run keeps its own config', 'seed=3', f'seed={seed}', seed == 3))
    time.sleep(1.); p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    lines = err.strip().splitlines()
    ck = load_checkpoint(checkpoints(W/'checkpoints')[-1])
    n = ck['data']['root']['source']['source']['env_step']   # off-policy batches <- n-step returns <- collector
    said = f'rlnb train: stopped by SIGTERM at env step {n:,}; resume with: rlnb train --resume {W}'
    cases.append(('SIGTERM mid-run', 'exit=143, one line, the newest checkpoint at the step it names', f'exit={p.returncode} lines={len(lines)} env_step={n:,} said={lines == [said]}',
                  p.returncode == 143 and lines == [said]))
    k = subprocess.Popen([RLNB, 'train', '--resume', str(W), '--no-progress'], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    while (W/'.lock').read_text().strip() != str(k.pid) and k.poll() is None: time.sleep(0.01)
    time.sleep(0.5); k.kill(); k.wait()
    code, _, lines = cli('train', '--resume', W, '--steps', str(ck['data']['root']['source']['source']['env_step'] + 600), '--no-progress')
    cases.append(('resume after the writer was SIGKILLed', 'exit=0 (a killed holder leaves no lock)', f'exit={code} {lines[-1][-80:] if lines else ""!r}', code == 0))
    return cases

def run_dir_repairs() -> list:
    "A truncated newest checkpoint is moved aside, a deleted config.json rewritten, the first part's final evaluation kept, a full disk before the first checkpoint leaves nothing"
    R = TMP/'repairs'
    cli('train', 'reinforce', '--steps', '6144', '--seed', '1', '--out', R, '--no-progress')   # checkpoints at 5,000 and 6,144 env steps
    s = json.loads((R/'summary.json').read_text())
    final = [l for l in (R/'metrics.csv').read_text().splitlines() if l.startswith(f"{s['env_steps']},eval_")]
    config = (R/'config.json').read_bytes(); (R/'config.json').unlink()
    code, _, lines = cli('train', '--resume', R, '--steps', '7168', '--no-progress')
    rows = (R/'metrics.csv').read_text().splitlines()
    cases = [('deleted config.json', 'rewritten from the checkpoint, byte for byte', f'exit={code} same={(R/"config.json").read_bytes() == config}',
              code == 0 and (R/'config.json').read_bytes() == config and 'config.json was missing' in ' '.join(lines)),
             ('resume --steps keeps the final evaluation', f'{len(final)} rows kept', f'kept={sum(l in rows for l in final)}', len(final) == 2 and all(l in rows for l in final))]
    ck = checkpoints(R/'checkpoints'); ck[-1].write_bytes(ck[-1].read_bytes()[:1000])
    code, _, lines = cli('train', '--resume', R, '--steps', '8192', '--no-progress')
    cases.append(('truncated newest checkpoint', f'moved to {ck[-1].name}.corrupt, said', f'exit={code} corrupt={(R/"checkpoints"/(ck[-1].name + ".corrupt")).exists()}',
                  code == 0 and (R/'checkpoints'/(ck[-1].name + '.corrupt')).exists() and 'moved it to' in ' '.join(lines)))
    full = TMP/'full-first'
    script = ('import resource, signal, sys\nsignal.signal(signal.SIGXFSZ, signal.SIG_IGN)\nresource.setrlimit(resource.RLIMIT_FSIZE, (60_000, 60_000))\n'
              f'from rlnb.cli import main\nsys.exit(main(["train", "dqn", "--steps", "1500", "--out", {str(full)!r}, "--no-progress"]))')
    r = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True)
    cases.append(('full disk before the first checkpoint', 'exit=2 lines=1 no run directory left', f'exit={r.returncode} lines={len(r.stderr.strip().splitlines())} left={full.exists()}',
                  r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and not full.exists()))
    code, out, lines = cli('eval', R, '--episodes', '2')
    cases.append(('rlnb eval RUN_DIR', "exit=0, evaluates best.pt and says so", f'exit={code} {lines[-1][-60:] if lines else ""!r}', code == 0 and json.loads(out)['checkpoint'] == str(R/'best.pt')))
    cases.append(refusal('rlnb eval --gif DIR', ['eval', R, '--gif', TMP], 'is a directory: give the GIF file to write', where=R))
    cases.append(refusal('rlnb eval --video FILE', ['eval', R, '--video', R/'config.json'], 'is a file: give a directory for the videos', where=R))
    cases.append(refusal('--out . with --overwrite', ['train', 'reinforce', '--out', '.', '--overwrite', '--no-progress'], "would move '.' aside", where=R, cwd=R))
    return cases

def cli_cases() -> list: return refusals() + writers_and_sigterm() + run_dir_repairs()

def fuzz_cases() -> list:
    "Every field of every preset with values of the wrong kind and out of range: each refused by the checks with one line, or built into a learner without an error"
    code = textwrap.dedent('''
        import json, sys
        from dataclasses import fields
        from rlnb.presets import PRESETS
        from rlnb.settings import parse_settings
        from rlnb.request import asked_preset, check_request
        from rlnb.train import _build
        BAD = ('-1', '0', 'nan', 'inf', '1e30', 'abc', '', 'none', '-0.5', '2', 'true', '1,2', '99999999999999999999')
        refused = built = 0; crashed = []
        for algo, p in PRESETS.items():
            for f in fields(p.cfg):
                for v in BAD:
                    try:
                        q, names = asked_preset(p, None, parse_settings(p.cfg, [f'{f.name}={v}'], algo)); check_request(q, 0, 5000, names)
                    except ValueError: refused += 1; continue
                    try:
                        with _build(q, 0, False): built += 1
                    except ValueError: refused += 1
                    except Exception as e: crashed.append(f'{algo} {f.name}={v}: {type(e).__name__}: {str(e)[:80]}')
        print(json.dumps(dict(refused=refused, built=built, crashed=crashed)))
    ''')
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS='1'))
    try: res = json.loads(r.stdout.strip().splitlines()[-1])
    except Exception: return [('--set fuzz, every field of every preset', 'no crash', f'exit={r.returncode} {r.stderr[-200:]!r}', False)]
    return [('--set fuzz, every field of every preset', 'refused or built, no crash', f"refused={res['refused']} built={res['built']} crashed={res['crashed'][:3]}", not res['crashed'])]


def same(a, b) -> bool:
    "Nested dicts, lists and tensors equal leaf for leaf (tensors bit for bit)"
    if isinstance(a, torch.Tensor): return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, dict): return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)): return isinstance(b, (list, tuple)) and len(a) == len(b) and all(map(same, a, b))
    return a == b

def chaos(kills=6, seed=0):
    """A preemptible job: `rlnb train prioritized_dqn ... --resume auto` (checkpoints every 500 env steps) SIGKILLed at `kills` moments:
    one before its first checkpoint, one while a checkpoint is being written, the rest at random times; the same command after each.
    The final checkpoint must equal an uninterrupted run's in every tensor, and metrics.csv in every row"""
    script = textwrap.dedent('''
        import sys
        import rlnb.train as t
        t.train_run.__defaults__ = tuple(500 if d == 5_000 else d for d in t.train_run.__defaults__)   # checkpoints every 500 env steps
        t.resume_run.__defaults__ = tuple(500 if d == 5_000 else d for d in t.resume_run.__defaults__)
        from rlnb.cli import main
        sys.exit(main(sys.argv[1:]))''')
    job = lambda out, *extra: [sys.executable, '-c', script, 'train', 'prioritized_dqn', '--steps', '6000', '--seed', '3', '--out', str(out), '--no-progress', *extra]
    A, B = TMP/'chaos-A', TMP/'chaos-B'
    t0 = time.time(); a = subprocess.Popen(job(A), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not (A/'metrics.csv').exists() and a.poll() is None: time.sleep(0.005)
    startup = time.time() - t0; a.wait(); training = time.time() - t0 - startup   # a kill at random is a moment of the training, not of the imports
    rng, kinds, runs = np.random.default_rng(seed), ['before the first checkpoint', 'during a save'] + ['at random'] * (kills - 2), []
    for kind in kinds:
        p = subprocess.Popen(job(B, '--resume', 'auto'), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        had = len(checkpoints(B/'checkpoints'))
        deadline = time.time() + 120
        if kind == 'before the first checkpoint':
            while not (B/'metrics.csv').exists() and p.poll() is None and time.time() < deadline: time.sleep(0.002)
        elif kind == 'during a save':
            while not list((B/'checkpoints').glob('.*.tmp')) and p.poll() is None and time.time() < deadline: time.sleep(0.001)
        else:   # a random moment of the training (a resumed run has less left: it may finish first, and then nothing is killed)
            while not (B/'metrics.csv').exists() and p.poll() is None and time.time() < deadline: time.sleep(0.005)
            time.sleep(rng.uniform(0.1, 0.9) * training)
        p.kill(); p.communicate()
        runs.append(f"{kind}: {'killed' if p.returncode == -signal.SIGKILL else f'exit {p.returncode}'} with {had} checkpoint(s)")
    r = subprocess.run(job(B, '--resume', 'auto'), capture_output=True, text=True)
    a, b = (load_checkpoint(checkpoints(d/'checkpoints')[-1]) for d in (A, B))
    equal = all(same(a[k], b[k]) for k in ('model', 'cycles', 'rng', 'metrics')) and same(a['data']['root'], b['data']['root']) and a['learner']['opt_step'] == b['learner']['opt_step']
    rows = sorted((A/'metrics.csv').read_text().splitlines()) == sorted((B/'metrics.csv').read_text().splitlines())
    first_two = all('killed with' in x for x in runs[:2]) and runs[0].endswith('with 0 checkpoint(s)')
    want = 'before_first_and_mid_save_killed=True final_exit=0 tensors_equal=True metrics_rows_equal=True'
    obs = f"before_first_and_mid_save_killed={first_two} final_exit={r.returncode} tensors_equal={equal} metrics_rows_equal={rows}"
    print('chaos:', '; '.join(runs), file=sys.stderr)
    return [(f"SIGKILL x{kills} (before the first checkpoint, mid-save, at random: {sum('killed with' in x for x in runs)} landed), --resume auto after each", want, obs, obs == want)]

def loaded():
    "A second training run sharing the machine (a long PPO run in its own session), stopped by the caller"
    return subprocess.Popen([RLNB, 'train', 'ppo', '--steps', '100000000', '--out', str(TMP/'load'), '--no-progress'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

def main():
    load = loaded() if '--loaded' in sys.argv else None
    try: run_cases()
    finally:
        if load is not None: os.killpg(load.pid, signal.SIGKILL); load.wait()

def run_cases():
    cases = []
    if '--ray' in sys.argv: return summary(ray_cases())
    if '--cli' in sys.argv: return summary(cli_cases() + fuzz_cases())
    if '--chaos' in sys.argv: return summary(chaos())
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
    summary(cases + chaos() + cli_cases() + fuzz_cases() + ray_cases())

def summary(cases):
    w = max(len(c[0]) for c in cases)
    print(f"{'case':<{w}}  {'ok':<4}  expected  |  observed")
    for name, exp, got, ok in cases: print(f"{name:<{w}}  {'yes' if ok else 'NO':<4}  {exp}  |  {got}")
    passed = sum(c[3] for c in cases)
    save = sys.argv[sys.argv.index('--save') + 1] if '--save' in sys.argv else None
    report(dict(cases=len(cases), passed=passed, failed=len(cases) - passed, rows=[dict(case=c[0], expected=c[1], observed=c[2], ok=c[3]) for c in cases]), save)

if __name__ == '__main__': main()
