"""docker-compose.yml, the Dockerfile and the nginx config agree with each other and with the
code (Docker does not run here; the same topology runs for real in the multi-process tests)."""

from __future__ import annotations

import ipaddress
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from protocol.paths import parse_ws_path
from server.store.redis_sentinel import sentinel_address

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return data


@pytest.fixture(scope="module")
def serve_help() -> str:
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def cardroom_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: s
        for name, s in compose["services"].items()
        if s.get("command", [""])[0] == "cardroom"
    }


def sentinel_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: s
        for name, s in compose["services"].items()
        if "--sentinel" in " ".join(map(str, s.get("command", [])))
    }


def sentinel_lines(service: dict[str, Any]) -> list[str]:
    """The lines a Sentinel service writes to its config file (``printf '%s\\n' 'line' ...``)."""
    script = service["command"][-1]
    return re.findall(r"'([^']*)'", script.split(">", 1)[0])[1:]


def monitored(compose: dict[str, Any]) -> tuple[str, str, int, int]:
    """The Sentinels' ``monitor`` line: master name, host, port and quorum (the same in all)."""
    found = set()
    for service in sentinel_services(compose).values():
        for line in sentinel_lines(service):
            if line.startswith("sentinel monitor "):
                _, _, name, host, port, quorum = line.split()
                found.add((name, host, int(port), int(quorum)))
    assert len(found) == 1, found
    return found.pop()


def option(command: list[str], flag: str) -> str:
    return command[command.index(flag) + 1]


def nginx_upstreams() -> list[tuple[str, int]]:
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    block = re.search(r"upstream cardroom \{(.*?)\}", text, re.S)
    assert block, "nginx.conf has no upstream cardroom"
    return [(h, int(p)) for h, p in re.findall(r"^\s*server\s+([\w.-]+):(\d+)", block[1], re.M)]


def test_redis_keeps_an_append_only_file(compose: dict[str, Any]) -> None:
    redis = compose["services"]["redis"]
    assert redis["image"].startswith("redis:")
    command = redis["command"]
    assert command[0] == "redis-server" and option(command, "--appendonly") == "yes"
    assert any(v.endswith(":/data") for v in redis["volumes"])  # the AOF outlives the container
    assert set(compose["volumes"]) >= {v.split(":")[0] for v in redis["volumes"]}


@pytest.mark.slow
def test_two_cardroom_processes_share_redis(compose: dict[str, Any], serve_help: str) -> None:
    services = cardroom_services(compose)
    assert len(services) >= 2
    for name, service in services.items():
        assert service["build"] == "."
        command = service["command"]
        assert command[:2] == ["cardroom", "serve"], name
        for flag in (w for w in command if w.startswith("--")):
            assert re.search(rf"\s{re.escape(flag)}\b", serve_help), f"{name}: {flag} unknown"
        assert option(command, "--host") == "0.0.0.0"  # reachable from the proxy's container
        assert option(command, "--port") in service["expose"]
        assert "REDIS_URL" in serve_help  # serve reads it when --redis is not given
        sentinels, master, _ = sentinel_address(service["environment"]["REDIS_URL"])
        assert sorted(sentinels) == sorted((n, 26379) for n in sentinel_services(compose))
        assert master == monitored(compose)[0]
        assert set(service["depends_on"]) == set(sentinel_services(compose))
        assert option(command, "--durability") == "replicated"
        # serve --redis needs the secret, the same in every process: from the environment
        assert "CARDROOM_SECRET" in serve_help
        assert service["environment"]["CARDROOM_SECRET"].startswith("${CARDROOM_SECRET:?")


def test_sentinels_watch_the_primary_and_its_replica(compose: dict[str, Any]) -> None:
    services = compose["services"]
    sentinels = sentinel_services(compose)
    name, host, port, quorum = monitored(compose)
    assert len(sentinels) == 3 and quorum == 2  # a majority: one Sentinel alone cannot fail over
    assert host in services and port == 6379
    assert services[host]["command"][0] == "redis-server"
    replicas = [s for s in services.values() if "--replicaof" in s.get("command", [])]
    assert len(replicas) == 1
    command = replicas[0]["command"]
    assert command[command.index("--replicaof") + 1 :][:2] == [host, str(port)]
    assert option(command, "--appendonly") == "yes"
    for sentinel in sentinels.values():
        assert sentinel["image"].startswith("redis:")
        lines = sentinel_lines(sentinel)
        # a hostname is resolved only if it says so before the monitor line
        assert lines.index("sentinel resolve-hostnames yes") < lines.index(
            f"sentinel monitor {name} {host} {port} {quorum}"
        )
        assert "port 26379" in lines


def test_the_proxy_reaches_every_process_with_websockets(compose: dict[str, Any]) -> None:
    services = cardroom_services(compose)
    ports = {name: int(option(s["command"], "--port")) for name, s in services.items()}
    assert sorted(nginx_upstreams()) == sorted(ports.items())
    proxy = compose["services"]["proxy"]
    assert proxy["image"].startswith("nginx:")
    mounted = [v.split(":") for v in proxy["volumes"]]
    assert ["./deploy/nginx.conf", "/etc/nginx/conf.d/default.conf", "ro"] in mounted
    assert set(proxy["depends_on"]) == set(services)
    host_port, _, container_port = proxy["ports"][0].partition(":")
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    assert re.search(rf"listen\s+{container_port};", text)
    assert int(host_port) > 0
    # the WebSocket handshake passes through: HTTP/1.1 and the Upgrade headers forwarded
    assert "proxy_http_version 1.1;" in text
    assert "proxy_set_header Upgrade $http_upgrade;" in text
    assert "proxy_set_header Connection $connection_upgrade;" in text


def test_every_service_named_exists(compose: dict[str, Any]) -> None:
    names = set(compose["services"])
    for service in compose["services"].values():
        assert set(service.get("depends_on", ())) <= names


def test_the_image_runs_the_cli_it_installs(serve_help: str) -> None:
    text = (ROOT / "Dockerfile").read_text()
    for source in re.findall(r"^COPY\s+(.+?)\s+\S+$", text, re.M):
        for path in source.split():
            assert (ROOT / path).exists(), f"Dockerfile copies {path}, which is not in the repo"
    exposed = re.search(r"^EXPOSE\s+(\d+)", text, re.M)
    assert exposed
    cmd = re.search(r"^CMD\s+(\[.*\])$", text, re.M)
    assert cmd
    command = yaml.safe_load(cmd[1])
    assert command[:2] == ["cardroom", "serve"] and option(command, "--port") == exposed[1]
    for flag in (w for w in command if w.startswith("--")):
        assert flag in serve_help
    assert "/healthz" in text  # the health check asks the server's own health page


def test_the_image_installs_from_the_lock() -> None:
    text = (ROOT / "Dockerfile").read_text()
    installs = re.findall(r"pip install ([^\n&]+)", text)
    assert installs, "the Dockerfile installs nothing"
    # the dependencies come pinned and hashed; the project's own build adds nothing unpinned
    assert any("--require-hashes" in i and "requirements/run.txt" in i for i in installs)
    assert all("--require-hashes" in i or "--no-deps" in i for i in installs)
    assert all("--no-build-isolation" in i for i in installs if "-e ." in i)


def test_the_processes_trust_only_the_proxy_network(
    compose: dict[str, Any], serve_help: str
) -> None:
    # once, behind nginx every person looked like nginx's address, so the 51st
    # person per process was refused; the processes believe X-Forwarded-For from nginx only
    assert "CARDROOM_TRUSTED_PROXIES" in serve_help
    (subnet,) = [c["subnet"] for c in compose["networks"]["default"]["ipam"]["config"]]
    network = ipaddress.ip_network(subnet)
    proxy = compose["services"]["proxy"]
    assert "networks" not in proxy  # on the default network, whose range is pinned above
    for name, service in cardroom_services(compose).items():
        trusted = service["environment"]["CARDROOM_TRUSTED_PROXIES"].replace(",", " ").split()
        assert [ipaddress.ip_network(t) for t in trusted] == [network], name
        assert "--trusted-proxy" not in service["command"]  # one place says it: the env
    assert network.is_private


def test_nginx_forwards_the_client_address_and_the_host_as_sent() -> None:
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    # the address nginx saw, not one a client appended to (the server reads the right-most)
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in text
    # the port too: a page's Origin (http://localhost:8080) must match the Host it reached
    assert "proxy_set_header Host $http_host;" in text
    assert re.search(r"client_header_timeout\s+\d+s;", text)  # slow requests end at nginx


def test_nginx_routes_a_room_s_address_by_a_consistent_hash_of_its_code() -> None:
    # with least_conn a room's players were spread over both processes (half the
    # frames went through Redis); /ws/CODE now goes to the process the code hashes to
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    block = re.search(r"upstream cardroom_rooms \{(.*?)\}", text, re.S)
    assert block and re.search(r"^\s*hash \$room consistent;", block[1], re.M)
    servers = re.findall(r"^\s*server\s+([\w.-]+):(\d+)", block[1], re.M)
    assert [(h, int(p)) for h, p in servers] == nginx_upstreams()  # the same processes
    found = re.search(r'map \$uri \$room \{\s*"~(.+?)" \$1;\s*default "";\s*\}', text)
    assert found, "nginx.conf maps $uri to $room: the code of /ws/CODE, else nothing"
    # a room's address goes to the hashed upstream, everything else to least_conn
    assert re.search(r'map \$room \$cardroom \{\s*""\s+cardroom;\s*default cardroom_rooms;', text)
    assert "proxy_pass http://$cardroom;" in text
    pattern = re.compile(found[1])
    for path in (
        "/ws/ABCDE",
        "/ws/K7Q2M",
        "/ws/abcde",
        "/ws/ABCD",
        "/ws",
        "/ws/",
        "/",
        "/ws/ABCDE/x",
        "/r/ABCDE",
        "/api/leaderboard",
    ):
        where = parse_ws_path(path)
        routed = pattern.fullmatch(path)
        # hashed by its code exactly when the server takes it as a room's address
        assert (routed[1] if routed else None) == (where.room if where else None), path
