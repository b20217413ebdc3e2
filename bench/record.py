"""Every bench ends with one JSON line. With `--save FILE` it also writes that result to FILE (under bench/results/),
wrapped with where it came from: the command, the date, the machine's core count and the package versions.
The benchmarks page (nbs/90_benchmarks.ipynb) reads those files."""
import json, os, platform, sys, time
from importlib.metadata import version, PackageNotFoundError

PACKAGES = ('rlnb', 'torch', 'gymnasium', 'numpy', 'stable-baselines3', 'sb3-contrib', 'ray', 'ale-py', 'minatar')

def versions(packages=PACKAGES) -> dict:
    "Installed version of each of `packages` (None where one is not installed), and Python's"
    def v(p):
        try: return version(p)
        except PackageNotFoundError: return None
    return {'python': platform.python_version(), **{p: v(p) for p in packages}}

def provenance(argv=None) -> dict:
    "Where a result comes from: the command that made it, today's date, the core count, the CPU and the versions"
    argv = sys.argv if argv is None else argv
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # commands read as run from the repository's root
    return dict(command=' '.join(['python', os.path.relpath(os.path.abspath(argv[0]), root), *argv[1:]]), date=time.strftime('%Y-%m-%d'),
                cores=os.cpu_count(), cpu=platform.processor() or platform.machine(), versions=versions())

def add_save(ap):
    "Give an argparse parser the `--save FILE` option"
    ap.add_argument('--save', metavar='FILE', help='also write the result, with the command, date, cores and versions, to FILE (bench/results/NAME.json)')

def report(result, save=None, sources=None):
    "Print `result` as the bench's last line; with `save`, also write it with its provenance (and `sources`: the provenance of the results it joins)"
    if save:
        os.makedirs(os.path.dirname(os.path.abspath(save)), exist_ok=True)
        with open(save, 'w') as f: f.write(json.dumps(dict(provenance(), **({'sources': sources} if sources else {}), result=result), indent=1) + '\n')
    print(json.dumps(result))
