from agentmetrology.agents.scaffolds.runner import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.envs.registry import get_env
from agentmetrology.records import Episode
from agentmetrology.run.episode import make_policy
from agentmetrology.runtime.drive import drive

COMTRADE = get_env("comtrade")


def run(task: str, seed: int, agent: str, level: str, profile: str = "seeded",
        condition: str = "clean") -> tuple[Episode, ComtradeEnv]:
    env = ComtradeEnv(task, seed, profile, condition)  # type: ignore[arg-type]
    return drive(run_episode_async(COMTRADE, env, make_policy(COMTRADE, agent), level)), env
