"Shared by the side-by-side benchmarks: time an rlnb learner's training, optionally profiled, and split its time by the loop's spans."
import time

def timed_train(learn, split=False):
    "`(wall seconds, opt steps, split or None)` of training `learn` to its budget; `split` profiles the run (a little slower: never a timed repeat)"
    learn.profiling = split
    t0 = time.perf_counter(); learn.train(); wall = time.perf_counter() - t0
    return wall, learn.opt_step, ({k: round(v, 2) for k, v in time_split(learn).items()} if split else None)

def time_split(learn) -> dict:
    "Where a profiled run's time went, from the loop's spans: acting, env stepping, updates, and the rest of fit"
    from rlnb.loop import SPAN
    st, col = learn.profile_stats(), type(learn.collector).__name__
    span = lambda loop, x: st[(loop, x, SPAN)].total
    t = dict(acting=span(col, 'act'), env=span(col, 'env_step'), update=span(learn.name, 'batch'))
    t['other'] = span(learn.name, 'fit') - sum(t.values())
    return t
