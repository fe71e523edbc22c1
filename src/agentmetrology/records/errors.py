"""The error roots: what a user did wrong, and what failed in the infrastructure.

`UserError` is the root of every error a user can fix (a bad argument, file, campaign, store or
environment); its message says what was wrong and how to fix it, and the CLI prints it as one
line, `error: MESSAGE`, with exit code 2, wherever it is raised. `InfraError` is a measurement
failure, never an agent failure.
"""


class UserError(ValueError):
    """An error the user can fix; the message says what was wrong and how to fix it."""


class InfraError(Exception):
    """Raised by a policy when its infrastructure failed (e.g. a provider's retries ran out)."""


class NotDerivedAgain(Exception):
    """A report whose numbers cannot be derived again from its store for a reason that is no
    edit (an input the store does not keep): said as a note, never as a problem."""
