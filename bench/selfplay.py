"""Self-play DQN on a PettingZoo board game, over seeds: the final greedy network against a random player and a strong one.

Tic-tac-toe (default): each seed trains `rlnb.agents.selfplay.selfplay_learner` with `SelfPlayConfig` for --steps
transitions, then plays --games greedy games per seat against a uniformly random legal player and --strong-games per
seat against a perfect minimax player (negamax, ties between equally good moves broken at random, so the games vary).
A perfect player never loses: non-loss 100% against random play in both seats, and every game against minimax drawn.

Connect Four (--game connect_four_v3): the strong player is a one-step lookahead heuristic (win now if it can, else
block the opponent's immediate win, else a random legal move); its rates are wins, draws and losses.

Seeds run in --workers processes (one torch thread each). Ends with one JSON line with `seeds`, `steps`,
`min_nonloss_first_vs_random`, `min_nonloss_second_vs_random` and `min_draw_vs_minimax` (tic-tac-toe: the lowest over
the seeds of the draw rate over both seats), and the per-seed rows.

    python bench/selfplay.py [--seeds 0,1,2,3,4] [--steps 60000] [--workers 2] [--set pool=5 ...]
    python bench/selfplay.py --game connect_four_v3 --steps 300000 --seeds 0
"""
import argparse, json, time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from functools import lru_cache
import numpy as np, torch

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

@lru_cache(None)
def negamax(mine: int, theirs: int) -> int:
    "Tic-tac-toe's value for the player to move (bit k: square k is taken)"
    if any(all(theirs >> k & 1 for k in l) for l in LINES): return -1
    free = [k for k in range(9) if not (mine | theirs) >> k & 1]
    return max((-negamax(theirs, mine | 1 << k) for k in free), default=0)

class Minimax:
    "A perfect tic-tac-toe player, random among equally good moves"
    def __init__(self, seed=0): self.rng = np.random.default_rng(seed)
    def act(self, obs, deterministic=False):
        out = []
        for b in obs['observation']:
            mine, theirs = (sum(1 << k for k in range(9) if b[..., c].flatten()[k] > 0) for c in (0, 1))
            vals = {k: -negamax(theirs, mine | 1 << k) for k in range(9) if not (mine | theirs) >> k & 1}
            out.append(int(self.rng.choice([k for k, v in vals.items() if v == max(vals.values())])))
        return torch.tensor(out), {}

def _wins(board, col):
    "Whether dropping a piece of plane 0 in column `col` of a Connect Four board [6, 7, 2] makes four in a row"
    b = board[..., 0].copy(); taken = board[..., 0] + board[..., 1]
    rows = np.flatnonzero(taken[:, col] == 0)
    if not len(rows): return False
    b[rows.max(), col] = 1
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(6):
            for c in range(7):
                if all(0 <= r + k * dr < 6 and 0 <= c + k * dc < 7 and b[r + k * dr, c + k * dc] for k in range(4)): return True
    return False

class Lookahead:
    "Connect Four, one move deep: win now if possible, else block the opponent's immediate win, else a random legal move"
    def __init__(self, seed=0): self.rng = np.random.default_rng(seed)
    def act(self, obs, deterministic=False):
        out = []
        for b, m in zip(obs['observation'].numpy(), obs['action_mask'].numpy()):
            legal = np.flatnonzero(m)
            win = [c for c in legal if _wins(b, c)]
            block = [c for c in legal if _wins(b[..., ::-1], c)]
            out.append(int((win or block or [self.rng.choice(legal)])[0]))
        return torch.tensor(out), {}

def run(args):
    seed, game, steps, games, strong_games, changes = args
    torch.set_num_threads(1)
    from rlnb.agents.selfplay import SelfPlayConfig, selfplay_learner, make_game
    from rlnb.data.battle import LegalRandomAgent, play_games
    cfg = replace(SelfPlayConfig(), total_steps=steps, eval_every=steps + 1, **changes)   # no evaluation during the run: the final network is measured below
    learn = selfplay_learner(game, cfg, seed, progress=False)
    t0 = time.perf_counter(); learn.train(); wall = time.perf_counter() - t0
    envs = make_game(game, 8)
    rnd = play_games(envs, learn.agent, LegalRandomAgent(seed + 1000), games)
    strong = play_games(envs, learn.agent, (Minimax if game == 'tictactoe_v3' else Lookahead)(seed + 2000), strong_games)
    learn.close()
    return dict(seed=seed, wall_s=round(wall, 1), transitions=learn.env_step, games_played=learn.collector.episodes,
                nonloss_first_vs_random=1 - rnd['first']['loss'], nonloss_second_vs_random=1 - rnd['second']['loss'],
                win_first_vs_random=rnd['first']['win'], win_second_vs_random=rnd['second']['win'],
                strong_first=strong['first'], strong_second=strong['second'],
                draw_vs_strong=(strong['first']['draw'] + strong['second']['draw']) / 2)

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--game', default='tictactoe_v3', choices=['tictactoe_v3', 'connect_four_v3'])
    ap.add_argument('--seeds', default='0,1,2,3,4')
    ap.add_argument('--steps', type=int, default=60_000, help='transitions per run (both seats)')
    ap.add_argument('--games', type=int, default=1000, help='greedy games per seat against the random player')
    ap.add_argument('--strong-games', type=int, default=200, help='games per seat against minimax (tic-tac-toe) or the lookahead heuristic (Connect Four)')
    ap.add_argument('--workers', type=int, default=2)
    ap.add_argument('--set', nargs='*', default=[], metavar='NAME=VALUE', help='SelfPlayConfig fields to change, e.g. pool=5 snapshot_every=10000')
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(',')]
    from rlnb.presets import parse_settings
    from rlnb.agents.selfplay import SelfPlayConfig
    changes = parse_settings(SelfPlayConfig(), a.set)
    with ProcessPoolExecutor(a.workers) as ex:
        rows = list(ex.map(run, [(s, a.game, a.steps, a.games, a.strong_games, changes) for s in seeds]))
    for r in rows: print({k: v for k, v in r.items()}, flush=True)
    out = dict(game=a.game, seeds=seeds, steps=a.steps, changes=changes, games_per_seat=a.games, strong_games_per_seat=a.strong_games,
               min_nonloss_first_vs_random=min(r['nonloss_first_vs_random'] for r in rows), min_nonloss_second_vs_random=min(r['nonloss_second_vs_random'] for r in rows))
    key = 'min_draw_vs_minimax' if a.game == 'tictactoe_v3' else 'min_draw_vs_lookahead'
    out[key] = min(r['draw_vs_strong'] for r in rows)
    out['rows'] = rows
    print(json.dumps(out))

if __name__ == '__main__': main()
