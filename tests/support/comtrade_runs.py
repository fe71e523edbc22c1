from agentmetrology.agents.comtrade.registry import make_agent
from agentmetrology.agents.drive import drive
from agentmetrology.agents.scaffolds.comtrade import run_episode_async
from agentmetrology.envs.comtrade import ComtradeEnv
from agentmetrology.records import Episode


def run(task: str, seed: int, agent: str, level: str, profile: str = "seeded",
        condition: str = "clean") -> tuple[Episode, ComtradeEnv]:
    env = ComtradeEnv(task, seed, profile, condition)  # type: ignore[arg-type]
    return drive(run_episode_async(env, make_agent(agent), level)), env
