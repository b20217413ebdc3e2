"""rlnb's RayCollector against local collection of the same fragments, and 1 runner against 2.

Overhead: fragments of 4,096 transitions (a PPO actor-critic on CartPole-v1, 8 envs x 512 steps). A local
RolloutCollector and a synchronous RayCollector with 1 runner (the same `make`) collect one fragment each in
turn; before every Ray round the learner's step counter moves on, so each round also puts new weights in the
object store, as in training. `overhead` is the median over the pairs of (Ray time / local time - 1): what
Ray adds to collecting the same fragment (the request, the weights, moving the fragment back).

Scaling: an env whose step burns 1 ms of CPU (a busy loop on the clock, not a sleep) under CartPole-v1.
Synchronous fleets of 1 and of 2 runners, each runner with 4 envs and rollouts of 64 steps, take turns;
`scaling_2_runners` is the median over the pairs of (2 runners' transitions per second / 1 runner's).
The machine has 2 cores: the 2 runners use both while the learner's process waits for them.

Ends with one JSON line.

    python bench/ray_collect.py [--pairs 15]
"""
import argparse, json, os, statistics, time, warnings
from record import add_save, report
import numpy as np
import torch
import gymnasium as gym
import ray
from rlnb.agent import Agent
from rlnb.data.gym import make_envs
from rlnb.data.rollout import RolloutCollector
from rlnb.data.fleet import RayCollector
from rlnb.nets import ActorCritic
from rlnb.actions import policy_selector

class BurnCPU(gym.Wrapper):
    "Each step costs `ms` milliseconds of real computation"
    def __init__(self, env, ms=1.0): super().__init__(env); self.s = ms / 1000
    def step(self, action):
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < self.s: pass
        return self.env.step(action)

def policy():
    torch.manual_seed(0)
    space = gym.spaces.Discrete(2)
    return ActorCritic(torch.zeros(1, 4), space, (64, 64), False), space

def make_cartpole(index, n_envs=8, n_steps=512):
    torch.set_num_threads(1)
    net, space = policy()
    return RolloutCollector(make_envs('CartPole-v1', n_envs), Agent(net, policy_selector(space, index), space, forward=net.policy), n_steps, seed=10 * index)

def make_burn(index, n_envs=4, n_steps=64):
    torch.set_num_threads(1)
    net, space = policy()
    envs = make_envs([lambda: BurnCPU(gym.make('CartPole-v1'))] * n_envs)
    return RolloutCollector(envs, Agent(net, policy_selector(space, index), space, forward=net.policy), n_steps, seed=10 * index)

def timed(f):
    t0 = time.perf_counter(); out = f(); return time.perf_counter() - t0, out

def main(pairs, save=None):
    torch.set_num_threads(1)
    ray.init(address='local', num_cpus=4, include_dashboard=False, logging_level='warning', log_to_driver=False)
    try:
        # overhead
        local = make_cartpole(0); local.reset()
        fleet = RayCollector(make_cartpole, 1, policy()[0], n_envs=8); fleet.reset()
        next(local); next(fleet)   # warm
        ratios, t_local, t_ray = [], [], []
        for i in range(pairs):
            order = [0, 1] if i % 2 == 0 else [1, 0]
            t = {}
            for k in order:
                if k == 0: t[0], r = timed(lambda: next(local))
                else:
                    fleet.learner_step += 1   # the learner stepped: new weights go out with this round
                    t[1], r = timed(lambda: next(fleet))
                assert r.reward.numel() == 4096
            t_local.append(t[0]); t_ray.append(t[1]); ratios.append(t[1] / t[0] - 1)
        local.close(); fleet.close()
        overhead = statistics.median(ratios)
        print(f'fragment of 4,096 transitions: local {statistics.median(t_local)*1e3:.1f} ms, Ray (1 runner) {statistics.median(t_ray)*1e3:.1f} ms; overhead {overhead:+.1%} (median of {pairs} pairs)')
        # scaling
        one = RayCollector(make_burn, 1, policy()[0], n_envs=4); one.reset()
        two = RayCollector(make_burn, 2, policy()[0], n_envs=8); two.reset()
        next(one); next(two)
        rates1, rates2, ratios2 = [], [], []
        for i in range(pairs):
            res = {}
            for k in ([1, 2] if i % 2 == 0 else [2, 1]):
                f = one if k == 1 else two
                dt, r = timed(lambda: next(f))
                res[k] = int(r.valid.sum()) / dt
            rates1.append(res[1]); rates2.append(res[2]); ratios2.append(res[2] / res[1])
        one.close(); two.close()
        scaling = statistics.median(ratios2)
        print(f'env step of 1 ms CPU: 1 runner {statistics.median(rates1):,.0f} transitions/s, 2 runners {statistics.median(rates2):,.0f}; scaling {scaling:.2f}x (median of {pairs} pairs)')
    finally:
        ray.shutdown()
    report(dict(bench='ray_collect', overhead=round(overhead, 4), scaling_2_runners=round(scaling, 3),
                          local_ms=round(statistics.median(t_local) * 1e3, 2), ray_ms=round(statistics.median(t_ray) * 1e3, 2),
                          rate_1_runner=round(statistics.median(rates1)), rate_2_runners=round(statistics.median(rates2)), pairs=pairs,
                          target_overhead=0.10, target_scaling=1.8), save)

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--pairs', type=int, default=15)
    add_save(p)
    a = p.parse_args()
    main(a.pairs, a.save)
