import json, os, sys, time, statistics
from concurrent.futures import ProcessPoolExecutor, as_completed
sys.path.insert(0, 'bench')
from learn import run_one
R = dict(
  R1={}, R2=dict(n_steps=64), R3=dict(n_envs=4), R4=dict(lr=3e-3), R5=dict(gamma=0.98), R6=dict(ent_coef=0.01))
P = dict(
  P1={}, P2=dict(lr=3e-4), P3=dict(obs_norm=False), P4=dict(n_steps=256, n_envs=8), P5=dict(log_std_init=-0.5, lr_schedule='linear'), P6=dict(reward_norm=False))
jobs = [('C', 'ppo', 'CartPole-v1', s, {}) for s in range(10)]
jobs += [(k, 'ppo', 'Pendulum-v1', s, v) for k, v in P.items() for s in range(5)]
jobs += [(k, 'reinforce', 'CartPole-v1', s, v) for k, v in R.items() for s in range(10)]
out = open(os.path.join(os.environ.get('OUT', '.'), 'results.jsonl'), 'w')
res = {}
t0 = time.time()
with ProcessPoolExecutor(int(sys.argv[1]) if len(sys.argv) > 1 else 16) as ex:
    futs = {ex.submit(run_one, a, e, s, o): (tag, s) for tag, a, e, s, o in jobs}
    for f in as_completed(futs):
        tag, s = futs[f]
        try: r = f.result()
        except Exception as err: r = dict(seed=s, error=repr(err))
        r['tag'] = tag; out.write(json.dumps(r) + '\n'); out.flush()
        res.setdefault(tag, []).append(r)
for tag, rs in res.items():
    solved = sorted(r['solved_at'] for r in rs if r.get('solved_at') is not None)
    print(tag, f'solved {len(solved)}/{len(rs)}', 'median', statistics.median(solved) if solved else None, 'steps', solved,
          'wall med', round(statistics.median(r.get('wall_s', 0) for r in rs), 1), 'last', [round(r.get('last_eval') or 0) for r in rs], [r.get('error') for r in rs if 'error' in r][:1])
print('total', time.time() - t0)
