"""Shared by the side-by-side benchmarks: wall and CPU time of a region, paired alternating repeats and their ratios, an rlnb
learner's training timed (optionally profiled, its time split by the loop's spans)."""
import resource, statistics, time

def clock() -> tuple:
    "Now, as (wall seconds, CPU seconds of this process and of its children that have exited)"
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter(), time.process_time() + r.ru_utime + r.ru_stime

def since(t0: tuple) -> tuple:
    "(wall, CPU) seconds since `t0 = clock()`"
    t1 = clock(); return t1[0] - t0[0], t1[1] - t0[1]

def alternate(runs: dict, repeats: int, label=lambda k: '') -> dict:
    "`{name: [(wall, cpu), ...]}`: each of `runs` (`name: f(repeat) -> (wall, cpu)`) once per repeat, who goes first rotating"
    t = {n: [] for n in runs}
    for k in range(repeats):
        order = list(runs)[k % len(runs):] + list(runs)[:k % len(runs)]
        for n in order: t[n].append(runs[n](k))
        print(f"repeat {k} ({', '.join(order)}): " + '  '.join(f'{n} {t[n][-1][0]:.2f} s (CPU {t[n][-1][1]:.2f})' for n in runs) + label(k), flush=True)
    return t

def compare(t: dict, ref: str = 'rlnb') -> dict:
    """Medians of every side's wall and CPU seconds (`NAME_s`, `NAME_cpu_s`), and `ref`'s paired ratios to each other side, wall and
    CPU: the median over repeats (`ratio_vs_NAME`, `cpu_ratio_vs_NAME`) and the range (`..._spread`: [min, max])"""
    out = {}
    for n, v in t.items(): out[f'{n}_s'], out[f'{n}_cpu_s'] = round(statistics.median(w for w, _ in v), 2), round(statistics.median(c for _, c in v), 2)
    for n in t:
        if n == ref: continue
        for i, kind in ((0, 'ratio'), (1, 'cpu_ratio')):
            r = [a[i] / b[i] for a, b in zip(t[ref], t[n])]
            out[f'{kind}_vs_{n}'], out[f'{kind}_vs_{n}_spread'] = round(statistics.median(r), 3), [round(min(r), 3), round(max(r), 3)]
    return out

def ratios_line(out: dict, targets: dict = {}) -> str:
    "The ratios of `compare`'s result as one line, with the targets where given (`{'ratio_vs_sb3': 0.65}`)"
    return ', '.join(f"{k} {out[k]:.3f} [{out[k + '_spread'][0]:.3f}, {out[k + '_spread'][1]:.3f}]" + (f' (target <= {targets[k]})' if k in targets else '')
                     for k in out if k.startswith(('ratio_vs', 'cpu_ratio_vs')) and not k.endswith('_spread'))

def no_eval(learn):
    """`learn` without its final evaluation: the peers and the bare loops evaluate nothing, so the timed work must not either.
    Its `FinalEvalCallback` stays: it ends an on-policy fit where the budget of env steps is spent (without it the fit
    would run to `max_batches`, an upper bound); only the evaluation it makes there is skipped."""
    learn.evaluator.final = lambda env_step: None
    return learn

def timed_train(learn, split=False):
    "`((wall, CPU) seconds, opt steps, split or None)` of training `learn` (without its final evaluation) to its budget; `split` profiles the run (a little slower: never a timed repeat)"
    no_eval(learn).profiling = split
    t0 = clock(); learn.train(); t = since(t0)
    return t, learn.opt_step, ({k: round(v, 2) for k, v in time_split(learn).items()} if split else None)

def time_split(learn) -> dict:
    "Where a profiled run's time went, from the loop's spans: acting, env stepping, updates, and the rest of fit"
    from rlnb.loop import SPAN
    st, col = learn.profile_stats(), type(learn.collector).__name__
    span = lambda loop, x: st[(loop, x, SPAN)].total
    t = dict(acting=span(col, 'act'), env=span(col, 'env_step'), update=span(learn.name, 'batch'))
    t['other'] = span(learn.name, 'fit') - sum(t.values())
    return t
