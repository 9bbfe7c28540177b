"""``cardroom`` keeps every command and flag when modules move (as when the operator tools went
to ``server/tools/``), so operators' scripts keep working: the usage line of each command's
``--help``, as it was before the move."""

from __future__ import annotations

import contextlib
import io

import pytest

from server.cli import BENCHES, SIMS, main

#: The usage of ``cardroom [COMMAND...] --help`` (after ``usage: cardroom COMMAND``), recorded
#: from the tree before the tools moved; whitespace is normalised (argparse wraps to the terminal).
USAGES = {
    "": "[-h] {serve,sim,bench,arena,bot,play,fuzz,soak,loadtest,verify} ...",
    "serve": (
        "[-h] [--host HOST] [--port PORT] [--grace GRACE] [--idle-timeout IDLE_TIMEOUT] "
        "[--bot-delay BOT_DELAY] [--lobby-timeout LOBBY_TIMEOUT] [--rooms-per-minute "
        "ROOMS_PER_MINUTE] [--rooms-burst ROOMS_BURST] [--rooms-per-address "
        "ROOMS_PER_ADDRESS] [--max-rooms MAX_ROOMS] [--chat-per-minute CHAT_PER_MINUTE] "
        "[--chat-burst CHAT_BURST] [--chat-each-per-minute CHAT_EACH_PER_MINUTE] "
        "[--chat-each-burst CHAT_EACH_BURST] [--max-spectators MAX_SPECTATORS] "
        "[--spectator-frame-interval SPECTATOR_FRAME_INTERVAL] [--origin ORIGINS] "
        "[--trusted-proxy CIDR] [--proxy-header "
        "{x-forwarded-for,forwarded}] [--forwarded-host] [--allowed-host NAME] "
        "[--open-timeout OPEN_TIMEOUT] [--max-handshakes "
        "MAX_HANDSHAKES] [--max-handshakes-per-address MAX_HANDSHAKES_PER_ADDRESS] "
        "[--backlog BACKLOG] [--rate RATE] [--burst BURST] [--hello-timeout HELLO_TIMEOUT] "
        "[--max-connections "
        "MAX_CONNECTIONS] [--max-per-address MAX_PER_ADDRESS] [--no-trim-memory] "
        "[--gc-freeze-every GC_FREEZE_EVERY] [--loop-lag-interval LOOP_LAG_INTERVAL] "
        "[--compression {off,deflate}] [--redis URL] [--durability {local,replicated}] "
        "[--no-place-rooms] [--bot-workers "
        "BOT_WORKERS] "
        "[--bot-queue-per-address BOT_QUEUE_PER_ADDRESS] [--bot-queue BOT_QUEUE] "
        "[--max-expert-seats MAX_EXPERT_SEATS] [--secret HEX] [--history-rate HISTORY_RATE] "
        "[--history-burst HISTORY_BURST] [--miss-rate MISS_RATE] [--miss-burst MISS_BURST] "
        "[--miss-floor MISS_FLOOR] [--replay-cache-mb REPLAY_CACHE_MB] [--max-games "
        "MAX_GAMES] [--next-hand-delay NEXT_HAND_DELAY] [--events-per-minute "
        "EVENTS_PER_MINUTE] [--events-burst EVENTS_BURST] [--max-events MAX_EVENTS] "
        "[--max-event-tables MAX_EVENT_TABLES] "
        "[--daily-entries-per-address DAILY_ENTRIES_PER_ADDRESS] [--daily-alone "
        "{on,off}] [--devices-per-address DEVICES_PER_ADDRESS] [--worked-devices-per-address "
        "WORKED_DEVICES_PER_ADDRESS] [--identity-work-bits IDENTITY_WORK_BITS] "
        "[--wait-before-queue WAIT_BEFORE_QUEUE] [--move-rate MOVE_RATE] [--move-burst "
        "MOVE_BURST] [--ipv6-site-multiple IPV6_SITE_MULTIPLE] [--queue-shithead-table N] "
        "[--queue-fill-wait QUEUE_FILL_WAIT] [--queue-take-window QUEUE_TAKE_WINDOW] "
        "[--queue-max QUEUE_MAX] [--queue-per-minute "
        "QUEUE_PER_MINUTE] [--queue-burst QUEUE_BURST] [--ladder-fill-wait LADDER_FILL_WAIT] "
        "[--ladder-turn-timer LADDER_TURN_TIMER] [--log-level LOG_LEVEL]"
    ),
    "arena": (
        "[-h] --seats SEATS [--hands GAMES] [--seed SEED] [--jobs JOBS] [--cap CAP] "
        "[--seconds SECONDS] [--cpu] [--options OPTIONS] [--conventions] [--json] [--no-progress] "
        "{shithead,sheepshead}"
    ),
    "bot": (
        "[-h] --server SERVER (--room ROOM | --ladder {shithead,sheepshead}) [--level "
        "{random,basic,strong,expert}] [--seat-name NAME] [--seat SEAT] [--games GAMES] "
        "[--identity IDENTITY] [--seed SEED] [--also URL] [--log-level LOG_LEVEL]"
    ),
    "play": "[-h] [--name NAME] [--rules RULES] [--play-now {shithead,sheepshead}] [--unranked] "
    "[[ws://HOST:PORT] [CODE] ...]",
    "fuzz": (
        "[-h] [--url URL] [--frames FRAMES] [--seconds SECONDS] [--seed SEED] [--workers "
        "WORKERS] [--server-log SERVER_LOG]"
    ),
    "soak": (
        "[-h] [--minutes MINUTES] [--rooms ROOMS] [--seed SEED] [--warmup WARMUP] "
        "[--no-tracemalloc]"
    ),
    "loadtest": (
        "[-h] [--game {shithead,sheepshead}] [--seats SEATS] [--rooms ROOMS] [--humans "
        "HUMANS] [--level {random,basic,strong,expert}] [--seconds SECONDS] [--warmup WARMUP] "
        "[--pace PACE] [--no-deflate] [--compression {off,deflate}] [--think MIN-MAX] "
        "[--seed SEED] [--port PORT] [--url URL] [--server-pid PID[,PID]] [--workers WORKERS] "
        "[--sources A-B|N] [--server-cpu SERVER_CPU] [--load-cpu LOAD_CPU] [--no-ceiling] "
        "[--serve-arg SERVE_ARG] [--connections CONNECTIONS] [--rounds ROUNDS] [--json] "
        "[--bgio BGIO] [--profile PROFILE]"
    ),
    "verify": (
        "[-h] [--event SOURCE] [--commitment G=HEX] [--daily SOURCE] [--token TOKEN] "
        "source [source ...]"
    ),
    "sim sheepshead": "[-h] [--hands HANDS] [--seed SEED] [--pick-prob PICK_PROB]",
    "sim shithead": (
        "[-h] [--players {2,3,4,5}] [--games GAMES] [--seed SEED] [--policy {random,lowest}] "
        "[--max-actions MAX_ACTIONS]"
    ),
    "bench bots": (
        "[-h] [--flood FLOOD] [--seconds SECONDS] [--rooms ROOMS] [--parallel PARALLEL] "
        "[--server-arg SERVER_ARG] [--code CODE] [{fairness,memory,both}]"
    ),
    "bench frames": "[-h] [--hands HANDS] [--seed SEED] [--repeat REPEAT] [--cpu CPU]",
    "bench queue": (
        "[-h] [--people PEOPLE] [--seconds SECONDS] [--addresses ADDRESSES] "
        "[--fill-wait FILL_WAIT] [--topologies {one,two} [{one,two} ...]]"
    ),
    "bench churn": (
        "[-h] [--flood {churn,ping,none}] [--attackers ATTACKERS] [--rate RATE] [--acts ACTS] "
        "[--pause PAUSE] [--timeout TIMEOUT]"
    ),
    "bench faults": (
        "[-h] [--rooms ROOMS] [--seconds SECONDS] [--think THINK] [--durability "
        "{local,replicated}] [--pause PAUSE] [--lag LAG] "
        "{failover,redis-pause,owner-pause,disk-full}"
    ),
    "bench durability": (
        "[-h] [--rooms ROOMS] [--seconds SECONDS] [--think THINK] [--rounds ROUNDS]"
    ),
    "bench redis": (
        "[-h] [--game {shithead,sheepshead}] [--rooms ROOMS] [--seconds SECONDS] [--level "
        "LEVEL] [--runs RUNS] [--pace PACE] [--redis REDIS] [--redis-cpu "
        "{load,server,any}] [--cluster]"
    ),
    "bench room": (
        "[-h] [--seed SEED] [--matches MATCHES] [--repeat REPEAT] [--cpu CPU] [--only "
        "{request,core,actor}]"
    ),
    "bench rules": (
        "[-h] [--games GAMES] [--hands HANDS] [--seed SEED] [--cpu CPU] [--repeat REPEAT]"
    ),
    "bench server": (
        "[-h] [--game {shithead,sheepshead}] [--rooms ROOMS] [--seconds SECONDS] [--level "
        "LEVEL] [--port PORT]"
    ),
    "bench takeover": "[-h] [--runs RUNS] [--cluster]",
    "bench handover": "[-h] [--rooms ROOMS]",
}


def usage(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exit_:
        main([*argv, "--help"])
    assert exit_.value.code == 0
    head = " ".join(out.getvalue().split("\n\n")[0].split())
    prefix = " ".join(["usage: cardroom", *argv])
    assert head.startswith(prefix), head
    return head[len(prefix) :].strip()


def test_every_command_and_choice_is_checked() -> None:
    listed = USAGES[""].split("{")[1].split("}")[0].split(",")
    assert {name.split()[0] for name in USAGES if name} == set(listed)
    assert {f"sim {g}" for g in SIMS} | {f"bench {b}" for b in BENCHES} <= set(USAGES)


@pytest.mark.parametrize("command", sorted(USAGES), ids=lambda c: c or "cardroom")
def test_each_command_keeps_its_flags(command: str) -> None:
    assert usage(command.split()) == USAGES[command]
