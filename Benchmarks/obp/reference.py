"""Reference values for SmartStack's off-policy estimators, computed with Open Bandit Pipeline.

Builds deterministic (seeded) bandit-feedback arrays, runs obp 0.5.7's estimators on them and
writes the arrays together with obp's point estimates (and obp's own bootstrap intervals, for
information) to Tests/SmartStackEvaluationTests/Fixtures/obp_reference.json.

The Swift test OffPolicyReferenceTests compares every point estimate within 1e-9.
Run from the repository root:  see Benchmarks/obp/README.md
"""

import json
import pathlib
import sys

import numpy as np
import obp
from obp.ope import (
    DirectMethod,
    DoublyRobust,
    DoublyRobustWithShrinkage,
    InverseProbabilityWeighting,
    ReplayMethod,
    SelfNormalizedInverseProbabilityWeighting,
    SwitchDoublyRobust,
)

OUT = pathlib.Path(__file__).resolve().parents[2] / "Tests/SmartStackEvaluationTests/Fixtures/obp_reference.json"


def softmax(x, axis=-1):
    z = np.exp(x - x.max(axis=axis, keepdims=True))
    return z / z.sum(axis=axis, keepdims=True)


def make_case(name, seed, n, n_actions, logging, evaluation, reward_kind, len_list=1):
    """One deterministic case.

    logging: "uniform" | "skewed" — the logging policy's distribution over actions per round.
    evaluation: "deterministic" | "stochastic" | "sparse" (stochastic with zero mass on some actions).
    reward_kind: "binary" | "continuous".
    len_list > 1 adds a position dimension (obp's action_dist is n x n_actions x len_list).
    """
    rng = np.random.RandomState(seed)
    true_q = rng.uniform(0.05, 0.6, size=(n, n_actions, len_list))
    if logging == "uniform":
        logging_dist = np.full((n, n_actions, len_list), 1.0 / n_actions)
    else:
        logging_dist = softmax(rng.normal(0.0, 1.5, size=(n, n_actions, len_list)), axis=1)
    position = rng.randint(len_list, size=n) if len_list > 1 else None
    pos = position if position is not None else np.zeros(n, dtype=int)
    action = np.array([rng.choice(n_actions, p=logging_dist[i, :, pos[i]]) for i in range(n)])
    pscore = logging_dist[np.arange(n), action, pos]
    q_logged = true_q[np.arange(n), action, pos]
    if reward_kind == "binary":
        reward = rng.binomial(1, q_logged).astype(float)
    else:
        reward = q_logged + rng.normal(0.0, 0.1, size=n)

    if evaluation == "deterministic":
        picks = rng.randint(n_actions, size=(n, len_list))
        action_dist = np.zeros((n, n_actions, len_list))
        for i in range(n):
            for k in range(len_list):
                action_dist[i, picks[i, k], k] = 1.0
    elif evaluation == "stochastic":
        action_dist = softmax(rng.normal(0.0, 1.0, size=(n, n_actions, len_list)), axis=1)
    else:  # sparse: stochastic over a random half of the actions, zero elsewhere
        logits = rng.normal(0.0, 1.0, size=(n, n_actions, len_list))
        mask = rng.uniform(size=(n, n_actions, len_list)) < 0.5
        mask[:, 0, :] = True
        logits[~mask] = -np.inf
        action_dist = softmax(logits, axis=1)

    # A reward model with error, as a regression would give.
    q_hat = np.clip(true_q + rng.normal(0.0, 0.08, size=true_q.shape), 0.0, 1.0)
    return dict(
        name=name,
        seed=seed,
        n_actions=n_actions,
        len_list=len_list,
        action=action,
        reward=reward,
        pscore=pscore,
        position=position,
        action_dist=action_dist,
        q_hat=q_hat,
    )


def estimators(case):
    """(estimator kind, parameter or None, obp estimator) triples run on every case."""
    deterministic = bool(np.all((case["action_dist"] == 0.0) | (case["action_dist"] == 1.0)))
    out = []
    if deterministic:
        # obp's ReplayMethod only counts rounds where the evaluation probability is exactly 1;
        # it is compared on deterministic evaluation policies only.
        out.append(("replay", None, ReplayMethod()))
    out += [
        ("ips", None, InverseProbabilityWeighting()),
        ("ips", 5.0, InverseProbabilityWeighting(lambda_=5.0)),
        ("ips", 2.5, InverseProbabilityWeighting(lambda_=2.5)),
        ("snips", None, SelfNormalizedInverseProbabilityWeighting()),
        ("dm", None, DirectMethod()),
        ("dr", None, DoublyRobust()),
        ("dr", 5.0, DoublyRobust(lambda_=5.0)),
        ("switch_dr", 5.0, SwitchDoublyRobust(lambda_=5.0)),
        ("switch_dr", 2.0, SwitchDoublyRobust(lambda_=2.0)),
        ("dr_os", 10.0, DoublyRobustWithShrinkage(lambda_=10.0)),
        ("dr_os", 1.0, DoublyRobustWithShrinkage(lambda_=1.0)),
    ]
    return out


def run(case):
    kwargs = dict(
        reward=case["reward"],
        action=case["action"],
        pscore=case["pscore"],
        action_dist=case["action_dist"],
        estimated_rewards_by_reg_model=case["q_hat"],
        position=case["position"],
    )
    results = []
    for kind, parameter, estimator in estimators(case):
        value = float(estimator.estimate_policy_value(**kwargs))
        interval = estimator.estimate_interval(**kwargs, n_bootstrap_samples=1000, random_state=7)
        lo = [v for k, v in interval.items() if "lower" in k][0]
        hi = [v for k, v in interval.items() if "upper" in k][0]
        results.append(dict(estimator=kind, parameter=parameter, value=value, obp_ci=[float(lo), float(hi)]))
    return results


def to_json(case):
    n = case["action"].shape[0]
    pos = case["position"] if case["position"] is not None else np.zeros(n, dtype=int)
    # Every obp estimator reads action_dist[i, :, position[i]] and q_hat[i, :, position[i]] only,
    # so the per-round slices at the logged position are the whole input.
    dist_at_pos = case["action_dist"][np.arange(n), :, pos]
    q_at_pos = case["q_hat"][np.arange(n), :, pos]
    return dict(
        name=case["name"],
        seed=case["seed"],
        rounds=int(n),
        n_actions=case["n_actions"],
        len_list=case["len_list"],
        action=[int(a) for a in case["action"]],
        position=None if case["position"] is None else [int(p) for p in case["position"]],
        reward=[float(r) for r in case["reward"]],
        pscore=[float(p) for p in case["pscore"]],
        action_dist_at_position=[[float(x) for x in row] for row in dist_at_pos],
        estimated_rewards_at_position=[[float(x) for x in row] for row in q_at_pos],
        estimates=run(case),
    )


def main():
    specs = [
        ("uniform_logging_deterministic_policy", 11, 240, 6, "uniform", "deterministic", "binary", 1),
        ("skewed_logging_deterministic_policy", 12, 240, 6, "skewed", "deterministic", "binary", 1),
        ("uniform_logging_stochastic_policy", 13, 240, 6, "uniform", "stochastic", "binary", 1),
        ("skewed_logging_stochastic_policy", 14, 240, 6, "skewed", "stochastic", "continuous", 1),
        ("skewed_logging_sparse_policy", 15, 240, 6, "skewed", "sparse", "binary", 1),
        ("positions_skewed_logging_stochastic_policy", 16, 240, 5, "skewed", "stochastic", "binary", 3),
        ("positions_uniform_logging_deterministic_policy", 17, 240, 5, "uniform", "deterministic", "binary", 3),
    ]
    cases = [to_json(make_case(*spec)) for spec in specs]
    document = dict(
        generator="Benchmarks/obp/reference.py",
        obp_version=obp.__version__,
        numpy_version=np.__version__,
        note=(
            "Point estimates from obp; obp_ci is obp's own bootstrap interval (1000 resamples, "
            "random_state=7, alpha=0.05), for information only (SmartStack's bootstrap is seeded "
            "differently). parameter is lambda_ for ips/dr/switch_dr/dr_os."
        ),
        cases=cases,
    )
    OUT.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)", file=sys.stderr)


if __name__ == "__main__":
    main()
