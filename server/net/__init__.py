"""The network layer: one port for WebSockets and plain HTTP (health, metrics, web client)."""
