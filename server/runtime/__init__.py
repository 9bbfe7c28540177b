"""The asyncio runtime around the sans-I/O room core: who is connected, the room actors, the
manager of one process's rooms, finished games, and ownership (one process, or Redis leases)."""
