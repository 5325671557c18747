"""Sending a request again when it never reached the model, for the embedded model's client.

A request that got no answer at all — the connection refused, or closed by the server before the
first byte of a response — cost the model nothing, so it is sent again, with a short backoff. One
whose answer began and then stopped (no token for `timeout` seconds, a connection dropped mid-answer)
is never sent again: the model would only redo the same work. The transport can tell the two apart
exactly: an answer that began has a response head, and this transport hands the response on as soon
as its head arrives, so whatever fails after that fails in the reader, not here.

Remote providers need none of this: the OpenAI client they go through sends again every request that
fails to connect or is dropped unanswered (its own retries, `llm_retries`), and logs each time it does.
"""

from __future__ import annotations

import logging

import httpx2
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt, wait_random_exponential

log = logging.getLogger("intellagent.llm")

UNANSWERED = (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.RemoteProtocolError, httpx2.ReadError,
              httpx2.WriteError)
"""What a request raises when no byte of a response came back: refused, reset, or closed unanswered. A
read timeout is not among them: the server may be working on it."""


class ResendUnanswered(httpx2.AsyncBaseTransport):
    """An HTTP transport that sends a request again, up to `resends` times, while it gets no answer at all.

    Args:
        label: the model, as the log names it.
        resends: times a request is sent again after its first try.
        limits: the connection pool's limits (its `keepalive_expiry` must be below the server's).
    """

    def __init__(self, *, label: str, resends: int, limits: httpx2.Limits) -> None:
        # No proxy: this transport reaches a server on this machine, whatever proxy the environment names.
        self._transport = httpx2.AsyncHTTPTransport(limits=limits)
        self._label = label
        self._resends = resends

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """The response, once its head has arrived; sent again while the request gets none."""
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(UNANSWERED),
            stop=stop_after_attempt(self._resends + 1),
            wait=wait_random_exponential(multiplier=0.2, max=2.0),
            before_sleep=self._log_resend,
            reraise=True,
        )
        return await retrying(self._transport.handle_async_request, request)

    def _log_resend(self, state: RetryCallState) -> None:
        request: httpx2.Request = state.args[0]
        error = state.outcome.exception() if state.outcome else None
        log.debug("%s: sending the request to %s again (try %d of %d): no answer came back (%s: %s)",
                  self._label, request.url.path, state.attempt_number + 1, self._resends + 1,
                  type(error).__name__, error)

    async def aclose(self) -> None:
        """Close the pooled connections."""
        await self._transport.aclose()
