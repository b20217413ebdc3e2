"""Learner groups: samples per second through the update with 1 learner against N learners (`rlnb.learners`), and the share
of the update spent in the group's collectives (all-reduce and broadcast: gradients, the agreed env-step count and stop, masked
means and standardised advantages over the ranks). The gradients' buckets are sent during backward (`GradSync`): their share is
the time `GradSync` spends sending, waiting for them after backward, and copying the averages back, not the time they travel.

Each side runs the real update of a preset (its losses, callbacks and, for the group, `GradSync`, `GroupSync` and the group means)
on one real minibatch collected at the start and fed again and again, so that only the update is timed:
  - 1 learner in this process with `--threads` torch threads (no group);
  - N learners, a Ray actor each in one gloo group, with threads / N threads each, each on its share of the rows (bs / N).
Rows per update are the same on both sides (the preset's bs). Paired, alternating repeats; medians. CPU time is the process CPU
time of every process of the side (the learners'), beside wall time.

    python bench/learners.py --algos ppo_atari,ppo --learners 2 --threads 2 --save bench/results/learners.json

With `--group-of-one`, no Ray: one learner outside a group against a group of one in this process (`GradSync` and `GroupSync`
on a real process group: NCCL on `--device cuda`, else gloo), the cost of being in a group where only one device is lent.

    python bench/learners.py --group-of-one --device cuda --algos ppo_atari --threads 0 --save bench/results/learners_h200.json
"""
import argparse, statistics, time
from record import add_save, report
from timing import alternate

def time_collectives() -> list:
    "A list whose one number counts the seconds this process spends in all_reduce and broadcast (every collective the update makes) from now on"
    import torch.distributed as dist
    if hasattr(dist, '_bench_seconds'): return dist._bench_seconds
    dist._bench_seconds = comm = [0.]
    for name in ('all_reduce', 'broadcast'):
        f = getattr(dist, name)
        def timed(*a, _f=f, **kw):
            if kw.get('async_op'): return _f(*a, **kw)   # GradSync's buckets, sent during backward: its own `seconds` count them with their waits
            t = time.perf_counter()
            try: return _f(*a, **kw)
            finally: comm[0] += time.perf_counter() - t
        setattr(dist, name, timed)
    return comm

class Given:
    "These batches, in order, in front of the learner's own pipeline (whose collector its callbacks read)"
    def __init__(self, batches, source): self.batches, self.source = batches, source
    def __iter__(self): return iter(self.batches)

def updates(algo, env, k, learners, threads=None, seed=0, device=None, one=False):
    "Wall and CPU seconds of `k` updates of preset `algo`'s learner (this rank's share with `learners` > 1; `one`: a group of one in this process), their rows, and seconds in collectives"
    import torch
    from rlnb.presets import get_preset, with_changes
    from rlnb.group import in_group, join_group, leave_group, free_address
    from rlnb.rl import grouped, Run
    if threads: torch.set_num_threads(threads)
    comm = time_collectives()
    p = get_preset(algo, env)
    cfg = with_changes(p.cfg, dict(learners=learners) | ({'device': device} if device else {}))
    if one: join_group(0, 1, free_address(), 'nccl' if device == 'cuda' else 'gloo')
    try:
        learn = grouped(cfg.resolved(), Run(env or p.env, seed, (), False, None, None)) if one else cfg.learner(env or p.env, seed, progress=False)
        return _timed(learn, k, comm, device)
    finally:
        if one: leave_group()

def _timed(learn, k, comm, device):
    import torch
    from rlnb.group import in_group
    with learn:
        batch = next(iter(learn.data))   # one real minibatch (its rollout collected here)
        learn.data = Given([batch] * (k + 3), learn.data)
        learn.fit(3)   # warm-up
        if in_group(): torch.distributed.barrier()
        sync = next((cb for cb in learn.cbs if type(cb).__name__ == 'GradSync'), None)
        if device == 'cuda': torch.cuda.synchronize()
        c0, t0, comm0, grads0 = time.process_time(), time.perf_counter(), comm[0], sync.seconds if sync else 0.
        learn.fit(k)
        if device == 'cuda': torch.cuda.synchronize()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        rows = len(batch.obs) if hasattr(batch, 'obs') else len(batch.step.obs)
        return dict(wall=wall, cpu=cpu, rows=rows * k, comm=comm[0] - comm0, grads=(sync.seconds if sync else 0.) - grads0)

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--algos', default='ppo_atari,ppo', help='comma-separated presets')
    ap.add_argument('--learners', type=int, default=2)
    ap.add_argument('--threads', type=int, default=2, help="torch threads in all: the one learner's, or split over the group")
    ap.add_argument('--updates', type=int, default=20, help='updates timed per repeat (MLP presets: 25 times as many)')
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--group-of-one', action='store_true', help='no group against a group of one in this process (no Ray)')
    ap.add_argument('--device', default=None, help="the learners' device (default: the preset's)")
    add_save(ap)
    a = ap.parse_args()
    if a.group_of_one: return group_of_one(a)
    import ray
    from rlnb.learners import LearnerGroup
    from rlnb.presets import get_preset
    ray.init(address='local', num_cpus=max(2, a.learners), include_dashboard=False, logging_level='warning')
    rows = []
    with LearnerGroup(a.learners, threads=max(1, a.threads // a.learners)) as group:
        for algo in a.algos.split(','):
            k = a.updates * (1 if get_preset(algo).cfg.preprocess else 25)
            res = {'1': [], str(a.learners): []}
            def one(_):
                r = updates(algo, None, k, 1, a.threads); res['1'].append(r); return r['wall'], r['cpu']
            def many(_):
                rs = group.run(updates, algo, None, k, a.learners); r = dict(rs[0], cpu=sum(x['cpu'] for x in rs), rows=sum(x['rows'] for x in rs))
                res[str(a.learners)].append(r); return r['wall'], r['cpu']
            alternate({'1': one, str(a.learners): many}, a.repeats)
            med = lambda side, f: statistics.median(f(r) for r in res[side])
            n = str(a.learners)
            row = dict(algo=algo, updates=k, rows_per_update=res['1'][0]['rows'] // k, threads=a.threads, learners=a.learners,
                       samples_per_s_1=round(med('1', lambda r: r['rows'] / r['wall']), 1), samples_per_s_n=round(med(n, lambda r: r['rows'] / r['wall']), 1),
                       speedup=round(statistics.median(b['wall'] and (a_['wall'] / b['wall']) for a_, b in zip(res['1'], res[n])), 3),
                       cpu_ratio=round(statistics.median(b['cpu'] / a_['cpu'] for a_, b in zip(res['1'], res[n])), 3),
                       allreduce_share=round(med(n, lambda r: (r['comm'] + r['grads']) / r['wall']), 3), gradients_share=round(med(n, lambda r: r['grads'] / r['wall']), 3))
            print(f"{algo}: 1 learner x {a.threads} threads {row['samples_per_s_1']} samples/s, {a.learners} learners x {max(1, a.threads // a.learners)} "
                  f"{row['samples_per_s_n']} samples/s (speedup {row['speedup']}, CPU ratio {row['cpu_ratio']}), collectives {row['allreduce_share']:.1%} of the group's update time "
                  f"(the gradients' all-reduce {row['gradients_share']:.1%})", flush=True)
            rows.append(row)
    ray.shutdown()
    report(rows, a.save)

def group_of_one(a):
    "Paired alternating repeats of each preset's update outside a group and in a group of one: samples/s and the group's overhead"
    from rlnb.presets import get_preset
    rows = []
    for algo in a.algos.split(','):
        k, res = a.updates * (1 if get_preset(algo).cfg.preprocess else 25), {'none': [], 'one': []}
        def side(name):
            def f(_):
                r = updates(algo, None, k, 1, a.threads or None, device=a.device, one=name == 'one'); res[name].append(r); return r['wall'], r['cpu']
            return f
        alternate({'none': side('none'), 'one': side('one')}, a.repeats)
        med = lambda side, f: statistics.median(f(r) for r in res[side])
        row = dict(algo=algo, device=a.device, updates=k, rows_per_update=res['none'][0]['rows'] // k,
                   samples_per_s_none=round(med('none', lambda r: r['rows'] / r['wall']), 1), samples_per_s_one=round(med('one', lambda r: r['rows'] / r['wall']), 1),
                   overhead=round(statistics.median(o['wall'] / n['wall'] for n, o in zip(res['none'], res['one'])) - 1, 3),
                   allreduce_share=round(med('one', lambda r: (r['comm'] + r['grads']) / r['wall']), 3))
        print(f"{algo} on {a.device}: no group {row['samples_per_s_none']} samples/s, a group of one {row['samples_per_s_one']} (overhead {row['overhead']:+.1%}, collectives {row['allreduce_share']:.1%})", flush=True)
        rows.append(row)
    report(rows, a.save)

if __name__ == '__main__': main()
