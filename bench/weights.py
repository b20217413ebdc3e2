"""Weight hashes of every preset after a short run: the proof that a refactor did not move the numbers.

Trains each preset in `rlnb.presets.PRESETS` for `--steps` env steps (seed 0, default 6,000) through `train_run`,
exactly as `rlnb train ALGO --steps N` does, and hashes the final checkpoint's model weights (sha256 over the
state dict's names, dtypes, shapes and bytes, in order; the first 12 hex digits). Run it before and after a change:
equal hashes mean equal weights, bit for bit.

    python bench/weights.py                  # every preset without pixels
    python bench/weights.py --algos ppo_minatar --steps 6000   # a pixel preset by name (dqn_atari/dqn_minatar need more steps than they wait to learn)
    python bench/weights.py --algos dqn,ppo  # some
Ends with one JSON line {algo: hash}.
"""
import argparse, hashlib, json, sys, tempfile, time
from record import add_save, report
from pathlib import Path
import torch
from rlnb.core import load_checkpoint
from rlnb.callback import checkpoints
from rlnb.presets import PRESETS
from rlnb.train import train_run

def weights_hash(model_state: dict) -> str:
    "sha256 over a state dict's names, dtypes, shapes and bytes, in order: the first 12 hex digits"
    h = hashlib.sha256()
    for k, t in model_state.items():
        t = t.detach().cpu().contiguous()
        h.update(f'{k}:{t.dtype}:{tuple(t.shape)}'.encode()); h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()[:12]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--algos', default=','.join(n for n, p in PRESETS.items() if p.cfg.preprocess is None))   # pixel presets learn after 50,000+ transitions: name them to hash them at a larger --steps
    ap.add_argument('--steps', type=int, default=6_000)
    add_save(ap)
    args = ap.parse_args()
    torch.set_num_threads(1)
    out, tmp = {}, Path(tempfile.mkdtemp(prefix='rlnb-weights-'))
    for algo in args.algos.split(','):
        t0 = time.time()
        train_run(algo, steps=args.steps, seed=0, out=tmp/algo, progress=False)
        out[algo] = weights_hash(load_checkpoint(checkpoints(tmp/algo/'checkpoints')[-1])['model'])
        print(f'{algo:<16} {out[algo]}  ({time.time() - t0:.1f} s)', file=sys.stderr)
    report(out, args.save)

if __name__ == '__main__': main()
