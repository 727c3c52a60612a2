"""The HTTP server: what stands between a connection and the application's routes.

- `protocol`: the protocol `lisan serve` runs (uvicorn's httptools protocol), with
  `request_head`: the request line and headers bounded in size and time while they are read;
- `edge`: the request edge around the whole application (request id, the body read within its
  bounds, the last 500), and `access`: the access log's line and the request metrics;
- `error_handlers`: every error the application raises rendered as `{"error": ...}`;
- `metrics_listener`: `/metrics` on a port of its own.

It serves the application, so no domain imports it; the domains answer with `lisan.core.http`.
"""
