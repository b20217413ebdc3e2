"""CPU against CUDA: how many env steps per second a preset trains at on each device, and where the time goes.

For each preset, a run of `--steps` env steps on its default task (the pixel presets on Breakout), with learning from
`--starts` steps on (the off-policy presets' learning_starts lowered so that almost every step trains) and no evaluation, on the
CPU (`--threads` torch threads) and on CUDA, alternating, `--repeats` times: rates are medians, CPU time is the process's and its
env workers'. One more profiled run per device splits its time by the loop's spans into acting, env stepping, updates and the
rest. On CUDA the spans are host time: a kernel launched in one span and waited for in the next counts in the next (acting
waits for the last update's kernels), so the split says where the host waits, which is what limits a small network's GPU path.
Needs a CUDA device (without one, only the CPU side runs). Ends with one JSON line.

With `--syncs`, one more CUDA run per preset counts the host synchronisations (torch's sync debug mode: every op that waits
for the GPU, such as `.item()`, `.cpu()`, a non-pinned copy to the host) made while the envs step and the agent acts, per vector
step (from acting to the end of the env step's events), and while the learner updates, per update (one optimizer step with its
loss and callbacks); the rest (preparing rollouts, sampling, logging, evaluating) in all, and per vector step. With `--env-only N`,
the bare env stepping first: N env steps of the 8 Breakout envs of each backend under random actions (`bench/throughput.py`'s),
the most any training loop on this machine could reach with them.

    python bench/device.py [--presets dqn,ppo,sac:3000,dqn_atari:5000,ppo_atari:5000] [--steps 10000] [--repeats 1] [--threads 0] [--devices cpu,cuda] [--vector auto] [--syncs] [--env-only N] [--save FILE]

A preset written `name:N` runs N env steps instead of `--steps`.
"""
import argparse, json, os, resource, statistics, sys, time
from record import add_save, report
from timing import time_split

PIXEL_ENV = 'BreakoutNoFrameskip-v4'

VECTOR = 'auto'   # how the pixel presets' envs step (`--vector`)

def cfg_for(algo, steps, starts, device):
    from rlnb.presets import get_preset, with_changes
    p = get_preset(algo)
    ch = dict(total_steps=steps, eval_every=10**12, device=device, vector=VECTOR)
    if hasattr(p.cfg, 'learning_starts'): ch['learning_starts'] = min(p.cfg.learning_starts, starts)
    return (PIXEL_ENV if p.cfg.preprocess == 'atari' else p.env), with_changes(p.cfg, ch, algo)

def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime + r.ru_stime

def run(algo, steps, starts, device, seed=0, profile=False):
    "(wall s, cpu s, split or None, optimizer steps) of one training run"
    import torch
    env, cfg = cfg_for(algo, steps, starts, device)
    c0, k0 = time.process_time(), children_cpu()
    with cfg.learner(env, seed, progress=False) as learn:   # closed on leaving: env workers exit and their CPU time is counted
        learn.profiling = profile
        t0 = time.perf_counter(); learn.train()
        if device == 'cuda': torch.cuda.synchronize()
        wall = time.perf_counter() - t0
        split = {k: round(v, 2) for k, v in time_split(learn).items()} if profile else None
        n = learn.opt_step
    return wall, time.process_time() - c0 + children_cpu() - k0, split, n

def count_syncs(algo, steps, starts) -> dict:
    "Host synchronisations of one CUDA run: per vector step (acting and the env step) and per update (one batch of the learner)"
    import warnings, torch
    from rlnb.callback import Callback
    import traceback, collections
    phase, n, sites = ['other'], {'step': 0, 'update': 0, 'other': 0}, collections.Counter()
    def seen(msg):
        if 'synchronizing' not in str(msg): return
        n[phase[0]] += 1
        f = next((f for f in reversed(traceback.extract_stack()) if '/rlnb/' in f.filename), None)   # the innermost line of rlnb that synchronised
        sites[(phase[0], f'{f.filename.split("/rlnb/")[-1]}:{f.lineno}' if f else '?')] += 1
    def mark(name, event, order):   # a callback that names the phase from `event` on
        return type(f'Mark{name.title()}{order}', (Callback,), {'order': order, event: lambda self: phase.__setitem__(0, name)})()
    env, cfg = cfg_for(algo, steps, starts, 'cuda')
    with cfg.learner(env, 0, progress=False) as learn, warnings.catch_warnings(record=True):
        learn.collector.add_cbs([mark('step', 'before_act', -10**6), mark('other', 'after_env_step', 10**6)])
        learn.add_cbs([mark('update', 'before_batch', -10**6), mark('other', 'after_batch', 10**6)])
        warnings.simplefilter('always')
        shown = warnings.showwarning
        warnings.showwarning = lambda msg, *a, **k: seen(msg)
        torch.cuda.set_sync_debug_mode('warn')
        try: learn.train()
        finally: torch.cuda.set_sync_debug_mode(0); warnings.showwarning = shown
        steps_, updates = learn.collector.vector_step, learn.opt_step
    return dict(vector_steps=steps_, updates=updates, per_vector_step=round(n['step'] / max(steps_, 1), 2), per_update=round(n['update'] / max(updates, 1), 2),
                other=n['other'], other_per_vector_step=round(n['other'] / max(steps_, 1), 3), sites={f'{p} {w}': c for (p, w), c in sites.most_common(8)})

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--presets', default='dqn,ppo,sac:3000,dqn_atari:5000,ppo_atari:5000')
    ap.add_argument('--steps', type=int, default=10_000)
    ap.add_argument('--starts', type=int, default=1_000, help="learning_starts of the off-policy presets (at most the preset's)")
    ap.add_argument('--repeats', type=int, default=1)
    ap.add_argument('--threads', type=int, default=0, help="torch threads on the CPU side (0: torch's default, one per core)")
    ap.add_argument('--no-profile', action='store_true', help='skip the profiled runs')
    ap.add_argument('--devices', default='cpu,cuda', help="the devices compared ('auto': what `rlnb train` picks)")
    ap.add_argument('--vector', default='auto', help="how the pixel presets' envs step")
    ap.add_argument('--syncs', action='store_true', help='count host synchronisations on CUDA')
    ap.add_argument('--env-only', type=int, default=0, help="env steps of 8 Breakout envs per backend, random actions (0: none)")
    add_save(ap)
    a = ap.parse_args()
    global VECTOR
    import torch
    if a.threads: torch.set_num_threads(a.threads)
    a.threads, VECTOR = torch.get_num_threads(), a.vector
    devices = [d for d in a.devices.split(',') if torch.cuda.is_available() or d != 'cuda']
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    print(f'devices {devices} ({gpu}), {a.threads} CPU thread(s), {os.cpu_count()} cores, torch {torch.__version__}', flush=True)
    env_only = {}
    if a.env_only:
        from throughput import env_only as bare, backends
        for b in backends():
            (wall, cpu), games = bare(b, 8, a.env_only, 0); env_only[b] = dict(steps_per_s=round(a.env_only / wall, 1), cpu_s=round(cpu, 2))
        print('env only', json.dumps(env_only), flush=True)
    rows = []
    for spec in a.presets.split(','):
        algo, _, n = spec.partition(':'); steps = int(n or a.steps)
        row = dict(algo=algo, env=cfg_for(algo, steps, a.starts, 'cpu')[0], steps=steps)
        try:
            run(algo, min(steps, 2 * a.starts), a.starts, devices[-1])   # warm-up: imports, CUDA context, kernels' first launches
            times = {d: [] for d in devices}
            for r in range(a.repeats):
                for d in (devices if r % 2 == 0 else devices[::-1]): times[d].append(run(algo, steps, a.starts, d)[:2])
            for d in devices:
                wall, cpu = statistics.median(t[0] for t in times[d]), statistics.median(t[1] for t in times[d])
                row[d] = dict(steps_per_s=round(steps / wall, 1), wall_s=round(wall, 2), cpu_s=round(cpu, 2))
                if not a.no_profile:
                    _, _, row[d]['split_s'], n = run(algo, steps, a.starts, d, profile=True)
                    row[d]['updates'], row[d]['ms_per_update'] = n, round(1e3 * row[d]['split_s']['update'] / max(n, 1), 2)
            for d in devices:
                if d != 'cpu' and 'cpu' in row: row[f'{d}_vs_cpu'] = round(row[d]['steps_per_s'] / row['cpu']['steps_per_s'], 3)
            if a.syncs and torch.cuda.is_available(): row['syncs'] = count_syncs(algo, steps, a.starts)
        except Exception as e:   # one preset failing on a device must not cost the others' numbers
            import traceback; traceback.print_exc(); row['error'] = f'{type(e).__name__}: {e}'
        rows.append(row)
        print(json.dumps(row), flush=True)
    report(dict(gpu=gpu, threads=a.threads, vector=a.vector, env_only=env_only, rows=rows), a.save)

if __name__ == '__main__': main()
