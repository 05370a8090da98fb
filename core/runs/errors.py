"""What a run's body or the engine raises to end an attempt early."""


class RunCancelled(Exception):
    """The owner asked the run to stop; raised at the body's next progress report."""


class RunFenced(Exception):
    """This attempt is no longer the run's live one (retried or ended meanwhile): a late worker
    stops here and writes nothing."""


class RunRefused(Exception):
    """The run's input cannot be processed: the run fails with this message, never retried."""
