import sys, json, torch
torch.set_num_threads(1)
from rlnb.train import get_preset
from rlnb.agents.dqn.core import train
p = get_preset(sys.argv[1], sys.argv[2]); over = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
learn = p.learner(seed=int(sys.argv[3]), progress=False, **over)
train(learn)
s, v = learn.metrics['eval_return']
print(over, 'seed', sys.argv[3], [(a, round(b)) for a, b in zip(s, v)])
