"""How fast can a CQL update be on one CPU thread? rlnb's update beside a bare loop and beside the penalty's passes alone.

CQL for Box actions (Kumar et al. 2020; d3rlpy's and rlnb's defaults) scores N = 10 sampled actions per state from each of
three proposals (π(·|s), π(·|s'), uniform) with both critics, forward and backward: 2 × 3 × B × N = 15,360 rows at batch
B = 256, through (256, 256) MLPs. This bench times, in one process on one torch thread, alternating in repeats:
  rlnb      rlnb's CQL learner on Pendulum medium-replay (`learn.fit`), one whole update
  bare      the same update in plain torch, nothing else: SAC's target, the twin critics' TD loss, the sampled penalty,
            SAC's actor and temperature losses, Adam, Polyak targets
  penalty   only the penalty's critic passes: both critics forward and backward over the 3 × B × N sampled rows
  sgemm     the measured speed of one [3BN, 256] @ [256, 256] matmul; the penalty's hidden-layer matmuls (forward,
            weight gradient and input gradient of the 256 x 256 layer, both critics) at that speed are a floor no
            eager implementation goes under
Medians of per-repeat process CPU time (wall time beside it). With --d3rlpy-ms (d3rlpy's CPU per update from
bench/offline_vs_d3rlpy.py) it prints what 0.7x of it is against these floors. Ends with one JSON line.

    python bench/cql_bound.py --d3rlpy-ms 85.24 --save bench/results/cql_bound.json
"""
import argparse, math, os, statistics, sys, time
from pathlib import Path
from record import add_save, report


def bare_parts(B=256, N=10, O=3, A=1, H=256):
    "`(update, penalty)`: a bare CQL update and the penalty's critic passes alone, in plain torch"
    import torch, torch.nn as nn
    torch.manual_seed(0)
    mlp = lambda i, o: nn.Sequential(nn.Linear(i, H), nn.ReLU(), nn.Linear(H, H), nn.ReLU(), nn.Linear(H, o))
    q1, q2, t1, t2 = (mlp(O + A, 1) for _ in range(4))
    body = nn.Sequential(nn.Linear(O, H), nn.ReLU(), nn.Linear(H, H), nn.ReLU())
    mean, lstd, log_alpha = nn.Linear(H, A), nn.Linear(H, A), torch.zeros((), requires_grad=True)
    oc = torch.optim.Adam([*q1.parameters(), *q2.parameters()], 3e-4)
    oa = torch.optim.Adam([*body.parameters(), *mean.parameters(), *lstd.parameters()], 1e-4)
    ot = torch.optim.Adam([log_alpha], 1e-4)
    obs, nobs, act, rew = torch.randn(B, O), torch.randn(B, O), torch.rand(B, A) * 2 - 1, torch.randn(B)

    def pi(o):
        h = body(o); return mean(h), lstd(h).clamp(-20, 2)

    def sample(m, ls):
        u = m + ls.exp() * torch.randn_like(m); a = torch.tanh(u)
        lp = (-0.5 * ((u - m) / ls.exp()) ** 2 - ls - 0.5 * math.log(2 * math.pi)).sum(-1)
        return a, lp - torch.log(1 - a * a + 1e-6).sum(-1)

    Q = lambda o, a: torch.stack([q(torch.cat([o, a], 1))[:, 0] for q in (q1, q2)])

    def update():
        with torch.no_grad():
            a2, _ = sample(*pi(nobs))
            y = rew + 0.99 * torch.minimum(*(t(torch.cat([nobs, a2], 1))[:, 0] for t in (t1, t2)))
            a_s, lp_s = sample(*(x.repeat_interleave(N, 0) for x in pi(obs)))
            a_n, lp_n = sample(*(x.repeat_interleave(N, 0) for x in pi(nobs)))
            a_u = torch.rand_like(a_s) * 2 - 1
        q = Q(obs, act)
        qs = Q(obs.repeat_interleave(N, 0).repeat(3, 1), torch.cat([a_s, a_n, a_u]))
        qs = qs.view(2, 3, B, N).transpose(1, 2).reshape(2, B, 3 * N)
        lp = torch.cat([lp_s.view(B, N), lp_n.view(B, N), torch.full((B, N), A * math.log(0.5))], 1)
        loss = 0.5 * ((q - y) ** 2).mean(-1).sum() + 5 * ((qs - lp).logsumexp(-1) - q).mean(-1).sum()
        oc.zero_grad(); loss.backward(); oc.step()
        a, lpa = sample(*pi(obs))
        al = (log_alpha.exp().detach() * lpa - Q(obs, a).min(0).values).mean()
        oa.zero_grad(); al.backward(); oa.step()
        tl = -(log_alpha * (lpa.detach() - A)).mean(); ot.zero_grad(); tl.backward(); ot.step()
        with torch.no_grad():
            for t, s in ((t1, q1), (t2, q2)):
                for pt, ps in zip(t.parameters(), s.parameters()): pt.lerp_(ps, 0.005)

    x = torch.cat([obs.repeat_interleave(N, 0).repeat(3, 1), torch.rand(3 * B * N, A)], 1)

    def penalty():
        qs = torch.stack([q1(x)[:, 0], q2(x)[:, 0]])
        oc.zero_grad(); qs.sum().backward()
    return update, penalty


def sgemm_gflops(rows, H=256, n=100):
    "Measured GFLOP/s of a [rows, H] @ [H, H] matmul on this thread (process CPU time)"
    import torch
    a, w = torch.randn(rows, H), torch.randn(H, H)
    for _ in range(5): a @ w
    t = time.process_time()
    for _ in range(n): a @ w
    return 2 * rows * H * H * n / (time.process_time() - t) / 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--repeats', type=int, default=7)
    ap.add_argument('--steps', type=int, default=20, help='updates per repeat and side')
    ap.add_argument('--dataset', default='pendulum/medium-replay-v0')
    ap.add_argument('--datasets-path', default='runs/offline-bench/datasets', help="MINARI_DATASETS_PATH (bench/offline.py's)")
    ap.add_argument('--d3rlpy-ms', type=float, help="d3rlpy's CPU ms per update (bench/offline_vs_d3rlpy.py)")
    add_save(ap)
    a = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    os.environ.setdefault('MINARI_DATASETS_PATH', str(Path(a.datasets_path).resolve()))
    from rlnb.memory.dataset import read_dataset
    from rlnb.offline_presets import offline_config
    data = read_dataset(a.dataset)
    cfg = offline_config('cql', data.action_space, dict(updates=10 ** 7, eval_every=10 ** 8))
    learn = cfg.build(data, seed=0, progress=False)
    update, penalty = bare_parts()
    sides = dict(rlnb=lambda: learn.fit(a.steps), bare=lambda: [update() for _ in range(a.steps)],
                 penalty=lambda: [penalty() for _ in range(a.steps)])
    for f in sides.values(): f()   # warm
    cpu, wall = {k: [] for k in sides}, {k: [] for k in sides}
    for r in range(a.repeats):
        for k in (list(sides) if r % 2 == 0 else list(sides)[::-1]):   # alternate the order
            t, w = time.process_time(), time.perf_counter(); sides[k]()
            cpu[k].append((time.process_time() - t) / a.steps * 1e3); wall[k].append((time.perf_counter() - w) / a.steps * 1e3)
    rows = 3 * 256 * 10
    g = statistics.median(sgemm_gflops(rows) for _ in range(3))
    floor = 2 * 3 * 2 * rows * 256 * 256 / g / 1e6   # 2 critics x 3 matmuls (forward, dW, dX) of the 256 x 256 layer, ms
    out = dict(cpu_ms={k: round(statistics.median(v), 2) for k, v in cpu.items()},
               wall_ms={k: round(statistics.median(v), 2) for k, v in wall.items()},
               sgemm_gflops=round(g, 1), penalty_matmul_floor_ms=round(floor, 2), repeats=a.repeats, steps=a.steps)
    if a.d3rlpy_ms:
        out |= dict(d3rlpy_ms=a.d3rlpy_ms, target_ms=round(0.7 * a.d3rlpy_ms, 2),
                    rlnb_ratio=round(out['cpu_ms']['rlnb'] / a.d3rlpy_ms, 3),
                    penalty_alone_ratio=round(out['cpu_ms']['penalty'] / a.d3rlpy_ms, 3))
    report(out, a.save)


if __name__ == '__main__': main()
