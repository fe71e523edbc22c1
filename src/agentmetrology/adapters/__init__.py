"""RL-framework adapters: every registered environment as an OpenEnv (and verifiers) environment.

Each adapter reads only the environment specification and drives episodes through the one
runner (`adapters.session`), so scaffold levels, tools and scorers are those of `agm run`; the
reward is the environment's outcome scorer and an unmeasured episode carries no reward.
"""
