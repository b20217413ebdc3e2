import sys, json, time
sys.path.insert(0, 'bench')
from learn import run_one
algo, env, seed, over = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
r = run_one(algo, env, seed, over)
from rlnb.train import get_preset
print(json.dumps(dict(algo=algo, env=env, over=over, **{k: (round(v, 1) if isinstance(v, float) else v) for k, v in r.items()})))
