"""Request filters: pure ASGI middleware, one concern per module (never BaseHTTPMiddleware)."""
