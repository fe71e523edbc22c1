"""What runs at the bottom of every episode, below the environments that use it.

The tool recorder (executes a call on behalf of an actor and keeps the events), the synchronous
driver of an episode coroutine, the scripted-policy base that environments' model-free agents
extend, and the registry idiom every extension picked by name goes through. Imports only
`records`; environments may import it (docs/architecture.md).
"""
