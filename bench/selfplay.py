"""Self-play DQN on a PettingZoo board game, over seeds: the final greedy network against a random player and a strong one.

Tic-tac-toe (default): each seed trains `SelfPlayConfig(...).learner(game)` for --steps
transitions, then plays --games greedy games per seat against a uniformly random legal player and --strong-games per
seat against a perfect minimax player (`rlnb.data.heuristics.TicTacToeMinimax`: negamax, ties between equally good moves
broken at random, so the games vary). A perfect player never loses: non-loss 100% against random play in both seats,
and every game against minimax drawn.

Connect Four (--game connect_four_v3): the strong player is `ConnectFourLookahead`, one move deep (win now if it can,
else block the opponent's immediate win, else a random legal move); the JSON reports the lowest win rate and the highest
loss rate over the seeds against it, per seat.

--set changes SelfPlayConfig fields: opponent=pool (with pool=5) plays against past snapshots, opponent=rival trains two networks against each
other (the first network is the one measured).

Seeds run in --workers processes (one torch thread each). Ends with one JSON line with `seeds`, `steps`,
`min_nonloss_first_vs_random`, `min_nonloss_second_vs_random` and `min_draw_vs_minimax` (tic-tac-toe: the lowest over
the seeds of the draw rate over both seats; Connect Four: the lookahead rates instead), and the per-seed rows.

    python bench/selfplay.py [--seeds 0,1,2,3,4] [--steps 60000] [--workers 2] [--set opponent=pool pool=5 | --set opponent=rival]
    python bench/selfplay.py --game connect_four_v3 --steps 200000 --seeds 0,1 --games 200 --strong-games 100
    python bench/selfplay.py --game connect_four_v3 --steps 400000 --seeds 0 --strong-games 50 --curve 50000   # the win-rate curve against the lookahead player
"""
import argparse, time
from record import add_save, report
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
import torch

def run(args):
    seed, game, steps, games, strong_games, changes, curve = args
    torch.set_num_threads(1)
    from rlnb.agents.selfplay import SelfPlayConfig, make_game
    from rlnb.presets import with_changes
    from rlnb.data.battle import LegalRandomAgent
    from rlnb.data.games import play_games
    from rlnb.data.heuristics import TicTacToeMinimax, ConnectFourLookahead
    from rlnb.callback import Callback
    from rlnb.loop import Cycle
    strong_player = TicTacToeMinimax if game == 'tictactoe_v3' else ConnectFourLookahead
    points = []
    class Curve(Callback):
        "Every `curve` transitions, `strong_games` greedy games per seat against the strong player: the curve of win rates"
        def __init__(self): self.cycle = Cycle(curve, 'env_step')
        def end_cycle(self):
            res = play_games(make_game(game, 8), self.learn.evaluator.eval_agent, strong_player(seed + 3000), strong_games)
            points.append(dict(env_step=self.learn.collector.env_step, win_first=res['first']['win'], win_second=res['second']['win']))
            print(f"{game} seed {seed} {points[-1]['env_step']:,} transitions: wins against {strong_player.__name__} {points[-1]['win_first']:.2f} first, {points[-1]['win_second']:.2f} second", flush=True)
    cfg = with_changes(SelfPlayConfig(), dict(changes, total_steps=steps, eval_every=steps + 1))   # no evaluation during the run: the final network is measured below
    learn = cfg.learner(game, seed, cbs=[Curve()] if curve else [], progress=False)
    t0 = time.perf_counter(); learn.train(); wall = time.perf_counter() - t0
    envs = make_game(game, 8)
    rnd = play_games(envs, learn.agent, LegalRandomAgent(seed + 1000), games)
    strong = play_games(envs, learn.agent, (TicTacToeMinimax if game == 'tictactoe_v3' else ConnectFourLookahead)(seed + 2000), strong_games)
    learn.close()
    return dict(seed=seed, wall_s=round(wall, 1), transitions=learn.env_step, games_played=learn.collector.episodes,
                nonloss_first_vs_random=1 - rnd['first']['loss'], nonloss_second_vs_random=1 - rnd['second']['loss'],
                win_first_vs_random=rnd['first']['win'], win_second_vs_random=rnd['second']['win'],
                strong_first=strong['first'], strong_second=strong['second'],
                draw_vs_strong=(strong['first']['draw'] + strong['second']['draw']) / 2, curve=points)

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--game', default='tictactoe_v3', choices=['tictactoe_v3', 'connect_four_v3'])
    ap.add_argument('--seeds', default='0,1,2,3,4')
    ap.add_argument('--steps', type=int, default=60_000, help='transitions per run (both seats)')
    ap.add_argument('--games', type=int, default=1000, help='greedy games per seat against the random player')
    ap.add_argument('--strong-games', type=int, default=200, help='games per seat against minimax (tic-tac-toe) or the lookahead heuristic (Connect Four)')
    ap.add_argument('--workers', type=int, default=2)
    ap.add_argument('--curve', type=int, default=0, metavar='N', help='also play --strong-games per seat against the strong player every N transitions: the win-rate curve (0: none)')
    ap.add_argument('--set', nargs='*', default=[], metavar='NAME=VALUE', help='SelfPlayConfig fields to change, e.g. opponent=pool pool=5 snapshot_every=10000')
    add_save(ap)
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(',')]
    from rlnb.settings import parse_settings
    from rlnb.agents.selfplay import SelfPlayConfig
    changes = parse_settings(SelfPlayConfig(), a.set)
    with ProcessPoolExecutor(a.workers) as ex:
        rows = list(ex.map(run, [(s, a.game, a.steps, a.games, a.strong_games, changes, a.curve) for s in seeds]))
    for r in rows: print({k: v for k, v in r.items()}, flush=True)
    out = dict(game=a.game, seeds=seeds, steps=a.steps, changes=changes, games_per_seat=a.games, strong_games_per_seat=a.strong_games,
               min_nonloss_first_vs_random=min(r['nonloss_first_vs_random'] for r in rows), min_nonloss_second_vs_random=min(r['nonloss_second_vs_random'] for r in rows))
    if a.game == 'tictactoe_v3': out['min_draw_vs_minimax'] = min(r['draw_vs_strong'] for r in rows)
    else: out |= {f'{m.__name__}_{k}_vs_lookahead_{s}': m(r[f'strong_{s}'][k] for r in rows) for m, k in ((min, 'win'), (max, 'loss')) for s in ('first', 'second')}
    out['rows'] = rows
    report(out, a.save)

if __name__ == '__main__': main()
