"""Calls to the Hub that fail in one line: offline, unreachable, or refused.

``huggingface_hub`` raises ``OfflineModeIsEnabled`` under ``HF_HUB_OFFLINE=1``, its HTTP
client's transport errors (no route, DNS, timeouts) when the network is down, and
``HfHubHTTPError`` when the Hub answers with an error. Left alone, each reaches the user as a
45-line traceback. :func:`hub_step` turns them into polyprobe errors that say which step
failed and what had (not) been written by then.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from polyprobe.errors import PolyprobeError

# Exception classes of the HTTP clients huggingface_hub has used (httpx, its fork httpx2,
# requests) that mean "no answer": matched by name along the class's bases, so no client
# needs importing here.
_TRANSPORT = frozenset({"TransportError", "ConnectionError", "Timeout", "TimeoutException"})
_CLIENTS = frozenset({"httpx", "httpx2", "requests", "urllib3"})


class HubUnreachableError(PolyprobeError):
    """The Hub could not be asked (offline mode, no network): exit 2, nothing was refused.
    ``reason`` is the why alone (``"offline mode: HF_HUB_OFFLINE is set"``), for a plan to quote."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def unreachable_reason(exc: BaseException) -> str | None:
    """Why the Hub did not answer, or ``None`` when ``exc`` is not a no-answer error."""
    from huggingface_hub.errors import OfflineModeIsEnabled

    if isinstance(exc, OfflineModeIsEnabled):
        # huggingface_hub honours either variable
        names = [n for n in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE") if os.environ.get(n)]
        return f"offline mode: {' and '.join(names) or 'HF_HUB_OFFLINE'} is set"
    for cls in type(exc).__mro__:
        if cls.__name__ in _TRANSPORT and cls.__module__.split(".")[0] in _CLIENTS:
            return f"no answer: {type(exc).__name__}: {_first_line(exc)}"
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return f"no answer: {type(exc).__name__}: {_first_line(exc)}"
    return None


@contextmanager
def hub_step(
    step: str,
    written: str,
    refused: type[PolyprobeError],
    *,
    unanswered: str | None = None,
) -> Iterator[None]:
    """Run Hub calls as one ``step``: a Hub that does not answer becomes a
    :class:`HubUnreachableError`, one that answers with an error a ``refused`` — each one line
    naming the step and what had been written by then (``written``; ``unanswered`` instead
    when no answer leaves it unknown, e.g. whether a commit went through)."""
    from huggingface_hub.errors import HfHubHTTPError

    try:
        yield
    except HfHubHTTPError as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        said = " ".join(str(getattr(exc, "server_message", None) or "").split())
        answer = f"{status} {said}" if status and said else _first_line(exc)
        raise refused(f"{step}: the Hub answered {answer}; {written}") from None
    except Exception as exc:  # noqa: BLE001 - sorted below; anything else is re-raised
        why = unreachable_reason(exc)
        if why is None:
            raise
        state = unanswered or written
        raise HubUnreachableError(f"{step}: cannot reach the Hub ({why}); {state}", why) from None
