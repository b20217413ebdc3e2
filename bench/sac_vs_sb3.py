"""rlnb SAC and TD3 against Stable-Baselines3, TQC and CrossQ against sb3-contrib, with identical hyperparameters (and a bare loop).

Speed (default): Pendulum-v1, one env, one torch thread, no evaluation during the timed runs. SAC with
rl-baselines3-zoo's settings (SB3's defaults with learning rate 1e-3: MLP [256, 256], batch 256, buffer 1M,
learning_starts 100, one gradient step per env step, tau 0.005, gamma 0.99, learned temperature from 1.0 toward
-dim(A)); TD3 (--algo td3) with the zoo's Pendulum settings ([400, 300], lr 1e-3, gamma 0.98, buffer 200k,
Gaussian exploration noise 0.1, policy delay 2, target noise 0.2 clipped at 0.5) except learning_starts, which
is SB3's default 100 on both sides so that the timed steps are update steps. The bare loop is the least code
that does the same work: a plain gymnasium env, batch-1 acting, a numpy ring buffer with uniform sampling with
replacement, two nn.Sequential critics, fused Adam, the same losses in the same order. rlnb, SB3 and the bare
loop run alternately, their order rotating every repeat; each ratio is the median of the repeats' paired ratios, printed with
its range, in wall time and in process CPU time; rlnb runs without its final evaluation.

Quality (--quality): the same seeds for rlnb's preset and SB3 with the same hyperparameters, evaluated every
--eval-every env steps with --eval-episodes deterministic episodes (20); prints the first env step at which the mean
reached --threshold and the last evaluation's mean, per seed, for both, and each final agent's mean on the same
--eval-episodes episodes (`rlnb_final`, `sb3_final`: 10 envs seeded seed + 20,000 on both sides). Runs go to --steps (--stop: to the first solving evaluation). With --env HalfCheetah-v5
both use the zoo's MuJoCo settings (learning_starts 10,000).

Same updates (--same-updates): rlnb's losses and SB3's train() from the same weights, on the same batches and normal draws,
in float64 (any difference in the arithmetic shows) and float32 (with a control: SB3 against itself, actions one rounding apart).

Needs `pip install -e ".[bench]"` (and `".[mujoco]"` for MuJoCo). Ends with one JSON line.

    python bench/sac_vs_sb3.py [--algo sac|td3] [--steps 3000] [--repeats 3]
    python bench/sac_vs_sb3.py --algo tqc   # TQC's preset (sb3-contrib's defaults, lr 1e-3) against sb3-contrib's TQC; no bare loop
    python bench/sac_vs_sb3.py --algo crossq   # CrossQ's preset (the zoo's: critics (256, 256), actor every 2nd step) against sb3-contrib's
    python bench/sac_vs_sb3.py --quality [--algo sac|td3] [--seeds 0,1,2] [--steps 5000] [--eval-every 500]
    python bench/sac_vs_sb3.py --same-updates [--algo sac|td3] [--env HalfCheetah-v5] [--updates 1000]
    python bench/sac_vs_sb3.py --quality --env HalfCheetah-v5 --steps 100000 --eval-every 10000 --eval-episodes 10 --threshold 3000
"""
import argparse, json, statistics, time
from record import add_save, report
from timing import alternate, clock, compare, no_eval, ratios_line, since
import numpy as np, torch
from torch import nn
import torch.nn.functional as F

def settings(algo, env, quality):
    "The hyperparameters both sides use, as rlnb config fields"
    from rlnb.presets import get_preset
    cfg = get_preset(algo, env).cfg
    if algo == 'td3' and env == 'Pendulum-v1':   # the zoo's TD3 for speed; the preset (small, quick) for quality
        cfg = cfg if quality else type(cfg)(gamma=0.98, buffer=200_000, lr=1e-3, hidden=(400, 300), action_noise=0.1, learning_starts=100)
    return cfg

def run_rlnb(algo, env, cfg, steps, seed, eval_every=None, threshold=None, episodes=20, stop=False):
    from dataclasses import replace
    c = replace(cfg, total_steps=steps, eval_every=eval_every or 10**9, eval_episodes=episodes, threshold=threshold, stop_when_solved=stop)
    learn = c.learner(env, seed, progress=False)
    if not eval_every: no_eval(learn)   # speed: SB3 and the bare loop evaluate nothing either
    t0 = clock(); learn.train(); wall, cpu = since(t0)
    ev = learn.evaluator
    out = dict(wall=wall, cpu=cpu, solved_at=ev.solved_at, evals=list(learn.metrics.series.get('eval_return', ([], []))[1]))
    if eval_every: out['final'] = same_episodes(lambda o: learn.evaluator.eval_agent.act(o, deterministic=True)[0], env, episodes, seed)
    learn.close()
    return out

def sb3_model(algo, env, cfg, seed):
    import gymnasium as gym
    from stable_baselines3 import SAC, TD3
    from stable_baselines3.common.noise import NormalActionNoise
    e = gym.make(env)
    common = dict(learning_rate=cfg.lr, buffer_size=cfg.buffer, learning_starts=cfg.learning_starts, batch_size=cfg.bs, tau=cfg.tau, gamma=cfg.gamma,
                  train_freq=cfg.train_every, gradient_steps=cfg.updates, policy_kwargs=dict(net_arch=list(cfg.hidden)), seed=seed, device='cpu', verbose=0)
    if algo == 'sac': return SAC('MlpPolicy', e, **common)
    if algo == 'tqc':   # sb3-contrib's TQC, its critics' shape and truncation as rlnb's config has them
        from sb3_contrib import TQC
        common['policy_kwargs'] |= dict(n_quantiles=cfg.n_quantiles, n_critics=cfg.n_critics)
        return TQC('MlpPolicy', e, top_quantiles_to_drop_per_net=cfg.drop_per_net, **common)
    if algo == 'crossq':   # sb3-contrib's CrossQ: no target networks (no tau), the critics' width and renormalisation as rlnb's
        from sb3_contrib import CrossQ
        common.pop('tau')
        common['policy_kwargs'] = dict(net_arch=dict(pi=list(cfg.hidden), qf=list(cfg.critic_hidden)), batch_norm_momentum=cfg.bn_momentum,
                                       batch_norm_eps=cfg.bn_eps, renorm_warmup_steps=cfg.renorm_warmup,
                                       optimizer_kwargs=dict(betas=tuple(cfg.betas)))
        return CrossQ('MlpPolicy', e, policy_delay=cfg.policy_delay, **common)
    A = e.action_space.shape[0]
    return TD3('MlpPolicy', e, action_noise=NormalActionNoise(np.zeros(A), cfg.action_noise * np.ones(A)), policy_delay=cfg.policy_delay,
               target_policy_noise=cfg.smoothing.noise, target_noise_clip=cfg.smoothing.clip, **common)

class SB3Eval:
    "Evaluate an SB3 model every `every` env steps on `episodes` deterministic episodes (10 envs, rlnb's evaluator), outside the timed work"
    def __init__(self, model, env, every, episodes, threshold, seed, stop=False):
        from rlnb.data.gym import make_envs
        from stable_baselines3.common.callbacks import BaseCallback
        self.envs, self.every, self.episodes, self.threshold, self.seed, self.stop, self.evals, self.solved_at = make_envs(env, 10), every, episodes, threshold, seed, stop, [], None
        outer = self
        class CB(BaseCallback):
            def _on_step(self):
                if self.num_timesteps % outer.every: return True
                m = outer.evaluate(model)
                outer.evals.append(m)
                if outer.threshold is not None and m >= outer.threshold and outer.solved_at is None: outer.solved_at = self.num_timesteps
                return not (outer.stop and outer.solved_at is not None)
        self.cb = CB()
    def evaluate(self, model):
        from rlnb.data.eval import evaluate
        class Agent:
            def act(self, obs, deterministic=True):
                return torch.as_tensor(model.predict(obs.numpy(), deterministic=True)[0]), {}
        return evaluate(self.envs, Agent(), self.episodes, seed=self.seed).mean

def run_sb3(algo, env, cfg, steps, seed, eval_every=None, threshold=None, episodes=20, stop=False):
    model = sb3_model(algo, env, cfg, seed)
    ev = SB3Eval(model, env, eval_every, episodes, threshold, seed + 10_000, stop) if eval_every else None
    t0 = clock(); model.learn(steps, callback=ev.cb if ev else None); wall, cpu = since(t0)
    final = same_episodes(lambda o: torch.as_tensor(model.predict(o.numpy(), deterministic=True)[0]), env, episodes, seed) if ev else None
    return dict(wall=wall, cpu=cpu, solved_at=ev.solved_at if ev else None, evals=ev.evals if ev else [], final=final)

def same_episodes(act, env, episodes, seed):
    "The final agent's mean return on the same `episodes` episodes for both sides (10 envs seeded `seed + 20,000`)"
    from rlnb.data.gym import make_envs
    from rlnb.data.eval import evaluate
    class Agent:
        def act(self, obs, deterministic=True): return act(obs), {}
    return round(evaluate(make_envs(env, 10), Agent(), episodes, seed=seed + 20_000).mean, 1)

def _mlp(sizes, out_act=None):
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers += [nn.Linear(a, b)] + ([nn.ReLU()] if i < len(sizes) - 2 else [])
    return nn.Sequential(*layers, *([out_act] if out_act else []))

def run_bare(algo, env, cfg, steps, seed, eval_every=None, threshold=None, episodes=20, stop=False):
    "The same acting and updates with nothing else: a plain env, a numpy ring buffer, nn.Sequential networks, fused Adam (evaluated every `eval_every` env steps, for --quality)"
    import copy, gymnasium as gym
    torch.manual_seed(seed); rng = np.random.default_rng(seed)
    e = gym.make(env); O, A = e.observation_space.shape[0], e.action_space.shape[0]
    low, high = e.action_space.low, e.action_space.high
    H = list(cfg.hidden)
    qs = [_mlp([O + A, *H, 1]) for _ in range(2)]; qt = copy.deepcopy(qs)
    for q in qt: q.requires_grad_(False)
    qp = [p for q in qs for p in q.parameters()]
    if algo == 'sac':
        body = _mlp([O, *H]); body.append(nn.ReLU()); mu, ls = nn.Linear(H[-1], A), nn.Linear(H[-1], A)
        actor_p = [*body.parameters(), *mu.parameters(), *ls.parameters()]
        log_alpha = torch.zeros((), requires_grad=True)
        opt_a, opt_t = torch.optim.Adam(actor_p, lr=cfg.lr, fused=True), torch.optim.Adam([log_alpha], lr=cfg.lr, fused=True)
        def pi(o):
            h = body(o); m, s = mu(h), ls(h).clamp(-20, 2)
            u = m + s.exp() * torch.randn_like(m)
            a = torch.tanh(u)
            logp = (-0.5 * ((u - m) / s.exp()) ** 2 - s - 0.5 * np.log(2 * np.pi)).sum(-1) - (2 * (np.log(2) - u - F.softplus(-2 * u))).sum(-1)
            return a, logp
    else:
        actor = _mlp([O, *H, A], nn.Tanh()); actor_t = copy.deepcopy(actor).requires_grad_(False)
        opt_a = torch.optim.Adam(actor.parameters(), lr=cfg.lr, fused=True)
    opt_q = torch.optim.Adam(qp, lr=cfg.lr, fused=True)
    N = min(cfg.buffer, steps)
    bo, ba, br, bn, bd = np.zeros((N, O), np.float32), np.zeros((N, A), np.float32), np.zeros(N, np.float32), np.zeros((N, O), np.float32), np.zeros(N, np.float32)
    evals, solved_at = [], None
    if eval_every:
        from rlnb.data.gym import make_envs
        from rlnb.data.eval import evaluate
        eval_envs = make_envs(env, 10)
        class Greedy:
            def act(self, o, deterministic=True):
                with torch.no_grad():
                    u = torch.tanh(mu(body(o))) if algo == 'sac' else actor(o)
                return torch.as_tensor(low) + (u + 1) * torch.as_tensor((high - low) / 2), {}
    obs, _ = e.reset(seed=seed); n = 0; t0 = clock()
    for t in range(steps):
        if eval_every and t and t % eval_every == 0:
            m = evaluate(eval_envs, Greedy(), episodes, seed=seed + 10_000).mean; evals.append(m)
            if threshold is not None and m >= threshold and solved_at is None: solved_at = t
            if stop and solved_at is not None: break
        if t < cfg.learning_starts: ua = rng.uniform(-1, 1, A).astype(np.float32)
        else:
            with torch.no_grad():
                o = torch.as_tensor(obs)[None]
                if algo == 'sac': ua = pi(o)[0][0].numpy()
                else: ua = np.clip(actor(o)[0].numpy() + cfg.action_noise * rng.standard_normal(A), -1, 1).astype(np.float32)
        nobs, r, term, trunc, _ = e.step(low + (ua + 1) * (high - low) / 2)
        i = n % N; bo[i], ba[i], br[i], bn[i], bd[i] = obs, ua, r, nobs, term; n += 1
        obs = e.reset()[0] if term or trunc else nobs
        if t + 1 < cfg.learning_starts: continue
        idx = rng.integers(0, min(n, N), cfg.bs)
        o, a, rw, no, d = (torch.from_numpy(x[idx]) for x in (bo, ba, br, bn, bd))
        with torch.no_grad():
            if algo == 'sac':
                alpha = log_alpha.exp()
                a2, lp2 = pi(no); x2 = torch.cat([no, a2], 1)
                y = rw + cfg.gamma * (1 - d) * (torch.min(qt[0](x2), qt[1](x2))[:, 0] - alpha * lp2)
            else:
                sm = cfg.smoothing; a2 = (actor_t(no) + (sm.noise * torch.randn_like(a)).clamp(-sm.clip, sm.clip)).clamp(-1, 1); x2 = torch.cat([no, a2], 1)
                y = rw + cfg.gamma * (1 - d) * torch.min(qt[0](x2), qt[1](x2))[:, 0]
        x = torch.cat([o, a], 1)
        lq = sum(F.mse_loss(q(x)[:, 0], y) for q in qs) * (0.5 if algo == 'sac' else 1.)
        opt_q.zero_grad(); lq.backward(); opt_q.step()
        if algo == 'sac':
            ap, lp = pi(o); xa = torch.cat([o, ap], 1)
            la = (alpha * lp - torch.min(qs[0](xa), qs[1](xa))[:, 0]).mean()
            opt_a.zero_grad(); la.backward(inputs=actor_p); opt_a.step()
            lt = -(log_alpha * (lp.detach() - A)).mean()
            opt_t.zero_grad(); lt.backward(); opt_t.step()
            with torch.no_grad(): torch._foreach_lerp_([p for q in qt for p in q.parameters()], qp, cfg.tau)
        elif (t + 2 - cfg.learning_starts) % cfg.policy_delay == 0:
            la = -qs[0](torch.cat([o, actor(o)], 1)).mean()
            opt_a.zero_grad(); la.backward(inputs=list(actor.parameters())); opt_a.step()
            with torch.no_grad():
                torch._foreach_lerp_([p for q in qt for p in q.parameters()], qp, cfg.tau)
                torch._foreach_lerp_(list(actor_t.parameters()), list(actor.parameters()), cfg.tau)
    wall, cpu = since(t0)
    return dict(wall=wall, cpu=cpu, solved_at=solved_at, evals=evals)

def same_updates(a):
    """rlnb's updates against SB3's, one at a time, from the same weights, on the same batches and the same noise.

    Both sides get the batch through their own code (SB3's replay sample is replaced; rlnb's losses step as its learner steps
    them: `backward(inputs=...)`, then the Polyak rule). Normal draws are shared: the actor's draw on s (under grad) and the
    draw on s' (under no_grad) for SAC, the smoothing noise for TD3. In float64 any difference in the arithmetic would show
    at the size of the updates; in float32 a control pair (SB3 against SB3, actions one rounding apart) shows how fast
    rounding alone grows through Adam."""
    import gymnasium as gym
    import stable_baselines3.common.policies as sb3_policies
    from stable_baselines3.common.type_aliases import ReplayBufferSamples
    from stable_baselines3.common.logger import configure
    from torch.distributions import Normal
    import rlnb.nets, rlnb.continuous, rlnb.agents.sac, rlnb.agents.td3
    from rlnb.core import Seeder
    from rlnb.continuous import to_unit
    cfg = settings(a.algo, a.env, False)
    e = gym.make(a.env); O, A = e.observation_space.shape[0], e.action_space.shape[0]
    keep = sb3_policies.preprocess_obs, rlnb.nets.flatten_obs, Normal.rsample, torch.Tensor.normal_, torch.randn
    eps = {}
    def draw(*args, **kw): return (eps['s'] if torch.is_grad_enabled() else eps['s2']).clone()   # TD3 draws only under no_grad
    def run(dtype):
        torch.set_default_dtype(dtype)
        sb3_policies.preprocess_obs = lambda obs, space, normalize_images=True: obs.to(dtype)   # SB3 casts observations to float32
        for m in (rlnb.nets, rlnb.agents.sac, rlnb.agents.td3): m.flatten_obs = lambda o: o.reshape(len(o), -1).to(dtype)
        Normal.rsample = lambda self, shape=torch.Size(): self.loc + self.scale * draw()
        torch.Tensor.normal_ = lambda self, mean=0., std=1., **kw: self.copy_(std * draw())
        def sb3():
            m = sb3_model(a.algo, a.env, cfg, 0); m.set_logger(configure(None, [])); m.policy.to(dtype)
            for o in ('actor', 'critic'): getattr(m, o).optimizer = torch.optim.Adam(getattr(m, o).parameters(), lr=cfg.lr, fused=True)
            if a.algo == 'sac':
                m.log_ent_coef.data = m.log_ent_coef.data.to(dtype); m.ent_coef_optimizer = torch.optim.Adam([m.log_ent_coef], lr=cfg.lr, fused=True)
            return m
        m, ctl = sb3(), sb3()
        parts = (rlnb.agents.sac.sac_parts if a.algo == 'sac' else rlnb.agents.td3.td3_parts)(cfg, torch.zeros(1, O), e.action_space, Seeder(1))
        sb3_actor = [*m.actor.latent_pi.parameters(), *m.actor.mu.parameters(), *m.actor.log_std.parameters()] if a.algo == 'sac' else list(m.actor.parameters())
        pairs = [(parts.model.actor.parameters(), sb3_actor), (parts.model.critic.parameters(), m.critic.parameters())]
        pairs += [(cb.target.parameters(), (m.critic_target if cb.online is parts.model.critic else m.actor_target).parameters()) for cb in parts.cbs]
        pairs = [(list(x), list(y)) for x, y in pairs]
        with torch.no_grad():
            parts.model.to(dtype)
            for cb in parts.cbs: cb.target.to(dtype)
            for x, y in pairs:
                assert [p.shape for p in x] == [p.shape for p in y]
                for p, q in zip(x, y): p.copy_(q)
        flat = lambda ps: torch.cat([p.detach().flatten() for p in ps])
        start = flat(p for x, _ in pairs for p in x)
        low, high = torch.as_tensor(e.action_space.low, dtype=dtype), torch.as_tensor(e.action_space.high, dtype=dtype)
        rng = np.random.default_rng(0)
        for k in range(a.updates):
            g = lambda *shape: torch.as_tensor(rng.normal(size=shape), dtype=dtype)
            obs, nxt, r = g(cfg.bs, O), g(cfg.bs, O), g(cfg.bs)
            unit = torch.as_tensor(rng.uniform(-1, 1, (cfg.bs, A)), dtype=dtype); act = low + (unit + 1) * ((high - low) / 2)
            term = torch.as_tensor(rng.uniform(size=cfg.bs) < 0.1); eps['s'], eps['s2'] = g(cfg.bs, A), g(cfg.bs, A)
            for model, u in ((m, to_unit(act, low, high)), (ctl, unit)):   # the control sees the actions one rounding apart
                model.replay_buffer.sample = lambda bs, env=None, b=ReplayBufferSamples(obs, u, nxt, term.to(dtype)[:, None], r[:, None]): b
                model.train(gradient_steps=1, batch_size=cfg.bs)
            batch = type('Batch', (), dict(step=type('Step', (), dict(obs=obs, action=act, reward=r, next_obs=nxt, terminated=term))()))()
            torch.randn = draw
            try:
                for loss in parts.losses:
                    if (k + 1) % loss.period: continue
                    loss.compute(loss.predict(batch), batch).backward(inputs=loss.params); loss.step()
                    for cb in parts.cbs:
                        if cb.after == loss.name: cb.rule(cb.target, cb.online, k + 1)
            finally: torch.randn = keep[4]
        mine, theirs = flat(p for x, _ in pairs for p in x), flat(p for _, y in pairs for p in y)
        control = flat([*ctl.actor.parameters(), *ctl.critic.parameters()]) - flat([*m.actor.parameters(), *m.critic.parameters()])
        return dict(diff=(mine - theirs).abs().max().item(), control=control.abs().max().item(), moved=(mine - start).abs().max().item())
    try: r64, r32 = run(torch.float64), run(torch.float32)
    finally:
        torch.set_default_dtype(torch.float32)
        sb3_policies.preprocess_obs, flatten = keep[0], keep[1]
        for m in (rlnb.nets, rlnb.agents.sac, rlnb.agents.td3): m.flatten_obs = flatten
        Normal.rsample, torch.Tensor.normal_, torch.randn = keep[2], keep[3], keep[4]
    print(f"{a.updates} {a.algo} updates on {a.env} batches: weights moved up to {r64['moved']:.2e}; rlnb against SB3: {r64['diff']:.1e} in float64, "
          f"{r32['diff']:.1e} in float32; SB3 against SB3 with actions one float32 rounding apart: {r32['control']:.1e}")
    return dict(mode='same_updates', algo=a.algo, env=a.env, updates=a.updates, moved=r64['moved'], float64_max_diff=r64['diff'],
                float32_max_diff=r32['diff'], float32_sb3_vs_sb3_max_diff=r32['control'])

def speed(a):
    cfg = settings(a.algo, a.env, False)
    sides = dict(sb3=run_sb3, rlnb=run_rlnb) | ({} if a.algo in ('tqc', 'crossq') else dict(bare=run_bare))   # no bare TQC or CrossQ loop (yet)
    runs = {n: (lambda k, f=f: (lambda r: (r['wall'], r['cpu']))(f(a.algo, a.env, cfg, a.steps, k))) for n, f in sides.items()}
    t = alternate(runs, a.repeats)
    if 'bare' not in t:
        out = dict(algo=a.algo, env=a.env, steps=a.steps, repeats=a.repeats, **compare(t))
        print(f"rlnb {out['rlnb_s']:.1f} s, sb3-contrib {out['sb3_s']:.1f} s (wall, medians); paired ratios: {out}")
        return out
    out = dict(algo=a.algo, env=a.env, steps=a.steps, repeats=a.repeats, **compare(t),
               bare_over_sb3=round(statistics.median(b[0] / s[0] for b, s in zip(t['bare'], t['sb3'])), 3))
    print(f"rlnb {out['rlnb_s']:.1f} s, SB3 {out['sb3_s']:.1f} s, bare loop {out['bare_s']:.1f} s (wall, medians); paired ratios, median [range]: "
          + ratios_line(out, dict(ratio_vs_sb3=0.7, cpu_ratio_vs_bare=1.05)) + f"; bare/SB3 {out['bare_over_sb3']:.3f} (the best any library on this loop could do)")
    return out

def quality(a):
    cfg = settings(a.algo, a.env, True)
    rows = []
    for seed in [int(s) for s in a.seeds.split(',')]:
        thr = a.threshold
        r = run_rlnb(a.algo, a.env, cfg, a.steps, seed, a.eval_every, thr, a.eval_episodes, a.stop) if 'rlnb' in a.sides else None
        s = run_sb3(a.algo, a.env, cfg, a.steps, seed, a.eval_every, thr, a.eval_episodes, a.stop) if 'sb3' in a.sides else None
        b = run_bare(a.algo, a.env, cfg, a.steps, seed, a.eval_every, thr, a.eval_episodes, a.stop) if 'bare' in a.sides else None
        r, s, b = (x or dict(solved_at=None, evals=[], wall=0.) for x in (r, s, b))
        rows.append(dict(seed=seed, rlnb_solved_at=r['solved_at'], sb3_solved_at=s['solved_at'], rlnb_last=round(r['evals'][-1], 1) if r['evals'] else None,
                         sb3_last=round(s['evals'][-1], 1) if s['evals'] else None, rlnb_final=r.get('final'), sb3_final=s.get('final'),   # *_final: the same episodes for both
                         rlnb_s=round(r['wall'], 1), sb3_s=round(s['wall'], 1), bare_solved_at=b['solved_at']))
        print(rows[-1], flush=True)
    med = lambda k: statistics.median([x[k] if x[k] is not None else float('inf') for x in rows])
    return dict(algo=a.algo, env=a.env, threshold=a.threshold, eval_every=a.eval_every, steps=a.steps, rows=rows,
                rlnb_median_steps=med('rlnb_solved_at'), sb3_median_steps=med('sb3_solved_at'))

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--algo', default='sac', choices=['sac', 'td3', 'tqc', 'crossq'])
    ap.add_argument('--env', default='Pendulum-v1')
    ap.add_argument('--steps', type=int, default=None, help='env steps per run (default: 3000 for speed, 5000 for quality)')
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--quality', action='store_true')
    ap.add_argument('--same-updates', action='store_true', help="rlnb's updates against SB3's from the same weights, batches and noise (see same_updates)")
    ap.add_argument('--updates', type=int, default=1000, help='updates compared in --same-updates')
    ap.add_argument('--seeds', default='0,1,2')
    ap.add_argument('--eval-every', type=int, default=500)
    ap.add_argument('--threshold', type=float, default=-200.)
    ap.add_argument('--eval-episodes', type=int, default=20)
    ap.add_argument('--stop', action='store_true', help='in --quality, end each run at its first evaluation at or above --threshold')
    ap.add_argument('--sides', default='rlnb,sb3', help='which to run in --quality: rlnb, sb3, bare (comma-separated)')
    add_save(ap)
    a = ap.parse_args()
    a.steps = a.steps or (5000 if a.quality else 3000)
    torch.set_num_threads(1)
    report(same_updates(a) if a.same_updates else quality(a) if a.quality else speed(a), a.save)

if __name__ == '__main__': main()
